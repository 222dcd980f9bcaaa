import type Database from 'better-sqlite3';
import { decryptSecret, encryptSecret, salesCacheKeys } from '../crypto.js';
import type { SalesCacheStore } from '../types.js';

/**
 * Names, emails and phone numbers are personal data: each result is encrypted with the store key
 * (AES-256-GCM, bound to its row), and the identifier looked up is kept only as an HMAC under a key
 * derived from the store key, so the file shows neither who was looked up nor what came back.
 * `guard` throws once `secrets rotate` has changed the key under this process.
 */
export function sqliteSalesCache(db: Database.Database, key: Buffer, guard: () => void): SalesCacheStore {
  const { hash, aad } = salesCacheKeys(key);
  const select = db.prepare('SELECT result_enc FROM sales_cache WHERE account_id = ? AND kind = ? AND key_hash = ? AND created_at >= ?');
  const upsert = db.prepare(
    `INSERT INTO sales_cache (account_id, kind, key_hash, result_enc, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (account_id, kind, key_hash) DO UPDATE SET result_enc = excluded.result_enc, created_at = excluded.created_at`,
  );
  const remove = db.prepare('DELETE FROM sales_cache WHERE account_id = ? AND created_at < ?');
  const getAll = db.transaction((accountId: string, kind: string, keys: string[], since: string) => {
    const found = new Map<string, string>();
    for (const lookup of keys) {
      const keyHash = hash(accountId, kind, lookup);
      const row = select.get(accountId, kind, keyHash, since) as { result_enc: string } | undefined;
      if (!row) continue;
      try {
        found.set(lookup, decryptSecret(key, row.result_enc, aad(accountId, kind, keyHash)));
      } catch {
        // An entry that does not decrypt is a miss; the paid lookup that follows overwrites it.
      }
    }
    return found;
  });
  const putAll = db.transaction((accountId: string, kind: string, entries: Array<[string, string]>, at: string) => {
    for (const [lookup, json] of entries) {
      const keyHash = hash(accountId, kind, lookup);
      upsert.run(accountId, kind, keyHash, encryptSecret(key, json, aad(accountId, kind, keyHash)), at);
    }
  });
  return {
    async get(accountId, kind, keys, since) {
      return keys.length ? getAll(accountId, kind, keys, since) : new Map();
    },
    async put(accountId, kind, entries, at) {
      if (!entries.length) return;
      try {
        guard();
      } catch {
        // After `secrets rotate` nothing may be written under the retired key; the answer already paid for still stands.
        return;
      }
      putAll(accountId, kind, entries, at);
    },
    async purge(accountId, before) {
      return remove.run(accountId, before).changes;
    },
  };
}
