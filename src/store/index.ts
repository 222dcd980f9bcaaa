export { openStore, DB_FILE_NAME, type OpenStoreOptions, type SqliteStore } from './db.js';
export { MIGRATIONS, runMigrations, type Migration } from './migrations.js';
export { loadKey, encryptSecret, decryptSecret, KEY_FILE_NAME, SecretDecryptionError, type LoadedKey } from './crypto.js';
export { SqliteAccountStore } from './accounts.js';
export { rotateSecrets, type RotateOptions, type RotateResult } from './rotate.js';
export * from './types.js';
