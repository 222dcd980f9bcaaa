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

/** Events of the standalone stream framed as SSE, the last of them numbered `last`: what a batch sends a session, and what it keeps. */
export interface FramedEvents {
  sse: Buffer;
  /** Events in it. */
  count: number;
  last: number;
}

/** One event of the standalone stream, framed as the SDK frames it. */
export const standaloneEvent = (seq: number, json: string) => `event: message\nid: ${seq}_${STANDALONE_STREAM}\ndata: ${json}\n\n`;

/** Events framed (standaloneEvent) for the standalone stream, the last of them numbered `last`. */
export const framedEvents = (sse: string, count: number, last: number): FramedEvents => ({ sse: Buffer.from(sse), count, last });

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

/** Kept bytes go into pages of this size, each used again once the events in it are gone. */
const PAGE_BYTES = 64 * 1024;
/** A kept entry is a row of WIDTH numbers: when, its (last) sequence number, how many events, where its bytes are, whether they are framed SSE. */
const AT = 0;
const SEQ = 1;
const COUNT = 2;
const PAGE = 3;
const OFFSET = 4;
const LENGTH = 5;
const FRAMED = 6;
const WIDTH = 7;

/**
 * One session's recent SSE events, so a dropped stream resumes with Last-Event-ID and misses nothing.
 * Event ids carry their stream (`<seq>_<streamId>`), so even an id whose event has aged out names its stream.
 *
 * What is kept is rows of numbers and pages of bytes, both used again: keeping an event allocates nothing. An object
 * kept per event lives past a young-generation collection or two, is promoted, and dies in the old generation; at a
 * few thousand events a second that had the process mark its whole heap three times as often.
 */
export class SessionEventStore implements EventStore {
  /** Entry i (0 the oldest) is row (head + i) % streams.length: its numbers in `rows`, its stream in `streams`. */
  private rows = new Float64Array(0);
  private streams: StreamId[] = [];
  private head = 0;
  private entries = 0;
  /** Kept bytes; pages[0] is page number firstPage, and the last page is written up to `used`. */
  private pages: Buffer[] = [];
  private firstPage = 0;
  private used = 0;
  private spare: Buffer | undefined;
  private bytes = 0;
  /** Sequence numbers kept. */
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

  /** As storeEvent, at once: the listener primes a GET stream with it (an empty message, kept as no bytes). */
  store(streamId: StreamId, message: JSONRPCMessage | Record<string, never>): EventId {
    const seq = takeSeqs(1);
    this.keep(streamId, seq, 1, Object.keys(message).length ? JSON.stringify(message) : '', false);
    return `${seq}_${streamId}`;
  }

  /** Keeps events of the standalone stream framed already, as one entry: a copy of their bytes. */
  keepFramed(framed: FramedEvents): void {
    this.keep(STANDALONE_STREAM, framed.last, framed.count, framed.sse, true);
  }

  private keep(streamId: StreamId, seq: number, count: number, content: string | Buffer, framed: boolean): void {
    const row = this.addRow();
    const at = row * WIDTH;
    const length = typeof content === 'string' ? Buffer.byteLength(content) : content.length;
    if (length) {
      const page = this.pageFor(length);
      if (typeof content === 'string') page.write(content, this.used);
      else content.copy(page, this.used);
    }
    this.streams[row] = streamId;
    this.rows[at + AT] = this.now();
    this.rows[at + SEQ] = seq;
    this.rows[at + COUNT] = count;
    this.rows[at + PAGE] = this.firstPage + this.pages.length - 1;
    this.rows[at + OFFSET] = this.used;
    this.rows[at + LENGTH] = length;
    this.rows[at + FRAMED] = framed ? 1 : 0;
    this.used += length;
    this.count += count;
    this.bytes += length;
    this.prune();
  }

  private addRow(): number {
    if (this.entries === this.streams.length) this.grow();
    const row = (this.head + this.entries) % this.streams.length;
    this.entries++;
    return row;
  }

  private grow(): void {
    const size = Math.max(16, 2 * this.streams.length);
    const rows = new Float64Array(size * WIDTH);
    const streams = new Array<StreamId>(size).fill('');
    for (let i = 0; i < this.entries; i++) {
      const from = (this.head + i) % this.streams.length;
      rows.set(this.rows.subarray(from * WIDTH, (from + 1) * WIDTH), i * WIDTH);
      streams[i] = this.streams[from]!;
    }
    this.rows = rows;
    this.streams = streams;
    this.head = 0;
  }

  /** The page `length` more bytes go into, at `used`. */
  private pageFor(length: number): Buffer {
    const last = this.pages.at(-1);
    if (last && this.used + length <= last.length) return last;
    const spare = length <= PAGE_BYTES ? this.spare : undefined;
    if (spare) this.spare = undefined;
    const page = spare ?? Buffer.allocUnsafeSlow(Math.max(length, PAGE_BYTES));
    this.pages.push(page);
    this.used = 0;
    return page;
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
    // Read out before the first send: while it waits, more events may be kept in the same pages.
    const replayed: Array<[number, JSONRPCMessage]> = [];
    for (let i = 0; i < this.entries; i++) {
      const row = (this.head + i) % this.streams.length;
      const at = row * WIDTH;
      if (this.streams[row] !== streamId || this.rows[at + SEQ]! <= after || !this.rows[at + LENGTH]) continue;
      const offset = this.rows[at + OFFSET]!;
      const bytes = this.pages[this.rows[at + PAGE]! - this.firstPage]!.subarray(offset, offset + this.rows[at + LENGTH]!);
      if (this.rows[at + FRAMED]) replayed.push(...framedMessages(bytes));
      else replayed.push([this.rows[at + SEQ]!, JSON.parse(bytes.toString()) as JSONRPCMessage]);
    }
    for (const [seq, message] of replayed) if (seq > after) await send(`${seq}_${streamId}`, message);
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
    while (this.entries > 0) {
      const at = this.head * WIDTH;
      if (this.count <= this.limits.maxEvents && this.bytes <= this.limits.maxBytes && this.rows[at + AT]! >= oldest) break;
      this.count -= this.rows[at + COUNT]!;
      this.bytes -= this.rows[at + LENGTH]!;
      this.streams[this.head] = '';
      this.head = (this.head + 1) % this.streams.length;
      this.entries--;
    }
    // Pages before the oldest entry's hold nothing kept any more; the last one is kept for what comes next.
    const from = this.entries ? this.rows[this.head * WIDTH + PAGE]! : this.firstPage + this.pages.length - 1;
    while (this.firstPage < from) {
      const page = this.pages.shift()!;
      this.firstPage++;
      if (page.length === PAGE_BYTES) this.spare = page;
    }
  }
}

/** The stream an event id belongs to, or undefined when it is not one of ours. */
export function streamOf(eventId: string): StreamId | undefined {
  return EVENT_ID.exec(eventId)?.[2];
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
