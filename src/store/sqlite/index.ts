import type Database from 'better-sqlite3';
import { checkKey, KEY_ROTATED_MESSAGE, KeyRotatedError, type KeyCheckRecord } from '../key-check.js';
import { sqliteAudit } from './audit.js';
import { assembleStore, type StoreParts } from '../assemble.js';
import type { OpenStoreOptions, Store } from '../types.js';
import { SqliteAccountStore } from './accounts.js';
import { openDataDirDatabase, restrictFileModes } from './database.js';
import { SqliteEventStore } from './events.js';
import { sqliteProbe, sqliteStoreError } from './health.js';
import { SqliteHookStore } from './hooks.js';
import { sqliteLeases } from './leases.js';
import { MIGRATIONS, runMigrations } from './migrations.js';
import { sqliteBudgets } from './budgets.js';
import { sqliteSalesCache } from './sales-cache.js';
import { sqliteContinuations, sqliteSignIns, sqliteWebSessions } from './short-lived.js';
import { sqliteTeam } from './team.js';
import { sqliteApprovals, sqlitePolicy } from './governance.js';
import { SqliteSubscriptionStore } from './subscriptions.js';
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
    const touched = new Map<string, number>();
    const parts: StoreParts = {
      probe: sqliteProbe(db, dbFile, MIGRATIONS.at(-1)?.version ?? 0),
      hooks: new SqliteHookStore(db, key, guard),
      work: new SqliteWorkStore(db, key),
      leases: sqliteLeases(db),
      signIns: sqliteSignIns(db, key, guard),
      webSessions: sqliteWebSessions(db, key, guard),
      continuations: sqliteContinuations(db, key, guard),
      team: sqliteTeam(db, key, guard),
      salesCache: sqliteSalesCache(db, key, guard),
      budgets: sqliteBudgets(db),
      policy: sqlitePolicy(db),
      approvals: sqliteApprovals(db, key),
      audit: sqliteAudit(db, key),
      owned: (owner) => ({
        accounts: new SqliteAccountStore(db, key, options.redactor, guard, owner, touched),
        triggers: new SqliteTriggerStore(db, key, Date.now, guard, owner),
        events: new SqliteEventStore(db, key, Date.now, owner),
        subscriptions: new SqliteSubscriptionStore(db, key, Date.now, guard, owner),
      }),
      async close() {
        if (db.open) db.close();
      },
    };
    return assembleStore<SqliteStore>(parts, { db });
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
