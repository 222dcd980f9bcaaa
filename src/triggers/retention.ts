import { DEFAULT_EVENT_RETENTION_DAYS } from '../config.js';
import { StoreUnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';

/** The event log's retention runs this often, on one instance of those sharing a store. */
export const RETENTION_EVERY_MS = 60 * 60 * 1000;
export const RETENTION_LEASE = 'event-retention';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Removes the events received more than `days` ago (store.events.prune keeps those still owed a delivery or a retry).
 * The lease is held until the next sweep is due, so of the instances on one store only its holder sweeps; another
 * takes over once a holder stops renewing it. Returns how many events went (0 when another instance holds the lease).
 */
export async function sweepEventLog(o: {
  store: Store;
  holder: string;
  logger: Logger;
  days?: number;
  everyMs?: number;
  now?: number;
  /** Other periodic upkeep done by the lease's holder only (expired MCP Events subscriptions), after the log's. */
  underLease?: () => Promise<unknown>;
}): Promise<number> {
  const days = o.days ?? DEFAULT_EVENT_RETENTION_DAYS;
  try {
    if (!(await o.store.leases.acquire(RETENTION_LEASE, o.holder, o.everyMs ?? RETENTION_EVERY_MS))) return 0;
    const removed = await o.store.events.prune(new Date((o.now ?? Date.now()) - days * DAY_MS).toISOString());
    if (removed) o.logger.info('event log pruned', { removed, retentionDays: days });
    // Budget counters matter only in their window (an hour, a day): those of windows two days gone are removed.
    await o.store.budgets.prune(new Date((o.now ?? Date.now()) - 2 * DAY_MS).toISOString());
    await o.underLease?.().catch((error: Error) => {
      if (!(error instanceof StoreUnavailableError)) o.logger.warn('periodic upkeep failed', { message: error.message });
    });
    return removed;
  } catch (error) {
    // The store reports its own failures once (serve logs them).
    if (!(error instanceof StoreUnavailableError)) o.logger.warn('event log retention failed', { message: (error as Error).message });
    return 0;
  }
}
