import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DB_FILE_NAME, type Store } from '../../src/store/index.js';

/*
 * States a test needs that the Store contract does not make: a store of another schema version, a lease's holder,
 * back-dated events, damaged pages. Each writes or reads the SQLite file of a data dir over its own short connection; tests outside
 * test/store/ reach the database through these only.
 */

function withFile<T>(dataDir: string, use: (db: Database.Database) => T, options?: Database.Options): T {
  const db = new Database(join(dataDir, DB_FILE_NAME), options);
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/** The schema version the store's file says it has. */
export function schemaVersion(dataDir: string): number {
  return withFile(dataDir, (db) => db.pragma('user_version', { simple: true }) as number, { readonly: true });
}

/** Marks the store as written by another Switchboard version (a newer one, to see it refused). */
export function setSchemaVersion(dataDir: string, version: number): void {
  withFile(dataDir, (db) => void db.pragma(`user_version = ${version}`));
}

/** Turns a current store into what schema 6 left: no base_url column yet, nor what later versions added. */
export function rollBackToSchema6(dataDir: string): void {
  withFile(dataDir, (raw) => {
    raw.exec('DROP TABLE audit; DROP TABLE audit_chain; DROP TABLE policy; DROP TABLE approvals; DROP TABLE approval_calls; DROP TABLE budget_usage;');
    raw.exec('DROP TABLE event_subscriptions; DROP TABLE verified_callbacks; ALTER TABLE triggers DROP COLUMN origin; ALTER TABLE triggers DROP COLUMN subscriptions;');
    raw.exec('DROP INDEX accounts_provider_label; DROP INDEX accounts_one_default_per_provider; DROP TABLE account_grants; ALTER TABLE accounts DROP COLUMN owner;');
    raw.exec('CREATE UNIQUE INDEX accounts_provider_label ON accounts (provider, lower(label)); CREATE UNIQUE INDEX accounts_one_default_per_provider ON accounts (provider) WHERE is_default = 1;');
    raw.exec('DROP INDEX triggers_owner; ALTER TABLE triggers DROP COLUMN owner; DROP INDEX events_owner; ALTER TABLE events DROP COLUMN owner;');
    raw.exec('ALTER TABLE accounts DROP COLUMN base_url; DROP TABLE sign_in_states; DROP TABLE web_sessions; DROP TABLE continuations;');
    raw.exec('DROP INDEX deliveries_claimed; DROP TABLE team_tokens; DROP TABLE team_users; DROP TABLE team_records; DROP TABLE team_keys;');
    for (const column of ['next_poll_at', 'poll_again', 'claimed_by', 'claimed_until']) raw.exec(`ALTER TABLE triggers DROP COLUMN ${column}`);
    for (const column of ['claimed_by', 'claimed_until']) raw.exec(`ALTER TABLE deliveries DROP COLUMN ${column}`);
    raw.pragma('user_version = 6');
  });
}

/** Who holds the named lease now; '' when nobody does. */
export function leaseHolder(dataDir: string, name: string): string {
  return withFile(dataDir, (db) => (db.prepare('SELECT holder FROM leases WHERE name = ?').get(name) as { holder: string } | undefined)?.holder ?? '');
}

/** Every event stored so far as received at `receivedAt` (ISO 8601): events a log started later did not see arrive. */
export function backdateEvents(dataDir: string, receivedAt: string): void {
  withFile(dataDir, (db) => void db.prepare('UPDATE events SET received_at = ?').run(receivedAt));
}

/**
 * Damages the accounts table of a store a server is serving: another connection moves every page into the file, two
 * pages are overwritten, and a write of its own makes the server's connection read pages from the file again (its
 * cache holds the good ones).
 */
export function damagePagesUnderServer(dataDir: string): void {
  const page = 4096;
  const dbFile = join(dataDir, DB_FILE_NAME);
  withFile(dataDir, (other) => {
    other.pragma('wal_checkpoint(TRUNCATE)');
    const fd = openSync(dbFile, 'r+');
    writeSync(fd, Buffer.alloc(2 * page, 0xa5), 0, 2 * page, 3 * page);
    closeSync(fd);
    other.prepare("UPDATE meta SET value = value WHERE key = 'key_check'").run();
  });
}

/** Drops every cached sales lookup, through the contract: each account's entries made before the end of time. */
export async function emptySalesCache(store: Store): Promise<void> {
  for (const account of await store.accounts.list()) await store.salesCache.purge(account.id, '9999-12-31T23:59:59.999Z');
}
