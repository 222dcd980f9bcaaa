import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { InputError, StoreUnavailableError } from '../../errors.js';
import { loadKey } from '../crypto.js';
import { keyMatches, keyMismatchMessage } from '../key-check.js';
import { INSTANCE_LEASE_PREFIX } from '../types.js';
import { syncDirectory } from '../durable-files.js';
import { copyInto, countRows, finishCopy, type StoreCounts } from './backup.js';
import { DB_FILE_NAME, makeDataDir } from './database.js';
import { sqliteStoreError } from './health.js';
import { MIGRATIONS, runMigrations } from './migrations.js';

export interface RestoreResult {
  from: string;
  to: string;
  /** The backup's schema, and the one it has now (higher when it was migrated). */
  schema: { from: number; to: number };
  counts: StoreCounts;
  /** The store that was there before and was replaced (with --force). */
  replaced?: StoreCounts;
}

const UNCHANGED = 'Nothing was changed.';

/**
 * `switchboard db restore`: puts a backup in place as the data dir's store, once it is proven a whole Switchboard store
 * that this version reads and whose secrets the current key opens, and no server runs on the data dir. It is copied
 * beside the store, migrated there when older, and renamed into place; a failure changes nothing.
 */
export async function restoreSqlite(dataDir: string, from: string, options: { secretKey?: string; force?: boolean }): Promise<RestoreResult> {
  const file = resolve(from.trim());
  if (!existsSync(file) || !statSync(file).isFile()) throw new InputError(`--from ${file} is not a file: give the file written by switchboard db backup --to. ${UNCHANGED}`, 'from');
  const backup = openBackup(file);
  try {
    const version = checkBackup(backup, file);
    checkKey(backup, file, dataDir, options.secretKey);
    makeDataDir(dataDir);
    const target = join(dataDir, DB_FILE_NAME);
    const replaced = checkTarget(target, dataDir, options.force ?? false);
    const draft = await copyInto(backup, dataDir, DB_FILE_NAME, file);
    try {
      const { schema, counts } = finishCopy(draft, (db) => runMigrations(db));
      // The old store's -wal and -shm would be read as the new file's: they go before it takes the name.
      for (const suffix of ['-wal', '-shm', '-journal']) rmSync(target + suffix, { force: true });
      renameSync(draft, target);
      syncDirectory(dataDir);
      return { from: file, to: target, schema: { from: version, to: schema }, counts, ...(replaced ? { replaced } : {}) };
    } finally {
      rmSync(draft, { force: true });
    }
  } finally {
    backup.close();
  }
}

function openBackup(file: string): Database.Database {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    return db;
  } catch (error) {
    throw notAStore(file, (error as { code?: string }).code ?? (error as Error).message);
  }
}

/** A whole file (integrity_check), with a Switchboard schema this version knows; its schema version. */
function checkBackup(db: Database.Database, file: string): number {
  let version: number;
  let tables: string[];
  try {
    const integrity = db.pragma('integrity_check(5)', { simple: false }) as Array<{ integrity_check: string }>;
    if (integrity[0]?.integrity_check !== 'ok') {
      const found = integrity.map((r) => r.integrity_check).join('; ').replace(/\s+/g, ' ').slice(0, 300);
      throw new InputError(`--from ${file} is damaged (PRAGMA integrity_check: ${found}): restore from another backup. ${UNCHANGED}`, 'from');
    }
    version = db.pragma('user_version', { simple: true }) as number;
    tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_CORRUPT')) throw new InputError(`--from ${file} is damaged (${code}): restore from another backup. ${UNCHANGED}`, 'from');
    throw notAStore(file, code || (error as Error).message);
  }
  if (version < 1 || !['meta', 'accounts', 'triggers', 'events', 'leases'].every((t) => tables.includes(t))) throw notAStore(file, 'it has no Switchboard schema');
  const newest = MIGRATIONS.at(-1)!.version;
  if (version > newest) {
    throw new InputError(`--from ${file} was written by a newer Switchboard (schema ${version}, this one knows ${newest}): restore it with that version or a later one. ${UNCHANGED}`, 'from');
  }
  return version;
}

function notAStore(file: string, why: string): InputError {
  return new InputError(`--from ${file} is not a Switchboard store (${why}): give the file written by switchboard db backup --to. ${UNCHANGED}`, 'from');
}

/** The key this data dir is given must open the backup's secrets, or every account would be unreadable after the restore. */
function checkKey(db: Database.Database, file: string, dataDir: string, secretKey: string | undefined): void {
  const check = (db.prepare("SELECT value FROM meta WHERE key = 'key_check'").get() as { value: string } | undefined)?.value;
  if (check === undefined) return;
  const loaded = loadKey({ dataDir, secretKey, createKeyFile: false });
  if (!keyMatches(loaded.key, check)) throw new InputError(keyMismatchMessage(loaded, file), 'SWITCHBOARD_SECRET_KEY');
}

/**
 * The data dir's current store may be replaced when no server runs on it and it is empty, or with --force when it holds
 * data (or is damaged). What it held, when anything.
 */
function checkTarget(target: string, dataDir: string, force: boolean): StoreCounts | undefined {
  if (!existsSync(target)) return undefined;
  let db: Database.Database | undefined;
  try {
    db = new Database(target, { fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    if (tables.includes('leases') && db.prepare('SELECT 1 FROM leases WHERE name LIKE ? AND expires_at > ?').get(`${INSTANCE_LEASE_PREFIX}%`, Date.now()) !== undefined) {
      throw new InputError(
        `A Switchboard server is running on the store in ${dataDir} (it renewed its presence in the last 20 s): stop every switchboard serve using it ` +
          `(a server stopped by kill -9 counts for 20 s more), then restore again. ${UNCHANGED}`,
        'data-dir',
      );
    }
    if (!['accounts', 'triggers', 'events'].every((t) => tables.includes(t))) return undefined;
    const counts = countRows(db);
    if (counts.accounts + counts.triggers + counts.events > 0 && !force) {
      throw new InputError(
        `The store in ${dataDir} is not empty (${describeCounts(counts)}): restore into a new data directory (--data-dir), or add --force to replace it. ${UNCHANGED}`,
        'data-dir',
      );
    }
    return counts.accounts + counts.triggers + counts.events > 0 ? counts : undefined;
  } catch (error) {
    if (error instanceof InputError) throw error;
    const damage = sqliteStoreError(error, target);
    if (damage instanceof StoreUnavailableError && damage.part === 'intact' && force) return undefined;
    if (damage instanceof StoreUnavailableError && damage.part === 'intact') {
      throw new InputError(`The store ${target} is damaged: add --force to replace it with the backup. ${UNCHANGED}`, 'data-dir');
    }
    throw damage ?? error;
  } finally {
    db?.close();
  }
}

export function describeCounts(counts: StoreCounts): string {
  return `${counts.accounts} account(s), ${counts.triggers} trigger(s), ${counts.events} event(s)`;
}
