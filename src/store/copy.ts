import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { InputError } from '../errors.js';
import type { KeySource } from './crypto.js';
import { checkKey, checkNoServer, checkSchema, sqliteSource } from './sqlite/copy.js';
import { DB_FILE_NAME } from './sqlite/database.js';
import { sqliteStoreError } from './sqlite/health.js';

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
  const dbFile = join(fromDataDir, DB_FILE_NAME);
  if (!existsSync(dbFile)) {
    throw new InputError(
      `There is no SQLite store in ${fromDataDir} (no ${DB_FILE_NAME}): nothing to copy. Set --data-dir (or SWITCHBOARD_DATA_DIR) to the data directory serve uses.`,
      'data-dir',
    );
  }
  let db: Database.Database;
  try {
    db = new Database(dbFile, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw sqliteStoreError(error, dbFile) ?? error;
  }
  try {
    // One snapshot for everything read below, however long the writing takes.
    db.exec('BEGIN');
    checkSchema(db, dbFile, fromDataDir);
    checkNoServer(db, fromDataDir);
    const key = checkKey(db, dbFile, fromDataDir, options.secretKey);
    const { copyInto } = await import('./pg/copy.js');
    const { to, schema, counts } = await copyInto(toUrl, sqliteSource(db));
    return { from: dbFile, to, schema, counts, key };
  } catch (error) {
    throw sqliteStoreError(error, dbFile) ?? error;
  } finally {
    db.close();
  }
}
