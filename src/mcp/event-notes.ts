import type { TriggerEvent } from '../store/types.js';
import { eventsUri } from '../contracts/triggers.js';
import { framedEvents, standaloneEvent, takeSeqs, type FramedEvents } from './event-store.js';

/* How clients are told of a new event, in both revisions: the notices, and the resource they name. */

/** 2025 clients get each event as this notification, whether or not they subscribed. */
export const EVENT_NOTIFICATION = 'notifications/switchboard/event';
/** The `_meta` key of `notifications/resources/updated` that carries the event, in both revisions. */
export const EVENT_META_KEY = 'switchboard/event';

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

/** A batch's notices, numbered and framed as SSE once: event i's notification is text 2i, its resource update 2i + 1. */
interface FramedNotices {
  first: number;
  texts: string[];
  /** Each event's resource. */
  uris: string[];
  /** The events' resources, each once. */
  distinct: string[];
  /** What sessions are sent, by which of `distinct` they subscribed to. */
  batches: Map<string, FramedEvents>;
}

// Every session of this process is told of the same batch of events in the same turn (the log hands each listener
// the same array): its notices are numbered and framed once, and each distinct selection of them once, for all
// sessions. Only the latest batch is held: kept longer, its texts would outlive young-generation collections.
let latest: { events: readonly TriggerEvent[]; notices: FramedNotices } | undefined;

/** What a 2025 session is sent of a batch of events: each event's notification, and its resource update when `subscribed` holds its URI. */
export function noticesFor(events: readonly TriggerEvent[], subscribed: ReadonlySet<string>): FramedEvents {
  if (latest?.events !== events) latest = { events, notices: frameNotices(events) };
  const { notices } = latest;
  const key = notices.distinct.map((uri) => (subscribed.has(uri) ? '1' : '0')).join('');
  let batch = notices.batches.get(key);
  if (!batch) notices.batches.set(key, (batch = select(notices, subscribed)));
  return batch;
}

// Written out rather than built as objects and stringified: the same JSON (a test holds them equal), at a fraction of
// the allocations, for what every event costs every subscribed session's process.
function frameNotices(events: readonly TriggerEvent[]): FramedNotices {
  const first = takeSeqs(2 * events.length);
  const texts: string[] = [];
  const uris = events.map((e, i) => {
    const uri = eventsUri(e.triggerId);
    const note = `{"eventId":"${e.id}","triggerId":${JSON.stringify(e.triggerId)},"kind":${JSON.stringify(e.kind)},"occurredAt":${JSON.stringify(e.occurredAt)},"summary":${JSON.stringify(e.summary)}}`;
    texts.push(
      standaloneEvent(first + 2 * i, `{"jsonrpc":"2.0","method":"${EVENT_NOTIFICATION}","params":${note}}`),
      standaloneEvent(first + 2 * i + 1, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":${JSON.stringify(uri)},"_meta":{"${EVENT_META_KEY}":${note}}}}`),
    );
    return uri;
  });
  return { first, texts, uris, distinct: [...new Set(uris)], batches: new Map() };
}

function select({ first, texts, uris }: FramedNotices, subscribed: ReadonlySet<string>): FramedEvents {
  let sse = '';
  let count = 0;
  let last = 0;
  uris.forEach((uri, i) => {
    sse += texts[2 * i];
    count++;
    last = first + 2 * i;
    if (!subscribed.has(uri)) return;
    sse += texts[2 * i + 1];
    count++;
    last++;
  });
  return framedEvents(sse, count, last);
}
