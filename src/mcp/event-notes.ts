import type { JSONRPCNotification } from '@modelcontextprotocol/server';
import type { TriggerEvent } from '../store/types.js';
import { frameOf, type SseFrame } from './streams.js';

/* How clients are told of a new event, in both revisions: the notices, and the resource they name. */

/** 2025 clients get each event as this notification, whether or not they subscribed. */
export const EVENT_NOTIFICATION = 'notifications/switchboard/event';
/** The `_meta` key of `notifications/resources/updated` that carries the event, in both revisions. */
export const EVENT_META_KEY = 'switchboard/event';
export const eventsUri = (triggerId: string) => `switchboard://triggers/${triggerId}/events`;

/** What a client learns of a new event: enough to decide whether to read it (by resource, events_next or the CLI). */
export interface EventNote {
  eventId: string;
  triggerId: string;
  kind: string;
  occurredAt: string;
  summary: string;
}

export const eventNote = (e: TriggerEvent): EventNote => ({ eventId: String(e.id), triggerId: e.triggerId, kind: e.kind, occurredAt: e.occurredAt, summary: e.summary });

/** The resource update that tells of an event, the event riding in its `_meta`. */
export const eventUpdate = (note: EventNote) => ({ uri: eventsUri(note.triggerId), _meta: { [EVENT_META_KEY]: note } });

/** What a 2025 session is sent of an event, framed for SSE: the vendor notification, and the resource update when it subscribed to `uri`. */
export interface LegacyNotices {
  uri: string;
  vendor: SseFrame;
  update: SseFrame;
}

// Every session of this process is told of the same batches of events (the log hands each listener the same array):
// the notices are built, frozen and framed once per batch, for all sessions.
const framed = new WeakMap<readonly TriggerEvent[], LegacyNotices[]>();
export function noticesOf(events: readonly TriggerEvent[]): LegacyNotices[] {
  let notices = framed.get(events);
  if (!notices) framed.set(events, (notices = events.map(noticesOfEvent)));
  return notices;
}

function noticesOfEvent(e: TriggerEvent): LegacyNotices {
  const note = Object.freeze(eventNote(e));
  const update = eventUpdate(note);
  Object.freeze(update._meta);
  const message = (method: string, params: Record<string, unknown>): JSONRPCNotification => Object.freeze({ jsonrpc: '2.0', method, params: Object.freeze(params) });
  return { uri: update.uri, vendor: frameOf(message(EVENT_NOTIFICATION, { ...note })), update: frameOf(message('notifications/resources/updated', update)) };
}
