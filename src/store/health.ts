import { StoreUnavailableError } from '../errors.js';
import { errorType, recordSlow, tracingOn } from '../telemetry/trace.js';

/** Store calls that take this long or more get a span of their own (shorter ones would drown the trace). */
const SLOW_STORE_MS = 20;

/** What an adapter knows of checking its own store; each check throws a StoreUnavailableError saying what failed. */
export interface StoreProbe {
  /** Every page and the schema version (SQLite quick_check): at start only, as it reads the whole store. */
  thorough(): Promise<void>;
  /** Reachable and of this version's schema, reading a few pages: cheap enough for a load balancer's probe. */
  cheap(): Promise<void>;
  /** The store's own error as what it says of the store; undefined when it is about something else. */
  classify(error: unknown): StoreUnavailableError | undefined;
  /** A check that failed otherwise (it did not answer in time, or failed in a way `classify` does not know), as unreachable. */
  unanswered(detail: string): StoreUnavailableError;
  /** How many connections the store holds at most: PostgreSQL's pool, SQLite's one connection. */
  poolSize: number;
}

/** The health of one open store, as the server reports it (readiness) and acts on it (refusing requests). */
export interface StoreHealth {
  /** The problem known now, from the store's own errors and the last check; reads nothing. */
  problem(): StoreUnavailableError | undefined;
  /** Damage refuses every later store call: a damaged page stays damaged until the file is replaced and the server restarted. */
  refusal(): StoreUnavailableError | undefined;
  /** The cheap check, run at most once per interval however often it is asked for. */
  check(): Promise<StoreUnavailableError | undefined>;
  /** The thorough check, for start-up. */
  checkThoroughly(): Promise<StoreUnavailableError | undefined>;
  /** Calls `listener` whenever the known problem changes (undefined: the store serves again); returns what stops that. */
  onChange(listener: (problem: StoreUnavailableError | undefined) => void): () => void;
  /** Store calls in flight now, and the connections they share: beyond the pool's size, calls wait for a connection. */
  pool(): { inFlight: number; size: number };
}

/** Readiness probes every few seconds share one cheap check per this interval. */
const CHECK_INTERVAL_MS = 2_000;
/** A check that hangs (a network partition) counts as unreachable after this long. */
const CHECK_TIMEOUT_MS = 5_000;

export class TrackedHealth implements StoreHealth {
  private current: StoreUnavailableError | undefined;
  private checkedAt = -Infinity;
  private inFlight = 0;
  private checking: Promise<StoreUnavailableError | undefined> | undefined;
  private readonly listeners = new Set<(problem: StoreUnavailableError | undefined) => void>();

  constructor(
    private readonly probe: StoreProbe,
    private readonly clock: () => number = Date.now,
  ) {}

  problem(): StoreUnavailableError | undefined {
    return this.current;
  }

  refusal(): StoreUnavailableError | undefined {
    return this.current?.part === 'intact' ? this.current : undefined;
  }

  check(): Promise<StoreUnavailableError | undefined> {
    if (this.refusal()) return Promise.resolve(this.current);
    if (this.clock() - this.checkedAt < CHECK_INTERVAL_MS) return Promise.resolve(this.current);
    return (this.checking ??= this.run(() => withTimeout(this.probe.cheap(), () => this.probe.unanswered(`no answer to a health check within ${CHECK_TIMEOUT_MS / 1000} s`))).finally(() => (this.checking = undefined)));
  }

  checkThoroughly(): Promise<StoreUnavailableError | undefined> {
    return this.run(() => this.probe.thorough());
  }

  onChange(listener: (problem: StoreUnavailableError | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  pool(): { inFlight: number; size: number } {
    return { inFlight: this.inFlight, size: this.probe.poolSize };
  }

  /** The error a store call failed with: as the store's problem when it is one (and then remembered), else as it was. */
  observe(error: unknown): unknown {
    const problem = error instanceof StoreUnavailableError ? error : this.probe.classify(error);
    if (!problem) return error;
    this.record(problem);
    return problem;
  }

  /**
   * The same store object, each method first refused while the store is known damaged, and each failure observed.
   * Plain objects holding stores (the team's) are guarded member by member.
   */
  guard<T extends object>(target: T, part = 'store'): T {
    const guarded = Object.create(target) as Record<string, unknown>;
    for (const name of functionNames(target)) {
      const method = (target as Record<string, (...args: unknown[]) => Promise<unknown>>)[name]!;
      guarded[name] = async (...args: unknown[]) => {
        const refused = this.refusal();
        if (refused) throw refused;
        const started = tracingOn() ? performance.now() : undefined;
        let failed: string | undefined;
        this.inFlight++;
        try {
          return await method.apply(target, args);
        } catch (error) {
          failed = errorType(error);
          throw this.observe(error);
        } finally {
          this.inFlight--;
          if (started !== undefined && performance.now() - started >= SLOW_STORE_MS) recordSlow(`store ${part}.${name}`, started, { 'db.operation.name': `${part}.${name}` }, failed);
        }
      };
    }
    if (Object.getPrototypeOf(target) === Object.prototype) {
      for (const [name, value] of Object.entries(target)) if (value && typeof value === 'object') guarded[name] = this.guard(value, `${part}.${name}`);
    }
    return guarded as T;
  }

  private async run(check: () => Promise<void>): Promise<StoreUnavailableError | undefined> {
    try {
      await check();
      if (!this.refusal()) this.record(undefined);
    } catch (error) {
      this.record(error instanceof StoreUnavailableError ? error : (this.probe.classify(error) ?? this.probe.unanswered(String((error as Error)?.message ?? error))));
    }
    return this.current;
  }

  private record(problem: StoreUnavailableError | undefined): void {
    this.checkedAt = this.clock();
    // Damage is not undone by a later success: the damaged pages are still there, only not read again.
    if (this.refusal()) return;
    const changed = problem?.message !== this.current?.message;
    this.current = problem;
    if (changed) for (const listener of this.listeners) listener(problem);
  }
}

function withTimeout(work: Promise<void>, late: () => Error): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, timedOut]).finally(() => clearTimeout(timer));
}

/** Every method an object has, its own (arrow functions) and its class's, up to Object's. */
function functionNames(target: object): Set<string> {
  const names = new Set<string>();
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (name === 'constructor') continue;
      const descriptor = Object.getOwnPropertyDescriptor(o, name);
      if (typeof descriptor?.value === 'function') names.add(name);
    }
  }
  return names;
}
