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

interface StoredEvent {
  /** The first message's sequence number; the others follow it. */
  seq: number;
  streamId: StreamId;
  /** One message, or notifications sent together (storeMany); none for a priming event, which only hands out its id. */
  messages: readonly JSONRPCMessage[];
  at: number;
  bytes: number;
}

const EVENT_ID = /^(\d+)_(.+)$/;

/**
 * One session's recent SSE events, so a dropped stream resumes with Last-Event-ID and misses nothing.
 * Event ids carry their stream (`<seq>_<streamId>`), so even an id whose event has aged out names its stream.
 */
export class SessionEventStore implements EventStore {
  private readonly events: StoredEvent[] = [];
  private next = 1;
  private bytes = 0;
  /** Messages in `events`. */
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

  /** As storeEvent, at once: the listener primes a GET stream with it, and sends notifications itself (`bytes`: its JSON's length, when known). */
  store(streamId: StreamId, message: JSONRPCMessage | Record<string, never>, bytes = JSON.stringify(message).length): EventId {
    const messages = Object.keys(message).length ? [message as JSONRPCMessage] : [];
    return `${this.storeMany(streamId, messages, bytes)}_${streamId}`;
  }

  /** Notifications sent together, kept as one entry; the first one's sequence number (event id `<seq + i>_<streamId>`). */
  storeMany(streamId: StreamId, messages: readonly JSONRPCMessage[], bytes: number): number {
    const seq = this.next;
    const counted = Math.max(1, messages.length);
    this.next += counted;
    this.events.push({ seq, streamId, messages, at: this.now(), bytes });
    this.count += counted;
    this.bytes += bytes;
    this.prune();
    return seq;
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
      for (const [i, message] of e.messages.entries()) if (e.seq + i > after) await send(`${e.seq + i}_${streamId}`, message);
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
      this.count -= Math.max(1, gone.messages.length);
    }
  }
}

/** The stream an event id belongs to, or undefined when it is not one of ours. */
export function streamOf(eventId: string): StreamId | undefined {
  return EVENT_ID.exec(eventId)?.[2];
}
