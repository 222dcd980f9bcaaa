/**
 * Shutting down without losing a call: stop taking new tool calls and wake long polls, then wait for the calls in
 * flight to finish, for at most a grace period.
 */
export class Drain {
  private readonly stop = new AbortController();
  private inflight = 0;
  private idle: Array<() => void> = [];

  /** Aborted once shutdown starts: long polls answer with what they have. */
  get stopping(): AbortSignal {
    return this.stop.signal;
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    this.inflight++;
    try {
      return await call();
    } finally {
      if (--this.inflight === 0) for (const resolve of this.idle.splice(0)) resolve();
    }
  }

  /** Resolves true once every call in flight has finished, or false when the grace period ran out first. */
  drain(graceMs: number): Promise<boolean> {
    this.stop.abort();
    if (this.inflight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), graceMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
