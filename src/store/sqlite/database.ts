import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { InputError } from '../../errors.js';
import { sqliteStoreError } from './health.js';

export const DB_FILE_NAME = 'switchboard.db';

/** The data dir's SQLite file, created (0600) with its directory when absent; failures say which file or directory and how to fix it. */
export function openDataDirDatabase(dataDir: string): { db: Database.Database; dbFile: string } {
  const dbFile = join(dataDir, DB_FILE_NAME);
  makeDataDir(dataDir);
  try {
    return { db: openDatabase(dbFile), dbFile };
  } catch (error) {
    throw sqliteStoreError(error, dbFile) ?? dataDirError(error as NodeJS.ErrnoException, dataDir);
  }
}

/**
 * Creates the data directory and its missing parents one at a time, so that a refusal names the directory that
 * refused and why (a recursive mkdir reports ENOENT for a parent on a read-only file system).
 */
export function makeDataDir(dataDir: string, mkdir: (dir: string) => void = (dir) => mkdirSync(dir, { mode: 0o700 })): void {
  const missing: string[] = [];
  for (let dir = resolve(dataDir); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) missing.unshift(dir);
  for (const dir of missing) {
    try {
      mkdir(dir);
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      if (e.code !== 'EEXIST') throw createDirError(e, dataDir, dirname(dir));
    }
  }
  if (!statSync(dataDir).isDirectory()) throw dataDirError(Object.assign(new Error('not a directory'), { code: 'EEXIST' }), dataDir);
}

function createDirError(error: NodeJS.ErrnoException, dataDir: string, parent: string): Error {
  const elsewhere = 'choose another with --data-dir DIR (or SWITCHBOARD_DATA_DIR)';
  const reasons: Record<string, string> = {
    EROFS: `the parent ${parent} is on a read-only file system (EROFS); ${elsewhere}`,
    EACCES: `this user may not create directories in the parent ${parent} (EACCES); give it access, or ${elsewhere}`,
    EPERM: `this user may not create directories in the parent ${parent} (EPERM); give it access, or ${elsewhere}`,
    ENOTDIR: `the parent ${parent} is a file, not a directory (ENOTDIR); correct the path, or ${elsewhere}`,
    ENOSPC: `the disk of ${parent} is full (ENOSPC); free some space, or ${elsewhere}`,
  };
  if (!error.code) return error;
  return new InputError(`Cannot create the data directory ${dataDir}: ${reasons[error.code] ?? `${error.message} (${error.code}); ${elsewhere}`}.`, 'data-dir');
}

/** The data directory cannot hold the store: why, and how to choose one that can. */
export function dataDirError(error: NodeJS.ErrnoException, dataDir: string): Error {
  const elsewhere = 'choose another directory with --data-dir DIR (or SWITCHBOARD_DATA_DIR)';
  const reasons: Record<string, string> = {
    EACCES: `this user may not read and write it (EACCES). Give it access (chmod u+rwx), or ${elsewhere}`,
    EPERM: `this user may not read and write it (EPERM). Give it access, or ${elsewhere}`,
    EROFS: `it is on a read-only file system (EROFS). Mount it writable, or ${elsewhere}`,
    ENOSPC: `the disk is full (ENOSPC). Free some space, or ${elsewhere}`,
    ENOTDIR: `a part of that path is a file, not a directory (ENOTDIR). Correct the path, or ${elsewhere}`,
    EEXIST: `it is a file, not a directory (EEXIST). Correct the path, or ${elsewhere}`,
  };
  if (!error.code) return error;
  const reason = reasons[error.code] ?? `${error.message} (${error.code}). Check the directory, or ${elsewhere}`;
  return new InputError(`Cannot open the store in ${dataDir}: ${reason}.`, 'data-dir');
}

export function openDatabase(dbFile: string): Database.Database {
  // Created empty with 0600 first, so the file is never readable by others, not even briefly.
  closeSync(openSync(dbFile, 'a', 0o600));
  const db = new Database(dbFile);
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    // With WAL, NORMAL syncs at checkpoints rather than at every commit: a commit survives a crash of the
    // process (what the event log promises a webhook sender); only a power loss may undo the last ones.
    db.pragma('synchronous = NORMAL');
  } catch (error) {
    db.close();
    throw error;
  }
  restrictFileModes(dbFile);
  compileOnce(db, dbFile);
  return db;
}

/** Each SQL text is compiled once per connection: the stores run the same few statements on every call. */
function compileOnce(db: Database.Database, dbFile: string): void {
  const compile = db.prepare.bind(db);
  const statements = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= 500) statements.clear();
      statements.set(sql, (statement = reportDamage(() => compile(sql), dbFile)));
      for (const name of ['run', 'get', 'all'] as const) {
        const method = statement[name].bind(statement) as (...args: unknown[]) => never;
        (statement as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => reportDamage(() => method(...args), dbFile);
      }
    }
    return statement;
  }) as typeof db.prepare;
}

/** A damaged page or a failing disk may turn up in any query, long after the store opened: each such failure says which file and how to recover. */
function reportDamage<T>(work: () => T, dbFile: string): T {
  try {
    return work();
  } catch (error) {
    throw sqliteStoreError(error, dbFile) ?? error;
  }
}

export function restrictFileModes(dbFile: string): void {
  for (const file of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) {
    if (existsSync(file)) chmodSync(file, 0o600);
  }
}
