import type { AccountContext, ToolDeps } from '../../tool.js';
import type { Kind, RecordOf } from './records.js';

/** How long a successful lookup answers a repeat of it, unless the server says otherwise. */
export const DEFAULT_CACHE_DAYS = 30;

/** SWITCHBOARD_SALES_CACHE_DAYS through the server's deps; 30 days when unset. */
export function cacheDays(deps: ToolDeps): number {
  const days = deps.salesCacheDays;
  return typeof days === 'number' && Number.isFinite(days) && days >= 0 ? days : DEFAULT_CACHE_DAYS;
}

export interface LookupCache<R> {
  /** Fresh answers for the keys that have one. */
  get(keys: string[]): Promise<Map<string, R>>;
  put(entries: Array<[key: string, record: R]>): Promise<void>;
}

/** The account's cache of successful lookups of one kind; expired entries of the account are dropped first. */
export async function lookupCache<K extends Kind>(ctx: Pick<AccountContext, 'deps' | 'account'>, kind: K, now = Date.now()): Promise<LookupCache<RecordOf<K>>> {
  const store = ctx.deps.store.salesCache;
  const days = cacheDays(ctx.deps);
  const since = new Date(now - days * 86_400_000).toISOString();
  const accountId = ctx.account.id;
  await store.purge(accountId, since);
  return {
    async get(keys) {
      const found = new Map<string, RecordOf<K>>();
      // Zero days means no caching at all, not "anything stored this very millisecond".
      if (days === 0) return found;
      for (const [key, json] of await store.get(accountId, kind, keys, since)) {
        try {
          found.set(key, JSON.parse(json) as RecordOf<K>);
        } catch {
          // An unreadable entry is a miss; the next lookup overwrites it.
        }
      }
      return found;
    },
    async put(entries) {
      // Zero days turns the cache off: nothing personal is written, not even for a moment.
      if (days === 0) return;
      await store.put(accountId, kind, entries.map(([key, record]) => [key, JSON.stringify(record)]), new Date().toISOString());
    },
  };
}
