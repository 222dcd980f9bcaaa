import type { SalesCacheStore } from './types/accounts.js';
import type { AuditStore } from './types/audit.js';
import type { TriggerEvent, TriggerStore } from './types/triggers.js';

/**
 * Whose rows a store view reads and writes. Personal mode has one implicit owner, `PERSONAL_OWNER`; in team mode each
 * person's id is an owner. `undefined` is every owner at once: the server's own work (polls, webhooks, forwards),
 * never a tool, page or command acting for someone.
 */
export type Owner = string | undefined;

/** The owner of everything in personal mode, and of what the operator adds from the command line in team mode. */
export const PERSONAL_OWNER = '';

/** The grantee of an account shared with every person of a team. */
export const EVERYONE = '*';

/** A name kept per owner (a consumer, a cut result's tool): the personal owner's names are stored as given, a person's behind their id. */
export function ownedConsumer(owner: string, name: string): string {
  return owner === PERSONAL_OWNER ? name : `${owner}/${name}`;
}

/** The name a consumer was given, from its stored key. */
export function consumerOf(owner: Owner, key: string): string {
  return owner === undefined || owner === PERSONAL_OWNER ? key : key.slice(owner.length + 1);
}

/**
 * A store and its owners' views: `build(undefined)` is every owner's, `ownedBy(owner)` one owner's. Views are made once
 * per owner and share the store's connection.
 */
export function withOwners<S extends { ownedBy(owner: string): S }>(build: (owner: Owner) => Omit<S, 'ownedBy'>): S {
  const views = new Map<string, S>();
  const ownedBy = (owner: string): S => {
    let view = views.get(owner);
    if (!view) views.set(owner, (view = { ...build(owner), ownedBy } as S));
    return view;
  };
  return { ...build(undefined), ownedBy } as S;
}

/** One owner's sales lookups, kept apart from another's even on an account both may use. */
export function ownedSalesCache(cache: SalesCacheStore, owner: Owner): SalesCacheStore {
  if (owner === undefined || owner === PERSONAL_OWNER) return cache;
  const kind = (k: string) => `${owner}/${k}`;
  return {
    get: (accountId, k, keys, since) => cache.get(accountId, kind(k), keys, since),
    put: (accountId, k, entries, at) => cache.put(accountId, kind(k), entries, at),
    purge: (accountId, before) => cache.purge(accountId, before),
  };
}

/**
 * Passes on, in order, the events of `owner`'s triggers among every batch the process-wide log reads. Each trigger is
 * looked up once in the owner's view of the store, then remembered (a trigger never changes owner).
 */
export function ownEvents(store: { ownedBy(owner: string): { triggers: Pick<TriggerStore, 'get'> } }, owner: string, listener: (events: TriggerEvent[]) => void): (events: TriggerEvent[]) => void {
  const triggers = store.ownedBy(owner).triggers;
  const mine = new Map<string, Promise<boolean>>();
  const isMine = (triggerId: string) => {
    let known = mine.get(triggerId);
    if (!known) mine.set(triggerId, (known = triggers.get(triggerId).then((t) => t !== undefined, () => false)));
    return known;
  };
  let queue = Promise.resolve();
  return (events) => {
    const kept = Promise.all(events.map((e) => isMine(e.triggerId))).then((flags) => events.filter((_, i) => flags[i]));
    queue = queue.then(() => kept).then((own) => void (own.length && listener(own)));
  };
}

/** One owner's audit records: listing and export show that owner's only; the chain and its upkeep stay the store's. */
export function ownedAudit(audit: AuditStore, owner: Owner): AuditStore {
  if (owner === undefined) return audit;
  return {
    append: (entries) => audit.append(entries),
    list: (query = {}) => audit.list({ ...query, owner }),
    scan: (range) => audit.scan({ ...range, owner }),
    verify: () => audit.verify(),
    prune: (before) => audit.prune(before),
  };
}
