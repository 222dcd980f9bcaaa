import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';

export interface EventStoreLimits {
  /** Events kept per session; the oldest go first. */
  maxEvents: number;
  /** Bytes of message JSON kept per session. */
  maxBytes: number;
  /** How long an event can be replayed. */
  maxAgeMs: number;
}

export const EVENT_STORE_LIMITS: EventStoreLimits = { maxEvents: 1_000, maxBytes: 1024 * 1024, maxAgeMs: 10 * 60_000 };

/** The stream id the SDK gives the standalone GET stream (its `_standaloneSseStreamId`). */
export const STANDALONE_STREAM = '_GET_stream';

/** What a session keeps of what it sent, and when. */
interface Kept {
  streamId: StreamId;
  at: number;
  /** What it takes to keep, counted against maxBytes. */
  bytes: number;
  /** Sequence numbers it holds. */
  count: number;
}

/**
 * Events of the standalone stream framed as SSE, as they were written. Every session sent them keeps this same
 * object: its last minutes of events are then a few shared buffers, not thousands of small objects (its own entries
 * included) that live long enough for the garbage collector to copy and promote.
 */
export interface FramedEvents extends Kept {
  sse: Buffer;
  /** Its last event's sequence number. */
  last: number;
}

/** A message the SDK stored, with its number; none for a priming event, which only hands out its id. */
interface StoredMessage extends Kept {
  seq: number;
  message?: JSONRPCMessage;
}

type StoredEvent = FramedEvents | StoredMessage;

/** One event of the standalone stream, framed as the SDK frames it. */
export const standaloneEvent = (seq: number, json: string) => `event: message\nid: ${seq}_${STANDALONE_STREAM}\ndata: ${json}\n\n`;

/** Events framed (standaloneEvent) for the standalone stream, the last of them numbered `last`, as one entry to keep. */
export const framedEvents = (sse: string, count: number, last: number): FramedEvents => {
  const bytes = Buffer.from(sse);
  return { streamId: STANDALONE_STREAM, at: Date.now(), bytes: bytes.length, count, sse: bytes, last };
};

// One sequence for every session of the process: notices framed once for a batch of events carry the same ids to
// every session that is sent them. A session's ids still rise in the order its events are kept.
let nextSeq = 1;

/** Reserves `count` consecutive sequence numbers; the first is returned. */
export function takeSeqs(count: number): number {
  const first = nextSeq;
  nextSeq += count;
  return first;
}

const EVENT_ID = /^(\d+)_(.+)$/;

/**
 * One session's recent SSE events, so a dropped stream resumes with Last-Event-ID and misses nothing.
 * Event ids carry their stream (`<seq>_<streamId>`), so even an id whose event has aged out names its stream.
 */
export class SessionEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  private bytes = 0;
  /** Sequence numbers in `events`. */
  private count = 0;
  /** Streams closed for good (their request was cancelled), newest last; as bounded as the events. */
  private readonly finished = new Set<StreamId>();

  constructor(
    private readonly limits: EventStoreLimits = EVENT_STORE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    return this.store(streamId, message);
  }

  /** As storeEvent, at once: the listener primes a GET stream with it (an empty message). */
  store(streamId: StreamId, message: JSONRPCMessage | Record<string, never>): EventId {
    const seq = takeSeqs(1);
    const kept = Object.keys(message).length ? (message as JSONRPCMessage) : undefined;
    this.push({ streamId, at: this.now(), bytes: JSON.stringify(message).length, count: 1, seq, message: kept });
    return `${seq}_${streamId}`;
  }

  /** Keeps events of the standalone stream framed already, as they are: one entry, shared with the other sessions sent them. */
  keepFramed(framed: FramedEvents): void {
    this.push(framed);
  }

  private push(event: StoredEvent): void {
    this.events.push(event);
    this.count += event.count;
    this.bytes += event.bytes;
    this.prune();
  }

  async getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return streamOf(eventId);
  }

  async replayEventsAfter(lastEventId: EventId, { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> }): Promise<StreamId> {
    const match = EVENT_ID.exec(lastEventId);
    if (!match) throw new Error(`Unknown event id ${JSON.stringify(lastEventId)}.`);
    const after = Number(match[1]);
    const streamId = match[2]!;
    this.prune();
    for (const e of [...this.events]) {
      if (e.streamId !== streamId) continue;
      for (const [seq, message] of messagesOf(e)) if (seq > after) await send(`${seq}_${streamId}`, message);
    }
    return streamId;
  }

  /** Marks a stream as over: resuming it gets nothing more. */
  finish(streamId: StreamId): void {
    this.finished.add(streamId);
    if (this.finished.size > this.limits.maxEvents) this.finished.delete(this.finished.values().next().value!);
  }

  isFinished(streamId: StreamId): boolean {
    return this.finished.has(streamId);
  }

  /** Messages kept, priming events included. */
  get size(): number {
    return this.count;
  }

  private prune(): void {
    const oldest = this.now() - this.limits.maxAgeMs;
    while (this.events.length > 0 && (this.count > this.limits.maxEvents || this.bytes > this.limits.maxBytes || this.events[0]!.at < oldest)) {
      const gone = this.events.shift()!;
      this.bytes -= gone.bytes;
      this.count -= gone.count;
    }
  }
}

/** The stream an event id belongs to, or undefined when it is not one of ours. */
export function streamOf(eventId: string): StreamId | undefined {
  return EVENT_ID.exec(eventId)?.[2];
}

function messagesOf(e: StoredEvent): Array<[number, JSONRPCMessage]> {
  if ('sse' in e) return framedMessages(e.sse);
  return e.message ? [[e.seq, e.message]] : [];
}

/** The messages of framed events, with their sequence numbers. */
export function framedMessages(sse: Buffer): Array<[number, JSONRPCMessage]> {
  // Line by line: JSON escapes CR and LF, but not U+2028 and U+2029, which a regular expression's `.` stops at.
  return sse
    .toString()
    .split('\n\n')
    .flatMap((event) => {
      const lines = event.split('\n');
      const id = EVENT_ID.exec(lines.find((line) => line.startsWith('id: '))?.slice(4) ?? '');
      const data = lines.find((line) => line.startsWith('data: '))?.slice(6);
      return id && data ? [[Number(id[1]), JSON.parse(data) as JSONRPCMessage] as [number, JSONRPCMessage]] : [];
    });
}
