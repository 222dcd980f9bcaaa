export { openStore, DB_FILE_NAME, type OpenStoreOptions, type SqliteStore } from './db.js';
export { MIGRATIONS, runMigrations, type Migration } from './migrations.js';
export { rotateSecrets } from './rotate.js';
export { migrateStore, type MigrateResult } from './schema.js';
export { copyStore, type CopyResult } from './copy.js';
export { COPIED_TABLES, SKIPPED_TABLES, type CopiedTable } from './copy-tables.js';
export * from './types.js';
