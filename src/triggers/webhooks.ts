import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import { header, type Route } from '../http/incoming.js';
import type { CommitInput, Store, Trigger, TriggerEvent } from '../store/types.js';
import type { EventLog } from './event-log.js';
import { BodyBudget, refuseUnread } from './body-budget.js';
import { GroupCommit } from './group-commit.js';
import { outlookNotificationRoutes } from './outlook-notifications.js';
import type { TriggerKind, WebhookDelivery } from '../contracts/triggers.js';

/** GitHub sends at most 25 MB; anything larger is not a delivery. */
const MAX_DELIVERY_BYTES = 26 * 1024 * 1024;
/** Bytes of delivery bodies held at once, from their first byte until they are answered. */
const MAX_HELD_BYTES = 48 * 1024 * 1024;

export interface WebhookDeps {
  store: Store;
  kinds: Map<string, TriggerKind>;
  log: EventLog;
  logger: Logger;
  /** Deliveries arriving together share one read of their hook and one transaction (true unless false); false: each has its own, for comparison. */
  groupCommit?: boolean;
  /** Stores that a trigger needs a poll, and starts it when this process runs the runner; the store's pollSoon if absent. */
  requestPoll?: (triggerId: string) => Promise<void>;
}

type Commit = (triggerId: string, input: CommitInput) => Promise<TriggerEvent[]>;
type HookIntake = Awaited<ReturnType<Store['hooks']['intake']>>;
type Intake = WebhookDeps & { read: ReadDelivery; commit: Commit; hook: (id: string) => Promise<HookIntake> };

