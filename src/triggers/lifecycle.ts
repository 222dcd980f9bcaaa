import { recordAct } from '../governance/acts.js';
import { randomBytes } from 'node:crypto';
import { CONNECTORS } from '../connectors/index.js';
import { readingAnswers } from '../http/client.js';
import { newTriggerId, type Trigger, type TriggerOrigin } from '../store/types.js';
import type { SetupResult, TriggerRuntime } from '../contracts/triggers.js';
import { parseInput, type CallContext } from '../tool.js';
import { checkForwardUrl } from '../http/forward-guard.js';

/** What a trigger is made of, as triggers_create takes it. */
export interface TriggerRequest {
  kind: string;
  account?: string;
  config?: Record<string, unknown>;
  forward_url?: string;
  /** 'events' for a trigger made for MCP Events subscriptions: removed with its last subscription. */
  origin?: TriggerOrigin;
}

export function runtimeOf(ctx: CallContext): TriggerRuntime {
  if (!ctx.deps.triggers) throw new Error('Triggers are not available in this process.');
  return ctx.deps.triggers;
}

/**
 * Sets a trigger up at the provider (a webhook, a baseline poll) and stores it: nothing is stored when set-up fails.
 * Returns the trigger, what happens next for the one who asked, and the forward secret, shown only now.
 */
export async function createTrigger(input: TriggerRequest, ctx: CallContext): Promise<{ trigger: Trigger; next: string; forwardSecret?: string }> {
  const runtime = runtimeOf(ctx);
  const kind = runtime.kinds.get(input.kind)!;
  const config = parseInput(kind.config, input.config ?? {}, 'config') as Record<string, unknown>;
  const forwardUrl = input.forward_url ? await checkForwardUrl(input.forward_url, ctx.deps.forwardPolicy ?? { allowPrivate: false }) : null;
  const { account, secret } = await ctx.deps.store.accounts.resolve(kind.connector, input.account);
  const api = CONNECTORS[kind.connector].api(account, secret, ctx.deps, ctx.signal);
  const id = newTriggerId();
  let state: Record<string, unknown> = {};
  let setup: SetupResult | undefined;
  if (kind.provider) {
    setup = await readingAnswers(api, () => kind.provider!.setup({ triggerId: id, account, api, store: ctx.deps.store, config, publicUrl: runtime.publicUrl }));
    state = setup.state ?? {};
  }
  const forwardSecret = forwardUrl ? randomBytes(24).toString('base64url') : undefined;
  let trigger: Trigger;
  try {
    if (kind.poll) {
      // The baseline is taken now, so a bad folder or mailbox fails here and nothing is stored.
      const draft: Trigger = { id, kind: kind.kind, accountId: account.id, config, status: 'active', forwardUrl, providerRefs: {}, state, fired: 0, skipped: 0, errors: 0, lastEventAt: null, lastError: null, createdAt: '', origin: null };
      state = (await readingAnswers(api, () => kind.poll!.run({ trigger: draft, account, api, now: Date.now() }))).state;
    }
    trigger = await ctx.deps.store.triggers.create({
      id,
      kind: kind.kind,
      accountId: account.id,
      config: setup?.config ?? config,
      forwardUrl,
      secrets: forwardSecret || setup?.secrets ? { ...setup?.secrets, ...(forwardSecret ? { forward: forwardSecret } : {}) } : undefined,
      providerRefs: setup?.providerRefs,
      state,
      origin: input.origin ?? null,
    });
  } finally {
    await setup?.settle?.();
  }
  recordAct(ctx.deps, 'trigger.created', { account: account.id, target: `${trigger.id} ${trigger.kind}` });
  const what =
    setup?.next ??
    kind.push?.next(config, account, runtime.publicUrl) ??
    `Watching ${account.label} every ${Math.round(kind.poll!.intervalMs(config) / 1000)} s: each new event is seen within one poll interval.`;
  const readEvents =
    ctx.deps.surface === 'cli'
      ? `Watch its events with: switchboard events tail --trigger ${trigger.id}`
      : `Read events with events_next {"triggers":["${trigger.id}"]} or subscribe to switchboard://triggers/${trigger.id}/events.`;
  const modeHint = kind.push && runtime.publicUrl ? ` ${ctx.deps.surface === 'cli' ? 'switchboard triggers list' : 'triggers_list'} shows its mode (push or poll) and why.` : '';
  const next =
    `${what}${modeHint} ${readEvents}` +
    (forwardUrl ? ` Each event is also POSTed to ${forwardUrl}; verify X-Switchboard-Signature-256 with forward_secret.` : '');
  return { trigger, next, forwardSecret };
}

/**
 * Removes what the trigger made at the provider, then the trigger (its pending forwards are cancelled). The trigger
 * goes even when the provider cannot be reached; the returned note then says what is left there.
 */
export async function deleteTrigger(trigger: Trigger, ctx: CallContext): Promise<string | undefined> {
  const kind = runtimeOf(ctx).kinds.get(trigger.kind);
  let note: string | undefined;
  const teardown = kind?.provider?.teardown ?? kind?.push?.teardown;
  if (kind && teardown) {
    try {
      const { account, secret } = await ctx.deps.store.accounts.resolve(kind.connector, trigger.accountId);
      const api = CONNECTORS[kind.connector].api(account, secret, ctx.deps, ctx.signal);
      await readingAnswers(api, () => teardown({ trigger, account, api, store: ctx.deps.store }));
    } catch (error) {
      note = kind.push
        ? `The trigger is deleted, but its Graph subscription could not be removed: ${(error as Error).message} It expires within three days; until then its notifications are refused.`
        : `The trigger is deleted, but its provider-side webhook could not be removed: ${(error as Error).message} Remove it in the provider's settings.`;
    }
  }
  await ctx.deps.store.triggers.remove(trigger.id);
  recordAct(ctx.deps, 'trigger.removed', { account: trigger.accountId, target: `${trigger.id} ${trigger.kind}` });
  return note;
}
