import type { KeySource } from './crypto.js';
import { copyFromSqlite } from './sqlite/copy.js';

export interface CopyResult {
  /** The SQLite file copied from (left unchanged). */
  from: string;
  /** The target, without its password. */
  to: string;
  /** The target's schema version, migrated before the copy. */
  schema: number;
  /** Rows copied per table, in copy order. */
  counts: Record<string, number>;
  /** Where the key the secrets are encrypted with came from; undefined when the store holds no key check (it was never opened with a key). */
  key?: { source: KeySource; keyFile: string };
}

/**
 * `switchboard db copy`: moves the SQLite store of `fromDataDir` into the PostgreSQL database at `toUrl`, in one
 * transaction there, refused when that database already holds data. Secrets move as they are stored (encrypted),
 * so the PostgreSQL store opens with the same key; the key is proven against the source first. The source is
 * read in one read-only snapshot and not changed.
 */
export async function copyStore(fromDataDir: string, toUrl: string, options: { secretKey?: string } = {}): Promise<CopyResult> {
  const { from, to, schema, counts, key } = await copyFromSqlite(fromDataDir, options.secretKey, async (source) => (await import('./pg/copy.js')).copyInto(toUrl, source));
  return { from, to, schema, counts, key };
}
