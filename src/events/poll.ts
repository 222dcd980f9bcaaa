import type { TriggerEvent } from '../store/types.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { EventsErrors } from './errors.js';
import { occurrenceBody } from './occurrence.js';
import { callbackFreeSubscriptionId, checkMaxAge } from './subscription-terms.js';
import { checkEventRequest, checkSubscriptionRoom, rideTrigger, type CheckedEventRequest, type EventsContext } from './subscriptions.js';

/** A poll keeps its trigger alive this long after it; when polls stop, the expiry sweep removes the row and releases the trigger. */
export const POLL_KEEPALIVE_MS = 60 * 60_000;
export const DEFAULT_MAX_EVENTS = 50;
export const MAX_EVENTS = 100;
/** The next poll's suggested delay for a type whose events come as they happen (webhooks, notifications). */
export const DEFAULT_NEXT_POLL_MS = 5_000;
/** The suggested delay of a polled type follows its source's poll interval, within these bounds. */
const MAX_NEXT_POLL_MS = 5 * 60_000;

/** events/poll's params as the client sent them. */
export interface PollRequest {
  name?: unknown;
  arguments?: unknown;
  cursor?: unknown;
  maxAgeMs?: unknown;
  maxEvents?: unknown;
  clientName?: string;
}

/** One occurrence as the extension lays it out (the same object a webhook delivery's body holds). */
export type EventOccurrence = Record<string, unknown> & { eventId: string; name: string; timestamp: string; data: unknown; cursor: string | null };

export interface PollResult {
  resultType: 'complete';
  events: EventOccurrence[];
  cursor: string;
  truncated: boolean;
  hasMore: boolean;
  nextPollMs: number;
}

/** The occurrence of a logged event for type `name`, its cursor the position after it; a large one cut as a delivery's would be. */
export function occurrenceOf(event: TriggerEvent, name: string): EventOccurrence {
  return JSON.parse(occurrenceBody(event, { name }, encodeCursor(event.id)).body) as EventOccurrence;
}

function checkMaxEvents(maxEvents: unknown, errors: EventsErrors): number {
  if (maxEvents === undefined || maxEvents === null) return DEFAULT_MAX_EVENTS;
  if (typeof maxEvents !== 'number' || !Number.isInteger(maxEvents) || maxEvents < 1 || maxEvents > MAX_EVENTS) {
    throw errors.invalidParams(`"maxEvents" must be a whole number from 1 to ${MAX_EVENTS}, not ${JSON.stringify(maxEvents)}; omit it for ${DEFAULT_MAX_EVENTS}.`, { field: 'maxEvents' });
  }
  return maxEvents;
}

/** When to poll next: at once while more is waiting; else as often as the type's source can have something new. */
function nextPollMs(checked: CheckedEventRequest, hasMore: boolean): number {
  if (hasMore) return 0;
  const { kind, parsed } = checked;
  if (!kind.poll || kind.push) return DEFAULT_NEXT_POLL_MS;
  return Math.min(Math.max(kind.poll.intervalMs(parsed.config), DEFAULT_NEXT_POLL_MS), MAX_NEXT_POLL_MS);
}

/**
 * Where a reader of a trigger's events starts: after the cursor, no earlier than `maxAgeMs` ago, and whether that
 * skipped anything (retention, the trigger's start, or the floor), from the same store calls a webhook replay uses.
 */
export async function readFrom(checked: CheckedEventRequest, subscriptionId: string, cursor: number, maxAgeMs: number | undefined, now: number): Promise<{ from: number; truncated: boolean }> {
  const store = checked.call.deps.store;
  const notBefore = maxAgeMs === undefined ? undefined : new Date(now - maxAgeMs).toISOString();
  const { truncated } = await store.subscriptions.replay(subscriptionId, { after: cursor, ...(notBefore ? { notBefore } : {}) });
  const floor = notBefore ? await store.events.lastId(notBefore) : 0;
  return { from: Math.max(cursor, floor), truncated };
}

/**
 * events/poll: the trigger's events after the cursor. Checks as events/subscribe does (principal, authorization,
 * arguments), then the person's poll rate. The poll rides on a trigger as a subscription of mode 'poll' (no callback,
 * no secret) whose refreshBefore each poll pushes POLL_KEEPALIVE_MS ahead. A null cursor starts from now.
 */
export async function poll(ctx: EventsContext, owner: string, request: PollRequest): Promise<PollResult> {
  const checked = await checkEventRequest(ctx, owner, request, 'events/poll');
  const { errors, call, name, args } = checked;
  const cursor = request.cursor === undefined || request.cursor === null ? undefined : decodeCursor(request.cursor, errors);
  const maxAgeMs = checkMaxAge(request.maxAgeMs, errors);
  const maxEvents = checkMaxEvents(request.maxEvents, errors);
  const rate = ctx.limits?.polls.take(owner);
  if (rate && !rate.ok) {
    const max = ctx.limits!.polls.max;
    throw errors.resourceExhausted(
      `This caller has polled ${max} times this minute, the most allowed: poll again in ${Math.ceil(rate.retryAfterMs / 1000)} s, following nextPollMs (or raise SWITCHBOARD_EVENTS_MAX_POLLS_PER_MINUTE).`,
      { limit: 'polls_per_minute', max },
    );
  }

  const store = call.deps.store;
  const id = callbackFreeSubscriptionId(owner, 'poll', name, args);
  const before = await store.subscriptions.get(id);
  if (!before) await checkSubscriptionRoom(ctx, owner, errors);
  const now = ctx.now?.() ?? Date.now();
  const { trigger } = await rideTrigger(checked, before);
  await store.subscriptions.upsert({ id, mode: 'poll', name, arguments: args, url: null, triggerId: trigger.id, clientName: request.clientName ?? null, refreshBefore: now + POLL_KEEPALIVE_MS });

  // The head is read before the events: an event committed in between is left for the next poll, never skipped.
  const head = await ctx.deps.store.events.lastId();
  if (cursor === undefined) return { resultType: 'complete', events: [], cursor: encodeCursor(head), truncated: false, hasMore: false, nextPollMs: nextPollMs(checked, false) };
  const { from, truncated } = await readFrom(checked, id, cursor, maxAgeMs, now);
  const batch = (await store.events.after(from, { triggerIds: [trigger.id], limit: maxEvents + 1 })).filter((e) => e.id <= head);
  const hasMore = batch.length > maxEvents;
  const events = batch.slice(0, maxEvents);
  const position = hasMore ? events[events.length - 1]!.id : Math.max(from, head);
  return {
    resultType: 'complete',
    events: events.map((e) => occurrenceOf(e, name)),
    cursor: encodeCursor(position),
    truncated,
    hasMore,
    nextPollMs: nextPollMs(checked, hasMore),
  };
}
