import { openDataDirDatabase } from './sqlite/database.js';
import { sqliteStoreError } from './sqlite/health.js';
import { runMigrations } from './sqlite/migrations.js';

export interface MigrateResult {
  /** The store as a person names it: "SQLite <file>", or "PostgreSQL <URL without its password>". */
  store: string;
  from: number;
  to: number;
}

/**
 * `switchboard db migrate`: brings the store's schema up to this version's and says from which. Safe when several
 * run at once: SQLite migrates in an immediate transaction, PostgreSQL under an advisory lock, so one applies each
 * migration and the others find nothing left to do.
 */
export async function migrateStore(options: { dataDir: string; databaseUrl?: string }): Promise<MigrateResult> {
  if (options.databaseUrl) return (await import('./pg/migrations.js')).migrateDatabase(options.databaseUrl);
  const { db, dbFile } = openDataDirDatabase(options.dataDir);
  try {
    return { store: `SQLite ${dbFile}`, ...runMigrations(db) };
  } catch (error) {
    throw sqliteStoreError(error, dbFile) ?? error;
  } finally {
    db.close();
  }
}
