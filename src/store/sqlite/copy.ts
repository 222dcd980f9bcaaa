import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { InputError } from '../../errors.js';
import { COPIED_TABLES, type CopySource } from '../copy-tables.js';
import { loadKey, type KeySource } from '../crypto.js';
import { keyMatches, keyMismatchMessage } from '../key-check.js';
import { INSTANCE_LEASE_PREFIX } from '../types.js';
import { DB_FILE_NAME } from './database.js';
import { sqliteStoreError } from './health.js';
import { MIGRATIONS } from './migrations.js';

const BATCH_ROWS = 500;

type CopyKey = { source: KeySource; keyFile: string } | undefined;

/**
 * The SQLite half of `db copy`: the store of `dataDir`, read-only and in one snapshot, checked (current schema, no
 * server running, the key opens its secrets), then handed to `write` as rows; every failure says which file.
 */
export async function copyFromSqlite<T extends object>(dataDir: string, secretKey: string | undefined, write: (source: CopySource) => Promise<T>): Promise<T & { from: string; key: CopyKey }> {
  const dbFile = join(dataDir, DB_FILE_NAME);
  if (!existsSync(dbFile)) {
    throw new InputError(
      `There is no SQLite store in ${dataDir} (no ${DB_FILE_NAME}): nothing to copy. Set --data-dir (or SWITCHBOARD_DATA_DIR) to the data directory serve uses.`,
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
    checkSchema(db, dbFile, dataDir);
    checkNoServer(db, dataDir);
    const key = checkKey(db, dbFile, dataDir, secretKey);
    return { ...(await write(sqliteSource(db))), from: dbFile, key };
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
function checkKey(db: Database.Database, dbFile: string, dataDir: string, secretKey: string | undefined): CopyKey {
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
