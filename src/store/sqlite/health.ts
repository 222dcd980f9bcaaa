import { basename } from 'node:path';
import type Database from 'better-sqlite3';
import { StoreUnavailableError } from '../../errors.js';
import type { StoreProbe } from '../health.js';

const NAMES_THE_FILE = "The server's log names the file.";

/** Why SQLite cannot use the file, by its error code: what to do. */
function reasonFor(code: string): string | undefined {
  if (code === 'SQLITE_FULL') return 'the disk is full (SQLITE_FULL): free some space';
  if (code.startsWith('SQLITE_IOERR')) return `the disk or file system failed (${code}): check them, then restart the server`;
  if (code === 'SQLITE_CANTOPEN') return 'it cannot be opened (SQLITE_CANTOPEN): check that it exists and that this user may read and write it and its directory';
  if (code === 'SQLITE_READONLY_DBMOVED') return 'it was moved or deleted while in use (SQLITE_READONLY_DBMOVED): put it back, or restart the server';
  if (code.startsWith('SQLITE_READONLY')) return `this user may not write it (${code}): give it write access to the file and its directory (chmod u+rw)`;
  return undefined;
}

/** SQLite's error as what it says of the store in `dbFile`: damaged, or unusable (disk, permissions); undefined for any other. */
export function sqliteStoreError(error: unknown, dbFile: string): StoreUnavailableError | undefined {
  if (error instanceof StoreUnavailableError) return error;
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string') return undefined;
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return damaged(dbFile, (error as Error).message, code);
  const reason = reasonFor(code);
  if (!reason) return undefined;
  return new StoreUnavailableError(
    `The store ${dbFile} cannot be used (${(error as Error).message}): ${reason}.`,
    'reachable',
    `The SQLite store cannot be used: ${reason}. ${NAMES_THE_FILE}`,
    'data-dir',
  );
}

/** SQLite found the file damaged, or not a database at all: which file, and how to recover. */
export function damaged(dbFile: string, detail: string, code: string): StoreUnavailableError {
  return new StoreUnavailableError(
    `The store ${dbFile} is damaged (${detail}, ${code}); nothing was changed. ` +
      `Restore it from a backup, or move it aside (e.g. to ${basename(dbFile)}.damaged) to start with an empty store, ` +
      'then add the accounts and triggers again (switchboard accounts add, switchboard triggers add).',
    'intact',
    `The SQLite store is damaged (${code}): restore it from a backup, or move it aside to start with an empty store, then restart the server. ${NAMES_THE_FILE}`,
    'data-dir',
  );
}

/**
 * Start-up reads every page (PRAGMA quick_check); readiness reads the schema version and the first row of each
 * table (a few pages each, mostly cached), never the whole file.
 */
export function sqliteProbe(db: Database.Database, dbFile: string, newest: number): StoreProbe {
  const checkSchema = () => {
    const version = db.prepare('PRAGMA user_version').pluck().get() as number;
    if (version === newest) return;
    const newer = version > newest;
    throw new StoreUnavailableError(
      newer
        ? `The store ${dbFile} now has schema ${version}, written by a newer Switchboard; this server knows ${newest}. Upgrade this server and restart it.`
        : `The store ${dbFile} has schema ${version}, older than this server's ${newest}: it was replaced while the server ran. Restart the server to bring it up to date.`,
      'schema',
      newer
        ? `The SQLite store's schema (${version}) is newer than this server's (${newest}): upgrade this server and restart it.`
        : `The SQLite store's schema (${version}) is older than this server's (${newest}): restart the server to bring it up to date.`,
      'data-dir',
    );
  };
  return {
    poolSize: 1,
    async thorough() {
      const found = db.prepare('PRAGMA quick_check(1)').pluck().all() as string[];
      if (found[0] !== 'ok') throw damaged(dbFile, `PRAGMA quick_check: ${found.join('; ').replace(/\s+/g, ' ').trim()}`, 'SQLITE_CORRUPT');
      checkSchema();
    },
    async cheap() {
      checkSchema();
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
      for (const table of tables) db.prepare(`SELECT 1 FROM "${table.replaceAll('"', '""')}" LIMIT 1`).get();
    },
    classify: (error) => sqliteStoreError(error, dbFile),
    unanswered: (detail) =>
      new StoreUnavailableError(
        `The store ${dbFile} did not pass its health check (${detail}): check the disk and the file, then restart the server.`,
        'reachable',
        `The SQLite store did not pass its health check. ${NAMES_THE_FILE}`,
        'data-dir',
      ),
  };
}
