import type Database from 'better-sqlite3';
import { checkKey, KEY_ROTATED_MESSAGE, KeyRotatedError, type KeyCheckRecord } from '../key-check.js';
import { TrackedHealth } from '../health.js';
import { ownedSalesCache, withOwners } from '../owner.js';
import type { OpenStoreOptions, Store } from '../types.js';
import { SqliteAccountStore } from './accounts.js';
import { openDataDirDatabase, restrictFileModes } from './database.js';
import { SqliteEventStore } from './events.js';
import { sqliteProbe, sqliteStoreError } from './health.js';
import { SqliteHookStore } from './hooks.js';
import { sqliteLeases } from './leases.js';
import { MIGRATIONS, runMigrations } from './migrations.js';
import { sqliteSalesCache } from './sales-cache.js';
import { sqliteContinuations, sqliteSignIns, sqliteWebSessions } from './short-lived.js';
import { sqliteTeam } from './team.js';
import { SqliteTriggerStore } from './triggers.js';
import { SqliteWorkStore } from './work.js';

/** The SQLite store; `db` is for this folder (secrets rotate) and for tests that look at the file. Other code sees a Store only. */
export interface SqliteStore extends Store {
  readonly db: Database.Database;
  ownedBy(owner: string): SqliteStore;
}

export async function openSqliteStore(options: OpenStoreOptions): Promise<SqliteStore> {
  const { db, dbFile } = openDataDirDatabase(options.dataDir);
  try {
    runMigrations(db);
    restrictFileModes(dbFile);
    const { key, check } = await checkKey(keyCheckRecord(db, dbFile), options);
    const guard = keyGuard(db, check);
    const health = new TrackedHealth(sqliteProbe(db, dbFile, MIGRATIONS.at(-1)?.version ?? 0));
    const shared = {
      db,
      health,
      hooks: health.guard(new SqliteHookStore(db, key, guard)),
      work: health.guard(new SqliteWorkStore(db, key)),
      leases: health.guard(sqliteLeases(db)),
      signIns: health.guard(sqliteSignIns(db, key, guard)),
      webSessions: health.guard(sqliteWebSessions(db, key, guard)),
      continuations: health.guard(sqliteContinuations(db, key, guard)),
      team: health.guard(sqliteTeam(db, key, guard)),
      async close() {
        if (db.open) db.close();
      },
    };
    const salesCache = sqliteSalesCache(db, key, guard);
    const touched = new Map<string, number>();
    return withOwners<SqliteStore>((owner) => ({
      ...shared,
      accounts: health.guard(new SqliteAccountStore(db, key, options.redactor, guard, owner, touched)),
      triggers: health.guard(new SqliteTriggerStore(db, key, Date.now, guard, owner)),
      events: health.guard(new SqliteEventStore(db, key, Date.now, owner)),
      salesCache: health.guard(ownedSalesCache(salesCache, owner)),
    }));
  } catch (error) {
    db.close();
    throw sqliteStoreError(error, dbFile) ?? error;
  }
}

/**
 * Secret writes first check that the key check is still the one this connection opened with: after
 * `secrets rotate` a process holding the old key must not write secrets nobody can read any more.
 */
function keyGuard(db: Database.Database, check: string): () => void {
  const read = db.prepare("SELECT value FROM meta WHERE key = 'key_check'");
  return () => {
    if ((read.get() as { value: string } | undefined)?.value !== check) throw new KeyRotatedError(KEY_ROTATED_MESSAGE);
  };
}

function keyCheckRecord(db: Database.Database, dbFile: string): KeyCheckRecord {
  return {
    where: dbFile,
    read: async () => (db.prepare("SELECT value FROM meta WHERE key = 'key_check'").get() as { value: string } | undefined)?.value,
    insertIfAbsent: async (check) => void db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('key_check', ?)").run(check),
  };
}
