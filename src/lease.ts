import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { StoreUnavailableError } from './errors.js';
import type { Logger } from './log.js';
import type { Store } from './store/types.js';

/** Over stdio, the process holding this serves HTTP for every process on its data dir. */
export const LISTENER_LEASE = 'listener';

export interface KeptLease {
  readonly holder: string;
  readonly held: boolean;
  /** Held and renewed within its lifetime: past that, another process may have taken it while renewals failed. */
  readonly current: boolean;
  /** When it was last renewed (epoch ms; 0 before the first time). */
  readonly renewedAt: number;
  stop(): Promise<void>;
}

/**
 * Holds the named lease whenever no other process does, renewing it every third of its lifetime; `onChange` hears
 * when it is taken or lost. A holder that dies without releasing it frees it after `ttlMs`.
 */
export async function keepLease(
  store: Store,
  name: string,
  o: { logger: Logger; onChange: (held: boolean) => Promise<void>; ttlMs?: number; tickMs?: number },
): Promise<KeptLease> {
  const holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const ttl = o.ttlMs ?? 15_000;
  let held = false;
  let lastRenew = 0;
  let checking: Promise<void> | undefined;
  const check = () =>
    (checking ??= (async () => {
      try {
        const now = Date.now();
        if (held && now - lastRenew < ttl / 3) return;
        const holds = await store.leases.acquire(name, holder, ttl);
        lastRenew = now;
        if (holds === held) return;
        held = holds;
        o.logger.info(holds ? 'lease taken' : 'lease lost', { lease: name, holder });
        await o.onChange(holds);
      } catch (error) {
        // The store reports its own failures once (serve logs them); a lease check failing with it every second would repeat that.
        if (!(error instanceof StoreUnavailableError)) o.logger.error('lease check failed', { lease: name, message: (error as Error).message });
      }
    })().finally(() => (checking = undefined)));
  await check();
  const timer = setInterval(() => void check(), o.tickMs ?? 1_000);
  return {
    holder,
    get held() {
      return held;
    },
    get current() {
      return held && Date.now() - lastRenew < ttl;
    },
    get renewedAt() {
      return lastRenew;
    },
    async stop() {
      clearInterval(timer);
      await checking;
      if (!held) return;
      held = false;
      await o.onChange(false).catch(() => undefined);
      await store.leases.release(name, holder).catch(() => undefined);
    },
  };
}
