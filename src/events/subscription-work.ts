import type { Dispatcher } from 'undici';
import type { Logger } from '../log.js';
import { forOwner } from '../owner.js';
import type { Delivery } from '../store/types.js';
import type { CallContext, ToolDeps } from '../tool.js';
import { encodeCursor } from './cursor.js';
import { nextAttemptAt } from './delivery-schedule.js';
import { occurrenceBody } from './occurrence.js';
import type { PerMinuteLimit } from './limits.js';
import { EXPIRED_GRACE_MS } from './subscription-terms.js';
import { releaseTrigger } from './subscriptions.js';
import { sendSigned } from './webhook-sender.js';

const MAX_REMEMBERED_BODIES = 16;

export interface SubscriptionWorkOptions {
  /** The server's own dependencies, every owner's store: a swept subscription's trigger is removed as triggers_delete does. */
  deps: ToolDeps;
  logger: Logger;
  /** The per-person delivery rate (SWITCHBOARD_EVENTS_MAX_PER_MINUTE); unlimited without it. */
  rate?: PerMinuteLimit;
  /** How long an expired subscription is kept before it is swept (EXPIRED_GRACE_MS); tests shorten it. */
  expiredGraceMs?: number;
  now?: () => number;
}

/** How the sender reaches callbacks: the forwarding dispatcher, which checks every address it connects to. */
export interface SendVia {
  dispatcher: Dispatcher;
  allowPrivate: boolean;
}

/** What the trigger runner hands MCP Events work to: the subscription deliveries it claims, and its periodic sweep. */
export interface SubscriptionWork {
  /** One attempt of a claimed subscription delivery; the attempt and the subscription's outcome are recorded. */
  deliver(delivery: Delivery, via: SendVia): Promise<boolean>;
  /** Removes subscriptions expired for longer than the grace, then the triggers made for them that none rides on; returns how many went. */
  sweep(): Promise<number>;
}

export function subscriptionWork(o: SubscriptionWorkOptions): SubscriptionWork {
  const now = o.now ?? Date.now;
  const store = o.deps.store;
  // Subscriptions on one trigger are sent the same event with the same name and, mostly, the same cursor: one body, as
  // bytes, signed and written by each without encoding it again.
  const bodies = new Map<string, { webhookId: string; body: Buffer }>();

  function bodyOf(delivery: Delivery): { webhookId: string; body: Buffer } {
    const subscription = delivery.subscription!;
    const cursor = cursorAfter(delivery);
    const key = `${delivery.event.id} ${cursor} ${subscription.name}`;
    let body = bodies.get(key);
    if (!body) {
      if (bodies.size >= MAX_REMEMBERED_BODIES) bodies.clear();
      const made = occurrenceBody(delivery.event, subscription, cursor);
      body = { webhookId: made.webhookId, body: Buffer.from(made.body) };
      bodies.set(key, body);
    }
    return body;
  }

  /**
   * The cursor an event carries: where the subscription's watermark stands once this event is delivered. The
   * watermark stops below the oldest event still owed; when that is this one, its delivery moves the watermark to it.
   */
  function cursorAfter(delivery: Delivery): string {
    const { owedFrom } = delivery.subscription!;
    return encodeCursor(owedFrom >= delivery.event.id ? delivery.event.id : owedFrom - 1);
  }

  async function deliver(delivery: Delivery, via: SendVia): Promise<boolean> {
    const subscription = delivery.subscription!;
    if (subscription.refreshBefore !== null && subscription.refreshBefore <= now()) {
      await store.events.recordAttempt(delivery.id, { error: 'the subscription expired before this attempt', durationMs: 0, delivered: false, nextAttemptAt: null });
      return false;
    }
    // Over its person's rate, a delivery waits for the next minute: not an attempt, so not a failure.
    const rate = o.rate?.take(subscription.owner);
    if (rate && !rate.ok) {
      await store.events.deferDelivery(delivery.id, now() + rate.retryAfterMs);
      return false;
    }
    const { webhookId, body } = bodyOf(delivery);
    const outcome = await sendSigned(
      { url: subscription.url, subscriptionId: subscription.id, webhookId, body, secrets: subscription.secrets },
      { dispatcher: via.dispatcher, allowPrivate: via.allowPrivate },
    );
    const at = now();
    const next = outcome.ok || !outcome.retry ? null : nextAttemptAt(delivery.attempts + 1, at);
    await store.events.recordAttempt(delivery.id, {
      status: outcome.status,
      error: outcome.reason,
      durationMs: outcome.durationMs,
      delivered: outcome.ok,
      nextAttemptAt: next !== null && next <= delivery.giveUpAt ? next : null,
    });
    if (!outcome.ok) await store.subscriptions.recordOutcome(subscription.id, { error: outcome.category ?? 'connection_refused', at });
    return outcome.ok;
  }

  async function sweep(): Promise<number> {
    let swept = 0;
    for (const expired of await store.subscriptions.expired(now() - (o.expiredGraceMs ?? EXPIRED_GRACE_MS))) {
      const deps = forOwner(o.deps, expired.owner);
      const call: CallContext = { deps, signal: new AbortController().signal, progress: async () => undefined };
      if (!(await deps.store.subscriptions.remove(expired.id))) continue;
      swept++;
      const note = await releaseTrigger(call, expired.triggerId).catch((error: Error) => error.message);
      if (note) o.logger.warn('a trigger made for subscriptions was not removed cleanly', { trigger: expired.triggerId, note });
    }
    if (swept) o.logger.info('expired event subscriptions removed', { removed: swept });
    return swept;
  }

  return { deliver, sweep };
}
