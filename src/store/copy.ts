import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { InputError } from '../errors.js';
import { loadKey, type KeySource } from './crypto.js';
import { DB_FILE_NAME } from './db.js';
import { sqliteStoreError } from './sqlite-health.js';
import { keyMatches, keyMismatchMessage } from './key-check.js';
import { MIGRATIONS } from './migrations.js';
import { COPIED_TABLES, type CopySource } from './copy-tables.js';
import { INSTANCE_LEASE_PREFIX } from './types.js';

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

const BATCH_ROWS = 500;

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

function checkSchema(db: Database.Database, dbFile: string, dataDir: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  const newest = MIGRATIONS.at(-1)!.version;
  if (version > newest) {
    throw new InputError(
      `The store ${dbFile} was written by a newer Switchboard (schema ${version}, this one knows ${newest}): copy it with that version. Nothing was copied.`,
      'data-dir',
    );
  }
  if (version < newest) {
    throw new InputError(
      `The store ${dbFile} is at schema ${version}, this Switchboard's is ${newest}: bring it up to date with switchboard db migrate --data-dir ${dataDir} ` +
        '(SWITCHBOARD_DATABASE_URL unset), then copy again. Nothing was copied.',
      'data-dir',
    );
  }
}

function checkNoServer(db: Database.Database, dataDir: string): void {
  if (db.prepare('SELECT 1 FROM leases WHERE name LIKE ? AND expires_at > ?').get(`${INSTANCE_LEASE_PREFIX}%`, Date.now()) === undefined) return;
  throw new InputError(
    `A Switchboard server is running on the store in ${dataDir} (it renewed its presence in the last 20 s): stop every switchboard serve using it, ` +
      'then copy again, so that no event arrives after the copy is taken. Nothing was copied.',
    'data-dir',
  );
}

/** The key must open the source's secrets: instances on the PostgreSQL store will need the very same one. */
function checkKey(db: Database.Database, dbFile: string, dataDir: string, secretKey: string | undefined): CopyResult['key'] {
  const check = (db.prepare("SELECT value FROM meta WHERE key = 'key_check'").get() as { value: string } | undefined)?.value;
  if (check === undefined) return undefined;
  let loaded: ReturnType<typeof loadKey>;
  try {
    loaded = loadKey({ dataDir, secretKey, createKeyFile: false });
  } catch (error) {
    throw new InputError(`${(error as Error).message} Nothing was copied.`, 'SWITCHBOARD_SECRET_KEY');
  }
  if (!keyMatches(loaded.key, check)) throw new InputError(keyMismatchMessage(loaded, dbFile), 'SWITCHBOARD_SECRET_KEY');
  return { source: loaded.source, keyFile: loaded.keyFile };
}

function sqliteSource(db: Database.Database): CopySource {
  return {
    tables: COPIED_TABLES,
    *batches(table) {
      const select = db.prepare(`SELECT rowid AS copy_rowid, ${table.columns.join(', ')} FROM ${table.name} WHERE rowid > ? ORDER BY rowid LIMIT ${BATCH_ROWS}`);
      for (let after = Number.MIN_SAFE_INTEGER; ; ) {
        const rows = select.all(after) as Array<Record<string, unknown> & { copy_rowid: number }>;
        if (!rows.length) return;
        for (const row of rows) for (const column of table.booleans ?? []) row[column] = row[column] === 1;
        yield rows;
        after = rows.at(-1)!.copy_rowid;
      }
    },
    lastId(table) {
      const row = db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table.name) as { seq: number } | undefined;
      return row?.seq ?? 0;
    },
  };
}