/** Compares an HMAC signature header with the one computed over the raw body, in constant time. */
export function signatureMatches(algorithm: 'sha256' | 'sha1', secret: string, raw: Buffer, given: string | undefined, prefix: string): boolean {
  if (!given || !given.startsWith(prefix)) return false;
  const expected = Buffer.from(prefix + createHmac(algorithm, secret).update(raw).digest('hex'));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * Provider webhooks: the signature is checked on the raw bytes before anything is parsed, every
 * matching trigger's events are committed, and only then does the provider get its 2xx. Graph change notifications
 * (outlook-notifications.ts) carry no signature: their clientState is checked, and what is committed is a poll.
 */
export function webhookRoutes(deps: WebhookDeps): Route[] {
  const budget = new BodyBudget({ maxBody: MAX_DELIVERY_BYTES, maxHeld: MAX_HELD_BYTES, retryAfterSeconds: 10 }, deps.logger);
  const read: ReadDelivery = (req, res) => budget.read(req, res);
  const readHook = (id: string) => deps.store.hooks.intake(id);
  const group = deps.groupCommit === false ? undefined : new GroupCommit(deps.store.triggers);
  const intake: Intake = {
    ...deps,
    read,
    hook: group ? readTogether(readHook) : readHook,
    commit: group ? (id, input) => group.commit(id, input) : (id, input) => deps.store.triggers.commit(id, input),
  };
  return [
    { method: 'POST', path: '/webhooks/github/', public: true, handle: (req, res, url) => github(intake, req, res, url) },
    { method: 'POST', path: '/webhooks/vercel/', public: true, handle: (req, res, url) => vercel(intake, req, res, url) },
    ...outlookNotificationRoutes({ ...deps, read, requestPoll: deps.requestPoll ?? ((id) => deps.store.work.pollSoon(id)) }),
  ];
}

type ReadDelivery = (req: IncomingMessage, res: ServerResponse) => Promise<Buffer | undefined>;

/**
 * Reads asked for in one turn of the event loop share one read per key, made once the turn is over: every caller
 * sees the store as it was after it asked, as with a read of its own.
 */
function readTogether<T>(read: (key: string) => Promise<T>): (key: string) => Promise<T> {
  let turn: Map<string, Promise<T>> | undefined;
  return (key) => {
    if (!turn) {
      turn = new Map();
      setImmediate(() => (turn = undefined));
    }
    let shared = turn.get(key);
    if (!shared) turn.set(key, (shared = new Promise<void>((resolve) => setImmediate(resolve)).then(() => read(key))));
    return shared;
  };
}

async function github(deps: Intake, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const hookId = url.pathname.slice('/webhooks/github/'.length);
  const hook = /^hk_[0-9a-f]+$/.test(hookId) ? await deps.hook(hookId) : undefined;
  if (!hook) return refuseUnread(res, 404, { error: 'unknown hook' });
  const raw = await deps.read(req, res);
  if (!raw) return;
  if (!signatureMatches('sha256', hook.secret, raw, header(req, 'x-hub-signature-256'), 'sha256=')) {
    deps.logger.warn('github delivery refused: bad signature', { hook: hookId });
    return reply(res, 401, { error: 'signature mismatch' });
  }
  const event = header(req, 'x-github-event') ?? '';
  if (event === 'ping') return reply(res, 200, { ok: true });
  const id = header(req, 'x-github-delivery');
  const payload = parse(raw);
  if (!id || !event || !payload) return reply(res, 400, { error: 'missing X-GitHub-Delivery or X-GitHub-Event, or a body that is not JSON' });
  await deliver(deps, res, hook.triggers, 'github', { id, event, payload });
}

async function vercel(deps: Intake, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const triggerId = url.pathname.slice('/webhooks/vercel/'.length);
  const trigger = /^trg_[0-9a-f]+$/.test(triggerId) ? await deps.store.triggers.get(triggerId) : undefined;
  if (!trigger || deps.kinds.get(trigger.kind)?.webhook?.provider !== 'vercel') return refuseUnread(res, 404, { error: 'unknown trigger' });
  const raw = await deps.read(req, res);
  if (!raw) return;
  const secrets = await deps.store.triggers.secrets(trigger.id);
  // A replaced secret stays valid for its overlap, so deliveries signed before the provider switched still count.
  const previous = secrets.previousWebhook && Date.parse(secrets.previousWebhookUntil ?? '') > Date.now() ? secrets.previousWebhook : undefined;
  const valid = [secrets.webhook, previous].filter((s): s is string => !!s);
  if (!valid.some((secret) => signatureMatches('sha1', secret, raw, header(req, 'x-vercel-signature'), ''))) {
    deps.logger.warn('vercel delivery refused: bad signature', { trigger: trigger.id });
    return reply(res, 401, { error: 'signature mismatch' });
  }
  const payload = parse(raw);
  if (!payload || typeof payload.id !== 'string' || typeof payload.type !== 'string') return reply(res, 400, { error: 'expected a JSON body with id and type' });
  await deliver(deps, res, [trigger], 'vercel', { id: payload.id, event: payload.type, payload });
}

/** Commits every matching trigger's events, then answers: 200 once all are stored, 503 (send it again) when any is not. */
async function deliver(deps: Intake, res: ServerResponse, triggers: Trigger[], provider: 'github' | 'vercel', delivery: WebhookDelivery): Promise<void> {
  const commits: Array<Promise<TriggerEvent[]>> = [];
  for (const trigger of triggers) {
    const source = deps.kinds.get(trigger.kind)?.webhook;
    if (source?.provider !== provider) continue;
    const events = source.match(delivery, trigger.config);
    if (events.length) commits.push(deps.commit(trigger.id, { events }));
  }
  const outcomes = await Promise.allSettled(commits);
  const accepted = outcomes.reduce((n, o) => n + (o.status === 'fulfilled' ? o.value.length : 0), 0);
  // Committed is what the sender needs to hear; telling this process's clients need not hold up the answer.
  // A failed read is retried by the log's own timer.
  if (accepted) void deps.log.poke().catch(() => undefined);
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (!failed) return reply(res, 200, { accepted });
  // What was stored stays stored: the redelivery is deduplicated against it.
  deps.logger.error('delivery not stored', { provider, delivery: delivery.id, message: String((failed.reason as Error)?.message ?? failed.reason) });
  reply(res, 503, { error: 'The delivery could not be stored; send it again.' });
}

function parse(raw: Buffer): Record<string, any> | undefined {
  try {
    const value = JSON.parse(raw.toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
