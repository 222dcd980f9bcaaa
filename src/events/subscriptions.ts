import { recordAct } from '../governance/acts.js';
import { DEFAULT_EVENTS_MAX_SUBSCRIPTIONS, type EventsErrorNumbering } from '../config.js';
import { AccountError, InputError } from '../errors.js';
import { forwardDispatcher } from '../http/forward-guard.js';
import { forOwner } from '../owner.js';
import { providerRecord } from '../providers.js';
import { parseInput, type CallContext, type ToolDeps } from '../tool.js';
import { createTrigger, deleteTrigger } from '../triggers/lifecycle.js';
import { TRIGGER_KINDS } from '../triggers/kinds.js';
import type { EventSubscription, Trigger } from '../store/types.js';
import type { TriggerKind } from '../contracts/triggers.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { checkCallbackUrl, checkWebhookSecret, URL_FIELD } from './delivery-checks.js';
import { eventsErrors, type EventsErrors } from './errors.js';
import type { EventsLimits } from './limits.js';
import { parseEventArguments, type EventArguments } from './types.js';
import { verifyCallback } from './webhook-sender.js';
import {
  CALLBACK_VERIFIED_MS,
  canonicalJson,
  checkMaxAge,
  grantTtl,
  MIN_TTL_MS,
  REFRESH_SECRET_GRACE_MS,
  subscriptionId,
} from './subscription-terms.js';

/** What subscribing needs: the tools' dependencies (a subscription makes a trigger as triggers_create does) and the settings. */
export interface EventsContext {
  deps: ToolDeps;
  /** The caller may change nothing: a read-only server, or a read-only token. */
  readOnly: boolean;
  numbering?: EventsErrorNumbering;
  /** SWITCHBOARD_EVENTS_MAX_SUBSCRIPTIONS. */
  maxSubscriptions?: number;
  /** The TTL floor (MIN_TTL_MS); tests lower it. */
  minTtlMs?: number;
  /** The per-person rate limits of this process: polls, and webhook deliveries (which a refresh reports). */
  limits?: EventsLimits;
  signal?: AbortSignal;
  now?: () => number;
}

/** events/subscribe's params as the client sent them; each is checked here, in the order the extension gives. */
export interface SubscribeRequest {
  name?: unknown;
  arguments?: unknown;
  delivery?: unknown;
  cursor?: unknown;
  ttlMs?: unknown;
  maxAgeMs?: unknown;
  /** The client's own name (its clientInfo), kept to tell clients apart. */
  clientName?: string;
}

export interface DeliveryStatus {
  active: boolean;
  lastDeliveryAt: string | null;
  lastError: string | null;
  failedSince?: string;
  /** The person's deliveries are over SWITCHBOARD_EVENTS_MAX_PER_MINUTE in this minute: they resume after retryAfterMs. */
  throttled?: boolean;
  retryAfterMs?: number;
}

export interface SubscribeResult {
  resultType: 'complete';
  id: string;
  refreshBefore: string;
  cursor: string;
  truncated: boolean;
  deliveryStatus?: DeliveryStatus;
}

const iso = (ms: number) => new Date(ms).toISOString();

function text(value: unknown, field: string, errors: EventsErrors, what: string): string {
  if (typeof value === 'string' && value.length > 0) return value;
  throw errors.invalidParams(`"${field}" is required: ${what}.`, { field });
}

function webhookDelivery(delivery: unknown, errors: EventsErrors): { url: unknown; secret: unknown } {
  if (delivery === null || typeof delivery !== 'object' || Array.isArray(delivery)) {
    throw errors.invalidParams('"delivery" is required: {"mode": "webhook", "url": "https://...", "secret": "whsec_..."}.', { field: 'delivery' });
  }
  const { mode, url, secret } = delivery as Record<string, unknown>;
  if (mode !== undefined && mode !== 'webhook') {
    throw errors.invalidParams(`"delivery.mode" ${JSON.stringify(mode)} is not taken by events/subscribe, which delivers by webhook only: use "webhook".`, {
      field: 'delivery.mode',
    });
  }
  return { url, secret };
}

