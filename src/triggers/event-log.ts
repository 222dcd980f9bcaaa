import type { EventFeed } from '../contracts/triggers.js';
import type { EventStore, TriggerEvent } from '../store/types.js';

const BATCH = 500;

export type EventListener = (events: TriggerEvent[]) => void;

/**
 * Every process tails the durable log, so events committed by any process on the same store reach this process's
 * clients: a commit in this process is seen at once (poke), one elsewhere when the store pushes it (PostgreSQL's
 * LISTEN/NOTIFY), else at the next poll.
 */
export class EventLog implements EventFeed {
  private readonly listeners = new Set<EventListener>();
  private position = 0;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private unwatch: (() => Promise<void>) | undefined;

  constructor(
    readonly store: EventStore,
    private readonly pollMs = 250,
    /** The poll's period when the store pushes commits: only a safety net then. */
    private readonly pushedPollMs = 5_000,
  ) {}

  /** Listeners get the events received from `since` on (from now on without it). */
  async start(since?: Date): Promise<void> {
    this.position = await this.store.lastId(since?.toISOString());
    this.unwatch = await this.store.watchCommits(() => void this.poke().catch(() => undefined));
    this.timer = setInterval(() => void this.poke().catch(() => undefined), this.unwatch ? this.pushedPollMs : this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    void this.unwatch?.().catch(() => undefined);
    this.unwatch = undefined;
  }

  /** The newest event id this process has delivered to its listeners. */
  get lastSeen(): number {
    return this.position;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads anything new now; concurrent pokes fold into one more read. */
  poke(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      // Commits made in the same turn of the event loop are read together.
      await new Promise((resolve) => setImmediate(resolve));
      // The store may close right after stop(): a read that was about to start has nothing left to tell.
      do {
        if (this.stopped) return;
        this.again = false;
        for (;;) {
          const batch = await this.store.after(this.position, { limit: BATCH, payloads: false });
          if (batch.length === 0) break;
          this.position = batch[batch.length - 1]!.id;
          for (const listener of this.listeners) {
            try {
              listener(batch);
            } catch {
              // One failing listener must not starve the others.
            }
          }
          if (batch.length < BATCH) break;
        }
      } while (this.again);
    })().finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** Resolves when an event after `cursor` (of one of `triggerIds`, if given) is seen, or after `timeoutMs`. */
  waitFor(cursor: number, triggerIds: string[] | undefined, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const unsubscribe = this.subscribe((events) => {
        if (events.some((e) => e.id > cursor && (!triggerIds?.length || triggerIds.includes(e.triggerId)))) done();
      });
      const timer = setTimeout(done, timeoutMs);
      signal?.addEventListener('abort', done);
      if (signal?.aborted) done();
    });
  }
}
