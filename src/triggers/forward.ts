import { createHmac } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import type { Delivery, EventStore, TriggerEvent } from '../store/types.js';
import { ForwardRefused, hostRefusal } from '../http/forward-guard.js';

export const SIGNATURE_HEADER = 'x-switchboard-signature-256';
export const EVENT_ID_HEADER = 'x-switchboard-event-id';

export interface ForwardOptions {
  /** First retry delay; doubles per attempt up to maxDelayMs, with jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
  /** Sends the POSTs; forwardDispatcher's, which checks each address connected to, unless a test passes another. */
  dispatcher?: Dispatcher;
  /** Private networks may receive forwards (SWITCHBOARD_FORWARD_ALLOW_PRIVATE). */
  allowPrivate?: boolean;
}

export const DEFAULT_FORWARD_OPTIONS: ForwardOptions = { baseDelayMs: 5_000, maxDelayMs: 60 * 60_000, timeoutMs: 10_000 };

/** The JSON an agent's URL receives; the same shape events_next returns. */
export function eventJson(e: TriggerEvent): Record<string, unknown> {
  return {
    id: String(e.id),
    trigger_id: e.triggerId,
    kind: e.kind,
    occurred_at: e.occurredAt,
    received_at: e.receivedAt,
    summary: e.summary,
    payload: e.payload,
  };
}

export function sign(secret: string, body: string | Buffer): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}

/** One attempt to POST an event to its forward URL; the outcome (and the next try, if any) is recorded. */
export async function forwardOnce(events: EventStore, delivery: Delivery, options: ForwardOptions, now = Date.now()): Promise<boolean> {
  const body = JSON.stringify(eventJson(delivery.event));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'switchboard-forwarder/0.1',
    [EVENT_ID_HEADER]: String(delivery.event.id),
    'x-switchboard-trigger-id': delivery.event.triggerId,
    'x-switchboard-event-kind': delivery.event.kind,
  };
  if (delivery.secret) headers[SIGNATURE_HEADER] = sign(delivery.secret, body);
  const started = performance.now();
  let status: number | undefined;
  let error: string | undefined;
  let refused = false;
  try {
    const literal = hostRefusal(new URL(delivery.url), options.allowPrivate ?? false);
    if (literal) throw new ForwardRefused(literal);
    const res = await request(delivery.url, {
      method: 'POST',
      headers,
      body,
      dispatcher: options.dispatcher,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    status = res.statusCode;
    await res.body.dump();
    if (status < 200 || status >= 300) error = `receiver answered ${status}`;
  } catch (e) {
    refused = e instanceof ForwardRefused;
    error = refused
      ? `refused, not retried: ${(e as Error).message}`.slice(0, 300)
      : ((e as { code?: string }).code ?? (e as Error).message ?? 'network error').slice(0, 200);
  }
  const delivered = error === undefined;
  const step = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** delivery.attempts);
  const next = now + Math.round(step * (0.8 + Math.random() * 0.4));
  await events.recordAttempt(delivery.id, {
    status,
    error,
    durationMs: performance.now() - started,
    delivered,
    nextAttemptAt: delivered || refused || next > delivery.giveUpAt ? null : next,
  });
  return delivered;
}
