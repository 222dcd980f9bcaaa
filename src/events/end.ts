import type { Config, EventsErrorNumbering } from '../config.js';
import { forwardDispatcher } from '../http/forward-guard.js';
import { forOwner } from '../owner.js';
import type { EventSubscription, Store, SubscriptionSecrets } from '../store/types.js';
import type { CallContext, ToolDeps } from '../tool.js';
import { cliToolDeps } from '../triggers/commands.js';
import { eventsErrors } from './errors.js';
import { controlBody } from './occurrence.js';
import { releaseTrigger } from './subscriptions.js';
import { sendSigned } from './webhook-sender.js';

/** A terminated envelope is one attempt within this long: the subscription is gone whether or not it lands. */
export const TERMINATED_TIMEOUT_MS = 3_000;

/** Whose subscriptions end: a person's (disabled, removed, a token or grant revoked), or those riding on an account's triggers (disconnected). */
export type EndFilter = { owner: string } | { accountId: string };

/** Why, as the terminated envelope's `data.reason` says it. */
export type EndReason = 'person_disabled' | 'person_removed' | 'token_revoked' | 'grant_revoked' | 'account_removed';

const MESSAGES: Record<EndReason, string> = {
  person_disabled: 'The person this subscription belongs to was disabled on the server.',
  person_removed: 'The person this subscription belongs to was removed from the server.',
  token_revoked: "A token of this subscription's person was revoked: subscribe again with a valid one.",
  grant_revoked: "This subscription's person revoked the client's authorization: subscribe again once authorized.",
  account_removed: 'The account this subscription reads was disconnected from the server.',
};

/** The secrets that sign now: the current one, and the previous one while its grace lasts. */
function signing(secrets: SubscriptionSecrets | undefined, now: number): string[] {
  if (!secrets) return [];
  return secrets.previous && (secrets.previousUntil ?? 0) > now ? [secrets.current, secrets.previous] : [secrets.current];
}

async function matching(deps: ToolDeps, filter: EndFilter): Promise<EventSubscription[]> {
  const subscriptions = deps.store.subscriptions;
  if ('owner' in filter) return subscriptions.list({ owner: filter.owner });
  const found: EventSubscription[] = [];
  for (const trigger of await deps.store.triggers.list({ accountId: filter.accountId })) found.push(...(await subscriptions.list({ triggerId: trigger.id })));
  return found;
}

/**
 * Ends subscriptions when their person or account may no longer receive events: each is removed at once (its pending
 * deliveries are cancelled with it, on every instance), each webhook subscription's callback is sent one signed
 * `terminated` envelope (Forbidden, `data.reason`; short timeout, failures ignored), and the triggers made for them
 * that none rides on any more go with what they made at the provider. A stream sees its row gone at its next heartbeat
 * and ends with terminated. `deps` is the server's own (every owner's store). Returns how many ended.
 */
export async function endSubscriptions(deps: ToolDeps, filter: EndFilter, reason: EndReason, numbering?: EventsErrorNumbering): Promise<number> {
  const ended = await matching(deps, filter);
  if (ended.length === 0) return 0;
  const forbidden = eventsErrors(numbering).forbidden(MESSAGES[reason], { reason });
  const allowPrivate = deps.forwardPolicy?.allowPrivate ?? false;
  const dispatcher = forwardDispatcher(deps.forwardPolicy ?? { allowPrivate }, TERMINATED_TIMEOUT_MS);
  try {
    const sends: Array<Promise<unknown>> = [];
    for (const subscription of ended) {
      const secrets = signing(await deps.store.subscriptions.secrets(subscription.id), Date.now());
      if (!(await deps.store.subscriptions.remove(subscription.id))) continue;
      if (subscription.mode !== 'webhook' || !subscription.url || secrets.length === 0) continue;
      const { webhookId, body } = controlBody('terminated', { code: forbidden.code, message: forbidden.message, data: forbidden.data });
      const post = { url: subscription.url, subscriptionId: subscription.id, webhookId, body, secrets };
      sends.push(sendSigned(post, { dispatcher, allowPrivate, timeoutMs: TERMINATED_TIMEOUT_MS }).catch(() => undefined));
    }
    await Promise.all(sends);
  } finally {
    await dispatcher.close().catch(() => undefined);
  }
  for (const [triggerId, owner] of new Map(ended.map((s) => [s.triggerId, s.owner]))) {
    const call: CallContext = { deps: forOwner(deps, owner), signal: new AbortController().signal, progress: async () => undefined };
    await releaseTrigger(call, triggerId).catch(() => undefined);
  }
  return ended.length;
}

/** endSubscriptions from a command run on the server's machine (users disable, accounts remove), on the store it opened. */
export async function endSubscriptionsFromCli(config: Config, store: Store, filter: EndFilter, reason: EndReason): Promise<number> {
  const { deps, close } = cliToolDeps(config, store);
  try {
    return await endSubscriptions(deps, filter, reason, config.eventsErrorCodes);
  } finally {
    await close();
  }
}
