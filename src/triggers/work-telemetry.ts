import type { Delivery } from '../store/types.js';
import { instruments } from '../telemetry/metrics.js';
import { failSpan, inSpan, ROOT_CONTEXT, SpanKind, tracingOn } from '../telemetry/trace.js';

/**
 * One attempt to deliver an event to a webhook URL (a trigger's forward or an MCP Events subscription): a span
 * `event delivery`, the attempt counted by route and outcome, and, once delivered, its lag from the commit.
 */
export async function observeDelivery(delivery: Delivery, send: () => Promise<boolean>): Promise<boolean> {
  const metrics = instruments();
  if (!tracingOn() && !metrics) return send();
  const route = delivery.subscription ? 'subscription' : 'forward';
  let delivered: boolean | undefined;
  try {
    return (delivered = await inSpan(
      'event delivery',
      {
        kind: SpanKind.PRODUCER,
        // Background work starts a trace of its own, whichever request happened to wake the runner.
        parent: ROOT_CONTEXT,
        attributes: { 'switchboard.delivery.route': route, 'switchboard.delivery.attempt': delivery.attempts + 1, 'switchboard.trigger.kind': delivery.event.kind },
      },
      async (span) => {
        const ok = await send();
        span?.setAttribute('switchboard.delivery.outcome', ok ? 'delivered' : 'failed');
        if (!ok) failSpan(span, 'not_delivered');
        return ok;
      },
    ));
  } finally {
    const outcome = delivered === undefined ? 'error' : delivered ? 'delivered' : 'failed';
    metrics?.deliveryAttempts.add(1, { route, outcome });
    if (delivered) metrics?.deliveryLag.record(Math.max(0, (Date.now() - Date.parse(delivery.event.receivedAt)) / 1000), { route });
  }
}

/** One poll of a trigger: a span `poll {kind}` over the provider requests it makes, and the poll counted by kind. */
export function observePoll(kind: string, poll: () => Promise<void>): Promise<void> {
  instruments()?.polls.add(1, { 'switchboard.trigger.kind': kind });
  return tracingOn() ? inSpan(`poll ${kind}`, { parent: ROOT_CONTEXT, attributes: { 'switchboard.trigger.kind': kind } }, poll) : poll();
}

/** Polls and deliveries this process claimed from the shared store. */
export function countClaimed(work: 'poll' | 'delivery', count: number): void {
  if (count > 0) instruments()?.claimed.add(count, { work });
}

/** Reports the store's connections at each collection: the pool's size, those in use and the calls waiting; returns what stops it. */
export function observeStorePool(health: { pool(): { inFlight: number; size: number } }): () => void {
  const gauge = instruments()?.storePool;
  if (!gauge) return () => undefined;
  const report = (result: { observe(value: number, attributes: Record<string, string>): void }) => {
    const { inFlight, size } = health.pool();
    result.observe(size, { state: 'size' });
    result.observe(Math.min(inFlight, size), { state: 'in_use' });
    result.observe(Math.max(0, inFlight - size), { state: 'waiting' });
  };
  gauge.addCallback(report);
  return () => gauge.removeCallback(report);
}

/** Reports the deliveries pending in the store (due now, and waiting for a later attempt) at each collection; returns what stops it. */
export function observeBacklog(work: { deliveryBacklog(): Promise<{ due: number; waiting: number }> }): () => void {
  const gauge = instruments()?.backlog;
  if (!gauge) return () => undefined;
  const report = async (result: { observe(value: number, attributes: Record<string, string>): void }) => {
    const backlog = await work.deliveryBacklog().catch(() => undefined);
    if (!backlog) return;
    result.observe(backlog.due, { state: 'due' });
    result.observe(backlog.waiting, { state: 'waiting' });
  };
  gauge.addCallback(report);
  return () => gauge.removeCallback(report);
}
