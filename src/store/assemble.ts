import { TrackedHealth, type StoreProbe } from './health.js';
import { ownedAudit, ownedSalesCache, withOwners, type Owner } from './owner.js';
import type { Store } from './types.js';

type OwnedPart = 'accounts' | 'triggers' | 'events' | 'subscriptions';

/** What an adapter makes of its database: the parts every owner shares, and those that read and write one owner's rows. */
export type StoreParts = Omit<Store, OwnedPart | 'health' | 'ownedBy'> & {
  probe: StoreProbe;
  /** One owner's accounts, triggers, events and subscriptions; every owner's for `undefined`. */
  owned(owner: Owner): Pick<Store, OwnedPart>;
};

/**
 * The Store of an adapter's parts, alike for every adapter: each part refused while the store is known damaged and its
 * failures observed by the store's health, and one view per owner sharing the connection. `extra` is what an adapter
 * adds to its own Store type (SQLite's `db`).
 */
export function assembleStore<S extends Store & { ownedBy(owner: string): S } = Store>(parts: StoreParts, extra?: Omit<S, keyof Store>): S {
  const { probe, owned, close, salesCache, audit, ...rest } = parts;
  const health = new TrackedHealth(probe);
  const shared = { ...extra, health, close, ...guardEach(health, rest) };
  return withOwners<S>((owner) => {
    const own = owned(owner);
    return { ...shared, ...guardEach(health, own), salesCache: health.guard(ownedSalesCache(salesCache, owner)), audit: health.guard(ownedAudit(audit, owner)) } as unknown as Omit<S, 'ownedBy'>;
  });
}

function guardEach<T extends object>(health: TrackedHealth, parts: T): T {
  return Object.fromEntries(Object.entries(parts).map(([name, part]) => [name, health.guard(part as object, name)])) as T;
}
