import type { CommitInput, CommitItem, TriggerEvent, TriggerStore } from '../store/types.js';

/** Most items one transaction takes; the rest go into the next. */
const MAX_BATCH = 500;

interface Waiting extends CommitItem {
  resolve(events: TriggerEvent[]): void;
  reject(reason: unknown): void;
}

/**
 * Group commit: the commits asked for in one turn of the event loop, and those asked for while a batch is being
 * written, share one transaction (TriggerStore.commitMany). Each caller hears once the transaction holding its item
 * has committed: its own events, or its own item's error; when the transaction fails, every caller in it gets that error.
 */
export class GroupCommit {
  private queue: Waiting[] = [];
  /** A batch is due (this turn's commits are still coming in) or being written. */
  private busy = false;

  constructor(
    private readonly store: Pick<TriggerStore, 'commitMany'>,
    private readonly maxBatch = MAX_BATCH,
  ) {}

  commit(triggerId: string, input: CommitInput): Promise<TriggerEvent[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ triggerId, input, resolve, reject });
      if (this.busy) return;
      this.busy = true;
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const outcomes = await this.store.commitMany(batch.map(({ triggerId, input }) => ({ triggerId, input })));
        batch.forEach((waiting, i) => {
          const outcome = outcomes[i]!;
          if (outcome.status === 'fulfilled') waiting.resolve(outcome.value);
          else waiting.reject(outcome.reason);
        });
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
    }
    this.busy = false;
  }
}
