import type { OpenStoreOptions, Store } from './types.js';
import { openSqliteStore, type SqliteStore } from './sqlite/index.js';

/** The PostgreSQL store when a database URL is given, else the SQLite store in the data dir. */
export function openStore(options: OpenStoreOptions & { databaseUrl?: undefined }): Promise<SqliteStore>;
export function openStore(options: OpenStoreOptions): Promise<Store>;
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (!options.databaseUrl) return openSqliteStore(options);
  // Loaded only when asked for: a SQLite install never needs the PostgreSQL client.
  const { openPgStore } = await import('./pg/index.js');
  return openPgStore({ ...options, databaseUrl: options.databaseUrl });
}

export { DB_FILE_NAME, makeDataDir } from './sqlite/database.js';
export type { SqliteStore } from './sqlite/index.js';
export { MIGRATIONS, runMigrations, type Migration } from './sqlite/migrations.js';
export { rotateSecrets } from './rotate.js';
export { migrateStore, type MigrateResult } from './schema.js';
export { copyStore, type CopyResult } from './copy.js';
export { COPIED_TABLES, SKIPPED_TABLES, type CopiedTable } from './copy-tables.js';
export * from './types.js';
export { backupSqlite, type BackupResult, type StoreCounts } from './sqlite/backup.js';
export { restoreSqlite, type RestoreResult } from './sqlite/restore.js';
