export { openStore, DB_FILE_NAME, type OpenStoreOptions, type SqliteStore } from './db.js';
export { MIGRATIONS, runMigrations, type Migration } from './migrations.js';
export { rotateSecrets } from './rotate.js';
export * from './types.js';
