import { randomUUID } from 'node:crypto';
import { encodeCursor, decodeCursor } from './cursor.js';
import type { TerminationError } from './occurrence.js';
import { occurrenceOf, readFrom, type EventOccurrence } from './poll.js';
import { callbackFreeSubscriptionId, checkMaxAge } from './subscription-terms.js';
import { checkEventRequest, checkSubscriptionRoom, releaseTrigger, rideTrigger, type EventsContext } from './subscriptions.js';

/** The longest quiet between two notifications of a stream (the extension asks for at least one every 30 s). */
export const HEARTBEAT_MS = 25_000;
const BATCH = 100;

/** events/stream's params as the client sent them. */
export interface StreamRequest {
  name?: unknown;
  arguments?: unknown;
  cursor?: unknown;
  maxAgeMs?: unknown;
  clientName?: string;
}

/** Where a stream's notifications go: the protocol layer sends each as `notifications/events/<name>` related to the request. */
export interface StreamSink {
  active(params: { cursor: string; truncated: boolean }): Promise<void>;
  event(occurrence: EventOccurrence): Promise<void>;
  heartbeat(params: { cursor: string }): Promise<void>;
  terminated(params: { error: TerminationError }): Promise<void>;
}

export interface StreamOptions {
  /** Aborted when the client cancels the request or goes away: the stream ends without a terminated notification. */
  signal: AbortSignal;
  /** Aborted when the server shuts down: the stream ends with terminated {reason: "shutdown"}. */
  stopping?: AbortSignal;
  heartbeatMs?: number;
}

/** A terminated notification's error when the server ends the stream: not one of the extension's codes, its own (-32000). */
const SHUTDOWN: TerminationError = {
  code: -32000,
  message: 'The server is shutting down: open the stream again with the last cursor, on another instance or once it is back.',
  data: { reason: 'shutdown' },
};

/**
 * events/stream: the trigger's events after the cursor (replayed first), then each new one as it is committed, with a
 * heartbeat in every quiet `heartbeatMs`, until the client cancels or leaves, the server stops, or the stream's
 * subscription is ended for its person (disabled, account removed). The stream rides on a trigger as a subscription of
 * mode 'stream', its own (a random part in its id), whose refreshBefore each heartbeat pushes ahead; the row and, when
 * it was the last, the trigger made for it go when the stream ends.
 */
export async function stream(ctx: EventsContext, owner: string, request: StreamRequest, sink: StreamSink, options: StreamOptions): Promise<{ resultType: 'complete' }> {
  const checked = await checkEventRequest(ctx, owner, request, 'events/stream');
  const { errors, call, name, args } = checked;
  const log = ctx.deps.triggers?.log;
  if (!log) throw errors.unsupported('This process serves no triggers, so it cannot stream events: use events/poll.', { feature: 'push', reason: 'no_event_log' });
  const cursor = request.cursor === undefined || request.cursor === null ? undefined : decodeCursor(request.cursor, errors);
  const maxAgeMs = checkMaxAge(request.maxAgeMs, errors);
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const now = ctx.now ?? Date.now;

  const store = call.deps.store;
  const id = callbackFreeSubscriptionId(owner, 'stream', name, args, randomUUID());
  await checkSubscriptionRoom(ctx, owner, errors);
  const { trigger } = await rideTrigger(checked, undefined);
  const keepAlive = () =>
    store.subscriptions.upsert({ id, mode: 'stream', name, arguments: args, url: null, triggerId: trigger.id, clientName: request.clientName ?? null, refreshBefore: now() + 2 * heartbeatMs });
  await keepAlive();

  const signal = options.stopping ? AbortSignal.any([options.signal, options.stopping]) : options.signal;
  try {
    let head = await ctx.deps.store.events.lastId();
    let position = head;
    let truncated = false;
    if (cursor !== undefined) ({ from: position, truncated } = await readFrom(checked, id, cursor, maxAgeMs, now()));
    await sink.active({ cursor: encodeCursor(position), truncated });
    let lastBeat = now();
    while (!signal.aborted) {
      head = await ctx.deps.store.events.lastId();
      const batch = (await store.events.after(position, { triggerIds: [trigger.id], limit: BATCH })).filter((e) => e.id <= head);
      for (const event of batch) {
        if (signal.aborted) break;
        await sink.event(occurrenceOf(event, name));
        position = event.id;
      }
      if (batch.length === BATCH || signal.aborted) continue;
      position = Math.max(position, head);
      if (now() - lastBeat >= heartbeatMs) {
        // The row is gone when the person's subscriptions were ended (disabled, grant revoked, account removed).
        if (!(await store.subscriptions.get(id))) {
          const ended = errors.forbidden('This stream was ended: its person or account may no longer receive these events.', { reason: 'revoked' });
          await sink.terminated({ error: { code: ended.code, message: ended.message, data: ended.data } });
          return { resultType: 'complete' };
        }
        await keepAlive();
        await sink.heartbeat({ cursor: encodeCursor(position) });
        lastBeat = now();
      }
      // Something committed since the head was read is read at once; else wait for the next event or heartbeat.
      if (log.lastSeen > head) continue;
      await log.waitFor(position, [trigger.id], Math.max(0, heartbeatMs - (now() - lastBeat)), signal);
    }
    if (options.stopping?.aborted && !options.signal.aborted) await sink.terminated({ error: SHUTDOWN }).catch(() => undefined);
    return { resultType: 'complete' };
  } finally {
    await store.subscriptions.remove(id).catch(() => undefined);
    // The request's signal is aborted by now when the client cancelled: the provider-side teardown must not be.
    await releaseTrigger({ ...call, signal: new AbortController().signal }, trigger.id).catch(() => undefined);
  }
}
