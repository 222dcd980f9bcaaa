import { decryptSecret, encryptSecret, salesCacheKeys } from '../crypto.js';
import { KeyRotatedError } from '../key-check.js';
import type { SalesCacheStore } from '../types.js';
import type { Sql, Tx } from './connection.js';

/** The same rows as the SQLite cache (src/store/sales-cache.ts): results encrypted, identifiers kept only as keyed hashes. */
export function pgSalesCache(sql: Sql, key: Buffer, guard: (tx: Tx) => Promise<void>): SalesCacheStore {
  const { hash, aad } = salesCacheKeys(key);
  return {
    async get(accountId, kind, keys, since) {
      const found = new Map<string, string>();
      if (!keys.length) return found;
      const hashes = keys.map((lookup) => hash(accountId, kind, lookup));
      const rows = await sql<{ key_hash: string; result_enc: string }[]>`
        SELECT key_hash, result_enc FROM sales_cache
        WHERE account_id = ${accountId} AND kind = ${kind} AND key_hash = ANY(${hashes}::text[]) AND created_at >= ${since}`;
      const stored = new Map(rows.map((row) => [row.key_hash, row.result_enc]));
      // In the order asked, as the SQLite cache answers.
      keys.forEach((lookup, i) => {
        const blob = stored.get(hashes[i]!);
        if (blob === undefined) return;
        try {
          found.set(lookup, decryptSecret(key, blob, aad(accountId, kind, hashes[i]!)));
        } catch {
          // An entry that does not decrypt is a miss; the paid lookup that follows overwrites it.
        }
      });
      return found;
    },
    async put(accountId, kind, entries, at) {
      if (!entries.length) return;
      await sql
        .begin(async (tx) => {
          await guard(tx);
          for (const [lookup, json] of entries) {
            const keyHash = hash(accountId, kind, lookup);
            await tx`
              INSERT INTO sales_cache (account_id, kind, key_hash, result_enc, created_at)
              VALUES (${accountId}, ${kind}, ${keyHash}, ${encryptSecret(key, json, aad(accountId, kind, keyHash))}, ${at})
              ON CONFLICT (account_id, kind, key_hash) DO UPDATE SET result_enc = excluded.result_enc, created_at = excluded.created_at`;
          }
        })
        .catch((error: unknown) => {
          // After `secrets rotate` nothing may be written under the retired key; the answer already paid for still stands.
          if (!(error instanceof KeyRotatedError)) throw error;
        });
    },
    async purge(accountId, before) {
      return (await sql`DELETE FROM sales_cache WHERE account_id = ${accountId} AND created_at < ${before}`).count;
    },
  };
}
