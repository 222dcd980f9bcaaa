import type { JSONRPCNotification } from '@modelcontextprotocol/server';
import type { TriggerEvent } from '../store/types.js';

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

/** What a 2025 session is sent of an event: the vendor notification, and the resource update when it subscribed to `uri`. */
export interface LegacyNotices {
  uri: string;
  vendor: JSONRPCNotification;
  update: JSONRPCNotification;
}

// Every session of this process is told of the same events (the log hands each listener the same objects): the
// notices are built once per event, frozen, so the HTTP streams can write each one's JSON once for all sessions.
const legacyNotices = new WeakMap<TriggerEvent, LegacyNotices>();
export function noticesOf(e: TriggerEvent): LegacyNotices {
  const known = legacyNotices.get(e);
  if (known) return known;
  const note = Object.freeze(eventNote(e));
  const update = eventUpdate(note);
  Object.freeze(update._meta);
  const message = (method: string, params: Record<string, unknown>): JSONRPCNotification => Object.freeze({ jsonrpc: '2.0', method, params: Object.freeze(params) });
  const notices = { uri: update.uri, vendor: message(EVENT_NOTIFICATION, { ...note }), update: message('notifications/resources/updated', update) };
  legacyNotices.set(e, notices);
  return notices;
}
