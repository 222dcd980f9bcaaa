import type Database from 'better-sqlite3';
import type { Store } from './types.js';

/** Successful sales lookups, per account, kind ('person' | 'company') and normalised identifier. */
export interface SalesCacheStore {
  /** The stored JSON of each key found, written at or after `since` (ISO 8601). */
  get(accountId: string, kind: string, keys: string[], since: string): Promise<Map<string, string>>;
  put(accountId: string, kind: string, entries: Array<[key: string, json: string]>, at: string): Promise<void>;
  /** Deletes the account's entries written before `before`; returns how many. */
  purge(accountId: string, before: string): Promise<number>;
}

const sqlite = new WeakMap<Database.Database, SalesCacheStore>();
const memory = new WeakMap<Store, SalesCacheStore>();

/**
 * The cache of a store: in SQLite (table sales_cache) when the store has a database, so it
 * survives restarts; in memory otherwise (a store that is not SQLite).
 */
export function salesCacheStore(store: Store): SalesCacheStore {
  const db = (store as Store & { db?: Database.Database }).db;
  if (db) {
    let cache = sqlite.get(db);
    if (!cache) sqlite.set(db, (cache = sqliteCache(db)));
    return cache;
  }
  let cache = memory.get(store);
  if (!cache) memory.set(store, (cache = memoryCache()));
  return cache;
}

function sqliteCache(db: Database.Database): SalesCacheStore {
  const select = db.prepare('SELECT result_json FROM sales_cache WHERE account_id = ? AND kind = ? AND key = ? AND created_at >= ?');
  const upsert = db.prepare(
    `INSERT INTO sales_cache (account_id, kind, key, result_json, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account_id, kind, key) DO UPDATE SET result_json = excluded.result_json, created_at = excluded.created_at`,
  );
  const remove = db.prepare('DELETE FROM sales_cache WHERE account_id = ? AND created_at < ?');
  const getAll = db.transaction((accountId: string, kind: string, keys: string[], since: string) => {
    const found = new Map<string, string>();
    for (const key of keys) {
      const row = select.get(accountId, kind, key, since) as { result_json: string } | undefined;
      if (row) found.set(key, row.result_json);
    }
    return found;
  });
  const putAll = db.transaction((accountId: string, kind: string, entries: Array<[string, string]>, at: string) => {
    for (const [key, json] of entries) upsert.run(accountId, kind, key, json, at);
  });
  return {
    async get(accountId, kind, keys, since) {
      return keys.length ? getAll(accountId, kind, keys, since) : new Map();
    },
    async put(accountId, kind, entries, at) {
      if (entries.length) putAll(accountId, kind, entries, at);
    },
    async purge(accountId, before) {
      return remove.run(accountId, before).changes;
    },
  };
}

function memoryCache(): SalesCacheStore {
  const rows = new Map<string, { accountId: string; json: string; at: string }>();
  const id = (accountId: string, kind: string, key: string) => JSON.stringify([accountId, kind, key]);
  return {
    async get(accountId, kind, keys, since) {
      const found = new Map<string, string>();
      for (const key of keys) {
        const row = rows.get(id(accountId, kind, key));
        if (row && row.at >= since) found.set(key, row.json);
      }
      return found;
    },
    async put(accountId, kind, entries, at) {
      for (const [key, json] of entries) rows.set(id(accountId, kind, key), { accountId, json, at });
    },
    async purge(accountId, before) {
      let n = 0;
      for (const [k, row] of rows) if (row.accountId === accountId && row.at < before && rows.delete(k)) n++;
      return n;
    },
  };
}
