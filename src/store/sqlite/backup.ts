import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { InputError } from '../../errors.js';
import { syncDirectory, syncFile } from '../durable-files.js';
import { DB_FILE_NAME } from './database.js';
import { sqliteStoreError } from './health.js';

/** What a backup or a restore holds, as `db backup` and `db restore` print it. */
export interface StoreCounts {
  accounts: number;
  triggers: number;
  events: number;
}

export interface BackupResult {
  from: string;
  to: string;
  schema: number;
  counts: StoreCounts;
  bytes: number;
}

/**
 * `switchboard db backup`: a consistent copy of the data dir's store, taken with SQLite's online backup API while
 * servers may go on writing, secrets still encrypted. It is written beside `to` and renamed into place once complete
 * and flushed, so a failure leaves no half-written file.
 */
export async function backupSqlite(dataDir: string, to: string, options: { force?: boolean } = {}): Promise<BackupResult> {
  const from = join(dataDir, DB_FILE_NAME);
  if (!existsSync(from)) {
    throw new InputError(`There is no SQLite store in ${dataDir} (no ${DB_FILE_NAME}): nothing to back up. Set --data-dir (or SWITCHBOARD_DATA_DIR) to the data directory serve uses.`, 'data-dir');
  }
  const target = checkTarget(to, options.force ?? false);
  let source: Database.Database;
  try {
    source = new Database(from, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw sqliteStoreError(error, from) ?? error;
  }
  try {
    source.pragma('busy_timeout = 5000');
    const draft = await copyInto(source, dirname(target), basename(target), from);
    try {
      const { schema, counts } = finishCopy(draft);
      renameSync(draft, target);
      syncDirectory(dirname(target));
      return { from, to: target, schema, counts, bytes: statSync(target).size };
    } finally {
      rmSync(draft, { force: true });
    }
  } finally {
    source.close();
  }
}

/**
 * A snapshot of `source` in a new 0600 file of `dir`: every page in one step, so it is one read transaction (a consistent
 * state however busy the writers are: in WAL mode they never wait for it). Returns the file, to be renamed by the caller.
 */
export async function copyInto(source: Database.Database, dir: string, name: string, sourceName: string): Promise<string> {
  const draft = join(dir, `${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    closeSync(openSync(draft, 'wx', 0o600));
    await source.backup(draft, { progress: () => 0x7fffffff });
    return draft;
  } catch (error) {
    rmSync(draft, { force: true });
    throw sqliteStoreError(error, sourceName) ?? error;
  }
}

/** Makes a fresh copy one self-contained file (no -wal beside it), checks it reads back whole, and flushes it. */
export function finishCopy(file: string, migrate?: (db: Database.Database) => void): { schema: number; counts: StoreCounts } {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
    migrate?.(db);
    forgetHolders(db);
    const check = db.pragma('quick_check(1)', { simple: true });
    if (check !== 'ok') throw new Error(`The copy ${file} did not read back whole (${String(check)}); nothing was kept.`);
    return { schema: db.pragma('user_version', { simple: true }) as number, counts: countRows(db) };
  } finally {
    db.close();
    rmSync(`${file}-journal`, { force: true });
    chmodSync(file, 0o600);
    syncFile(file);
  }
}

/**
 * A copy holds no process's presence, leases or claims: the processes that held them did not come along, and a restored
 * store would otherwise look in use (or its work claimed) until they ran out.
 */
function forgetHolders(db: Database.Database): void {
  db.exec(`
    DELETE FROM leases;
    UPDATE triggers SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by IS NOT NULL;
    UPDATE deliveries SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by IS NOT NULL;
  `);
}

export function countRows(db: Database.Database): StoreCounts {
  const count = (table: string) => (db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number) ?? 0;
  return { accounts: count('accounts'), triggers: count('triggers'), events: count('events') };
}

function checkTarget(to: string, force: boolean): string {
  const target = resolve(to.trim());
  if (!to.trim()) throw new InputError('--to must name the file to write the backup to, such as switchboard-backup.db.', 'to');
  const dir = dirname(target);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(`--to: the directory ${dir} does not exist: create it, or write the backup elsewhere. Nothing was written.`, 'to');
  if (!existsSync(target)) return target;
  if (statSync(target).isDirectory()) throw new InputError(`--to ${target} is a directory: name a file in it, such as ${join(target, 'switchboard-backup.db')}. Nothing was written.`, 'to');
  if (!force) throw new InputError(`--to ${target} exists already: name another file, or add --force to replace it. Nothing was written.`, 'to');
  return target;
}