/** Turns a plain input refusal into the extension's InvalidParams, keeping the field it names. */
async function asInvalidParams<T>(errors: EventsErrors, check: () => T | Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (error instanceof InputError) throw errors.invalidParams(error.message, { field: error.field ?? 'params' });
    throw error;
  }
}

/** The account the arguments name (or the provider's default), or Forbidden saying which account to connect. */
async function usableAccount(call: CallContext, kind: TriggerKind, args: unknown, errors: EventsErrors): Promise<string> {
  const named = (args as { account?: unknown } | null)?.account;
  try {
    const { account } = await call.deps.store.accounts.resolve(kind.connector, typeof named === 'string' ? named : undefined);
    return account.id;
  } catch (error) {
    if (!(error instanceof AccountError || error instanceof InputError)) throw error;
    const title = providerRecord(kind.connector).title;
    throw errors.forbidden(`No usable ${title} account for ${kind.kind}: ${error.message}`, { reason: 'no_account' });
  }
}

/** Checks the callback with a signed challenge, unless it answered one for this owner within CALLBACK_VERIFIED_MS. */
async function verifiedCallback(ctx: EventsContext, owner: string, target: { url: string; subscriptionId: string; secret: string }, errors: EventsErrors): Promise<void> {
  const subscriptions = ctx.deps.store.subscriptions;
  const now = ctx.now?.() ?? Date.now();
  if (await subscriptions.verifiedCallback(owner, target.url, now)) return;
  const allowPrivate = ctx.deps.forwardPolicy?.allowPrivate ?? false;
  const dispatcher = forwardDispatcher(ctx.deps.forwardPolicy ?? { allowPrivate });
  try {
    const outcome = await verifyCallback(target, { dispatcher, allowPrivate });
    if (!outcome.ok) {
      const reason = outcome.category ?? 'challenge_failed';
      throw errors.callbackEndpointError(
        `The callback did not pass verification (${reason}: ${outcome.reason ?? 'no answer'}): it must answer the signed {"type":"verification","challenge":"..."} POST with a 2xx and {"challenge": "<the same value>"}.`,
        { reason },
      );
    }
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
  await subscriptions.rememberCallback(owner, target.url, now + CALLBACK_VERIFIED_MS);
}

/**
 * The trigger a subscription rides on: the one another subscription of the owner with the same name and arguments
 * rides on, else a trigger made for subscriptions with the same kind, account and config, else a new one (origin
 * 'events'). Triggers made with triggers_create or the CLI are never taken: removing them is their maker's choice.
 */
async function triggerFor(call: CallContext, kind: TriggerKind, name: string, args: unknown, parsed: EventArguments, accountId: string): Promise<{ trigger: Trigger; made: boolean }> {
  const { store } = call.deps;
  const key = canonicalJson(args);
  for (const sibling of await store.subscriptions.list({ owner: call.deps.owner })) {
    if (sibling.name !== name || canonicalJson(sibling.arguments) !== key) continue;
    const trigger = await store.triggers.get(sibling.triggerId);
    if (trigger) return { trigger, made: false };
  }
  const config = canonicalJson(parseInput(kind.config, parsed.config, 'arguments'));
  const same = (await store.triggers.list({ kind: kind.kind, accountId })).find((t) => t.origin === 'events' && canonicalJson(t.config) === config);
  if (same) return { trigger: same, made: false };
  const { trigger } = await createTrigger({ kind: kind.kind, account: accountId, config: parsed.config, origin: 'events' }, call);
  return { trigger, made: true };
}

const lapsed = (sub: EventSubscription, now: number) => sub.status === 'suspended' || (sub.refreshBefore !== null && sub.refreshBefore <= now);

function deliveryStatus(before: EventSubscription, limits: EventsLimits | undefined): DeliveryStatus {
  const rate = limits?.deliveries.state(before.owner);
  return {
    active: true,
    lastDeliveryAt: before.lastDeliveryAt === null ? null : iso(before.lastDeliveryAt),
    lastError: before.lastError,
    ...(before.failedSince === null ? {} : { failedSince: iso(before.failedSince) }),
    ...(rate && !rate.ok ? { throttled: true, retryAfterMs: rate.retryAfterMs } : {}),
  };
}

/** What the first checks of every Events request that names an event type found: the type, the account, the arguments. */
export interface CheckedEventRequest {
  errors: EventsErrors;
  call: CallContext;
  kind: TriggerKind;
  name: string;
  args: Record<string, unknown>;
  parsed: EventArguments;
  accountId: string;
}

/**
 * The checks events/subscribe, events/poll and events/stream share, in the extension's order: an authenticated
 * principal; the name; that the caller may use it (a caller who may change nothing may not, since a subscription makes
 * a trigger; an account of the provider must be usable); the arguments against the type's inputSchema.
 */
export async function checkEventRequest(ctx: EventsContext, owner: string, request: { name?: unknown; arguments?: unknown }, method: string): Promise<CheckedEventRequest> {
  const errors = eventsErrors(ctx.numbering);
  if (typeof owner !== 'string') throw errors.forbidden(`${method} needs an authenticated caller: send the bearer token this server takes.`, { reason: 'unauthenticated' });
  const call: CallContext = { deps: forOwner(ctx.deps, owner), signal: ctx.signal ?? new AbortController().signal, progress: async () => undefined };
  const kinds = ctx.deps.triggers?.kinds ?? TRIGGER_KINDS;
  const name = text(request.name, 'name', errors, 'an event type from events/list');
  const kind = kinds.get(name);
  if (!kind) throw errors.notFound(`No event type "${name.slice(0, 100)}"; events/list names the ${kinds.size} types.`, { kind: 'event' });
  if (ctx.readOnly) {
    throw errors.forbidden(`${method} on ${name} makes a trigger, and this caller may change nothing: use a token with write access (scope switchboard).`, { reason: 'read_only' });
  }
  const accountId = await usableAccount(call, kind, request.arguments, errors);
  const parsed = parseEventArguments(name, request.arguments ?? {}, errors, kinds);
  return { errors, call, kind, name, args: (request.arguments ?? {}) as Record<string, unknown>, parsed, accountId };
}

/** The trigger a subscription with this row (if any) rides on, or the one it finds or makes (triggerFor). */
export async function rideTrigger(checked: CheckedEventRequest, before: EventSubscription | undefined): Promise<{ trigger: Trigger; made: boolean }> {
  const rides = before && (await checked.call.deps.store.triggers.get(before.triggerId));
  if (rides) return { trigger: rides, made: false };
  return triggerFor(checked.call, checked.kind, checked.name, checked.args, checked.parsed, checked.accountId);
}

/** ResourceExhausted when the owner already holds the most subscriptions allowed (webhook, poll and stream alike). */
export async function checkSubscriptionRoom(ctx: EventsContext, owner: string, errors: EventsErrors): Promise<void> {
  const max = ctx.maxSubscriptions ?? DEFAULT_EVENTS_MAX_SUBSCRIPTIONS;
  if ((await ctx.deps.store.subscriptions.countByOwner(owner)) >= max) {
    throw errors.resourceExhausted(`This caller holds ${max} subscriptions, the most allowed: unsubscribe from one first (or raise SWITCHBOARD_EVENTS_MAX_SUBSCRIPTIONS).`, {
      limit: 'subscriptions',
      max,
    });
  }
}

/**
 * events/subscribe, which also refreshes: validates in the extension's order (principal; authorization for the name
 * and arguments; arguments; callback URL; secret), then the per-owner limit, the callback challenge, the trigger, and
 * the subscription. A cursor replays what was missed when the subscription is new or had lapsed; on a live one it is
 * a no-op. The result's cursor is the subscription's watermark.
 */
export async function subscribe(ctx: EventsContext, owner: string, request: SubscribeRequest): Promise<SubscribeResult> {
  const checked = await checkEventRequest(ctx, owner, request, 'events/subscribe');
  const { errors, call, name } = checked;
  const delivery = webhookDelivery(request.delivery, errors);
  const allowPrivate = ctx.deps.forwardPolicy?.allowPrivate ?? false;
  const url = await asInvalidParams(errors, () => checkCallbackUrl(delivery.url, allowPrivate, ctx.deps.forwardPolicy?.resolve));
  const secret = await asInvalidParams(errors, () => checkWebhookSecret(delivery.secret));
  const cursor = request.cursor === undefined || request.cursor === null ? undefined : decodeCursor(request.cursor, errors);
  const maxAgeMs = checkMaxAge(request.maxAgeMs, errors);
  const ttlMs = grantTtl(request.ttlMs, errors, ctx.minTtlMs ?? MIN_TTL_MS);

  const store = call.deps.store;
  const id = subscriptionId(owner, url, name, request.arguments ?? {});
  const before = await store.subscriptions.get(id);
  if (!before) await checkSubscriptionRoom(ctx, owner, errors);
  await verifiedCallback(ctx, owner, { url, subscriptionId: id, secret }, errors);

  const now = ctx.now?.() ?? Date.now();
  const wasLapsed = before !== undefined && lapsed(before, now);
  const { trigger, made } = await rideTrigger(checked, before);
  let upserted: Awaited<ReturnType<typeof store.subscriptions.upsert>>;
  try {
    upserted = await store.subscriptions.upsert({
      id,
      mode: 'webhook',
      name,
      arguments: (request.arguments ?? {}) as Record<string, unknown>,
      url,
      triggerId: trigger.id,
      clientName: request.clientName ?? null,
      secret,
      refreshBefore: now + ttlMs,
      previousUntil: now + REFRESH_SECRET_GRACE_MS,
    });
  } catch (error) {
    if (made) await deleteTrigger(trigger, call).catch(() => undefined);
    throw error;
  }
  if (upserted.created) recordAct({ ...call.deps, owner }, 'subscription.created', { account: trigger.accountId, target: `${id} ${name}` });
  let truncated = false;
  if (cursor !== undefined && (upserted.created || wasLapsed)) {
    const notBefore = maxAgeMs === undefined ? undefined : iso(now - maxAgeMs);
    truncated = (await store.subscriptions.replay(id, { after: cursor, ...(notBefore ? { notBefore } : {}) })).truncated;
  }
  return {
    resultType: 'complete',
    id,
    refreshBefore: iso(now + ttlMs),
    cursor: encodeCursor(await store.subscriptions.watermark(id)),
    truncated,
    ...(before ? { deliveryStatus: deliveryStatus(before, ctx.limits) } : {}),
  };
}

export interface UnsubscribeRequest {
  name?: unknown;
  arguments?: unknown;
  delivery?: unknown;
}

/**
 * Removes the trigger made for subscriptions once none rides on it, with what it made at the provider; returns what
 * was left at the provider, if anything.
 */
export async function releaseTrigger(call: CallContext, triggerId: string): Promise<string | undefined> {
  const trigger = await call.deps.store.triggers.get(triggerId);
  if (!trigger || trigger.origin !== 'events') return undefined;
  if ((await call.deps.store.subscriptions.list({ triggerId })).length > 0) return undefined;
  return deleteTrigger(trigger, call);
}

/**
 * events/unsubscribe: idempotent (an unknown key is success). Removes the subscription at once (its pending deliveries
 * with it) and, when it was the last on a trigger made for subscriptions, that trigger and its provider-side hook.
 */
export async function unsubscribe(ctx: EventsContext, owner: string, request: UnsubscribeRequest): Promise<{ resultType: 'complete' }> {
  const errors = eventsErrors(ctx.numbering);
  if (typeof owner !== 'string') throw errors.forbidden('events/unsubscribe needs an authenticated caller: send the bearer token this server takes.', { reason: 'unauthenticated' });
  const name = text(request.name, 'name', errors, 'the event type subscribed to');
  const delivery = request.delivery as { url?: unknown } | null | undefined;
  const url = text(delivery?.url, URL_FIELD, errors, 'the callback URL subscribed with, byte for byte');
  const call: CallContext = { deps: forOwner(ctx.deps, owner), signal: ctx.signal ?? new AbortController().signal, progress: async () => undefined };
  const removed = await call.deps.store.subscriptions.remove(subscriptionId(owner, url, name, request.arguments ?? {}));
  if (removed) {
    recordAct(call.deps, 'subscription.removed', { target: `${removed.id} ${name}` });
    await releaseTrigger(call, removed.triggerId);
  }
  return { resultType: 'complete' };
}
