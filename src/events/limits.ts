import { DEFAULT_EVENTS_PER_MINUTE, DEFAULT_POLLS_PER_MINUTE } from '../config.js';

const MINUTE_MS = 60_000;

/** What a rate limit answered: taken, or not before `retryAfterMs` from now. */
export type RateAnswer = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * A per-person count in fixed calendar minutes, kept by this process: each instance counts what it serves itself, so
 * on N instances a person may reach up to N times the limit.
 */
export class PerMinuteLimit {
  private minute = -1;
  private readonly counts = new Map<string, number>();

  constructor(
    readonly max: number,
    private readonly now: () => number = Date.now,
  ) {}

  private roll(): number {
    const at = this.now();
    const minute = Math.floor(at / MINUTE_MS);
    if (minute !== this.minute) {
      this.minute = minute;
      this.counts.clear();
    }
    return at;
  }

  /** Counts one for `owner` when the limit allows it. */
  take(owner: string): RateAnswer {
    const at = this.roll();
    const used = this.counts.get(owner) ?? 0;
    if (used >= this.max) return { ok: false, retryAfterMs: (this.minute + 1) * MINUTE_MS - at };
    this.counts.set(owner, used + 1);
    return { ok: true };
  }

  /** Whether `owner` has reached the limit in this minute, and until when: without counting anything. */
  state(owner: string): RateAnswer {
    const at = this.roll();
    return (this.counts.get(owner) ?? 0) >= this.max ? { ok: false, retryAfterMs: (this.minute + 1) * MINUTE_MS - at } : { ok: true };
  }
}

/** The per-person rate limits of MCP Events, shared by the requests and the runner's deliveries of one process. */
export interface EventsLimits {
  polls: PerMinuteLimit;
  deliveries: PerMinuteLimit;
}

export function eventsLimits(o: { pollsPerMinute?: number; eventsPerMinute?: number } = {}, now: () => number = Date.now): EventsLimits {
  return {
    polls: new PerMinuteLimit(o.pollsPerMinute ?? DEFAULT_POLLS_PER_MINUTE, now),
    deliveries: new PerMinuteLimit(o.eventsPerMinute ?? DEFAULT_EVENTS_PER_MINUTE, now),
  };
}
