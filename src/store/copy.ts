import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { InputError } from '../errors.js';
import { loadKey, type KeySource } from './crypto.js';
import { DB_FILE_NAME } from './db.js';
import { sqliteStoreError } from './sqlite-health.js';
import { keyMatches, keyMismatchMessage } from './key-check.js';
import { MIGRATIONS } from './migrations.js';
import { INSTANCE_LEASE_PREFIX } from './types.js';

/** One table as `db copy` moves it: its columns, named alike in both adapters. */
export interface CopiedTable {
  name: string;
  columns: readonly string[];
  /** 0 or 1 in SQLite, boolean in PostgreSQL. */
  booleans?: readonly string[];
  /** `id` is an identity column in PostgreSQL: the ids are kept, and its sequence is moved past them. */
  identity?: true;
  /**
   * The target may already hold rows of this table without holding any data (an instance that opened the empty
   * database wrote its key check): the source's rows replace those with the same value in this column.
   */
  replaceOn?: string;
}

/** Every table `db copy` moves, in an order the foreign keys allow. */
export const COPIED_TABLES: readonly CopiedTable[] = [
  { name: 'meta', columns: ['key', 'value'], replaceOn: 'key' },
  {
    name: 'accounts',
    columns: ['id', 'owner', 'provider', 'label', 'identity', 'is_default', 'status', 'groups_json', 'scopes_json', 'meta_json', 'base_url', 'secret_enc', 'created_at', 'last_used_at'],
    booleans: ['is_default'],
  },
  {
    name: 'triggers',
    columns: ['id', 'owner', 'kind', 'account_id', 'config_json', 'status', 'forward_url', 'secret_enc', 'provider_refs_json', 'state_json', 'fired', 'skipped', 'errors', 'last_event_at', 'last_error', 'created_at',
      'next_poll_at', 'poll_again', 'claimed_by', 'claimed_until'],
    booleans: ['poll_again'],
  },
  { name: 'hooks', columns: ['id', 'provider', 'account_id', 'target', 'remote_id', 'events_json', 'secret_enc', 'created_at'] },
  { name: 'events', columns: ['id', 'trigger_id', 'owner', 'kind', 'dedupe_key', 'occurred_at', 'received_at', 'summary', 'payload_json'], identity: true },
  { name: 'consumers', columns: ['name', 'cursor', 'updated_at'] },
  { name: 'consumer_failures', columns: ['consumer', 'event_id', 'attempts', 'last_error', 'failed_at', 'retry_requested_at'] },
  { name: 'deliveries', columns: ['id', 'event_id', 'trigger_id', 'url', 'state', 'attempts', 'next_attempt_at', 'give_up_at', 'last_status', 'last_error', 'claimed_by', 'claimed_until'], identity: true },
  { name: 'delivery_attempts', columns: ['id', 'delivery_id', 'attempt', 'at', 'status', 'error', 'duration_ms'], identity: true },
  { name: 'sales_cache', columns: ['account_id', 'kind', 'key_hash', 'result_enc', 'created_at'] },
  { name: 'team_users', columns: ['id', 'provider', 'subject', 'login', 'email', 'role', 'disabled', 'created_at', 'last_seen_at'], booleans: ['disabled'] },
  { name: 'account_grants', columns: ['account_id', 'grantee', 'created_at'] },
  { name: 'team_tokens', columns: ['id', 'user_id', 'name', 'scope', 'token_hash', 'created_at', 'expires_at', 'last_used_at', 'revoked_at'] },
];

/** Tables of the SQLite store that `db copy` leaves behind on purpose, and why. A table in neither list fails a test. */
export const SKIPPED_TABLES: Readonly<Record<string, string>> = {
  leases: 'held for seconds by running instances, which take them again on the new store',
  sign_in_states: 'sign-ins waiting minutes for their redirect, which the stopped server would have finished',
  web_sessions: 'Integrations page sessions: a browser signs in again on the new store',
  continuations: 'the rest of cut tool results, kept minutes for callers of the stopped server',
  team_records: "the team authorization server's grants, tokens and registered clients: people sign in again and clients register again",
  team_keys: "the team authorization server's signing and cookie keys, made anew by the first instance on the new store",
};

/** What the PostgreSQL side of a copy reads from the source. */
export interface CopySource {
  tables: readonly CopiedTable[];
  /** The table's rows in batches, in the order SQLite inserted them (so accounts and triggers list alike). */
  batches(table: CopiedTable): Iterable<Array<Record<string, unknown>>>;
  /** The highest id SQLite has given out in the table, deleted rows included: PostgreSQL's next one must be higher. */
  lastId(table: CopiedTable): number;
}

export interface CopyResult {
  /** The SQLite file copied from (left unchanged). */
  from: string;
  /** The target, without its password. */
  to: string;
  /** The target's schema version, migrated before the copy. */
  schema: number;
  /** Rows copied per table, in copy order. */
  counts: Record<string, number>;
  /** Where the key the secrets are encrypted with came from; undefined when the store holds no key check (it was never opened with a key). */
  key?: { source: KeySource; keyFile: string };
}

const BATCH_ROWS = 500;

/**
 * `switchboard db copy`: moves the SQLite store of `fromDataDir` into the PostgreSQL database at `toUrl`, in one
 * transaction there, refused when that database already holds data. Secrets move as they are stored (encrypted),
 * so the PostgreSQL store opens with the same key; the key is proven against the source first. The source is
 * read in one read-only snapshot and not changed.
 */
export async function copyStore(fromDataDir: string, toUrl: string, options: { secretKey?: string } = {}): Promise<CopyResult> {
  const dbFile = join(fromDataDir, DB_FILE_NAME);
  if (!existsSync(dbFile)) {
    throw new InputError(
      `There is no SQLite store in ${fromDataDir} (no ${DB_FILE_NAME}): nothing to copy. Set --data-dir (or SWITCHBOARD_DATA_DIR) to the data directory serve uses.`,
      'data-dir',
    );
  }
  let db: Database.Database;
  try {
    db = new Database(dbFile, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw sqliteStoreError(error, dbFile) ?? error;
  }
  try {
    // One snapshot for everything read below, however long the writing takes.
    db.exec('BEGIN');
    checkSchema(db, dbFile, fromDataDir);
    checkNoServer(db, fromDataDir);
    const key = checkKey(db, dbFile, fromDataDir, options.secretKey);
    const { copyInto } = await import('./pg/copy.js');
    const { to, schema, counts } = await copyInto(toUrl, sqliteSource(db));
    return { from: dbFile, to, schema, counts, key };
  } catch (error) {
    throw sqliteStoreError(error, dbFile) ?? error;
  } finally {
    db.close();
  }
}

function checkSchema(db: Database.Database, dbFile: string, dataDir: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  const newest = MIGRATIONS.at(-1)!.version;
  if (version > newest) {
    throw new InputError(
      `The store ${dbFile} was written by a newer Switchboard (schema ${version}, this one knows ${newest}): copy it with that version. Nothing was copied.`,
      'data-dir',
    );
  }
  if (version < newest) {
    throw new InputError(
      `The store ${dbFile} is at schema ${version}, this Switchboard's is ${newest}: bring it up to date with switchboard db migrate --data-dir ${dataDir} ` +
        '(SWITCHBOARD_DATABASE_URL unset), then copy again. Nothing was copied.',
      'data-dir',
    );
  }
}

function checkNoServer(db: Database.Database, dataDir: string): void {
  if (db.prepare('SELECT 1 FROM leases WHERE name LIKE ? AND expires_at > ?').get(`${INSTANCE_LEASE_PREFIX}%`, Date.now()) === undefined) return;
  throw new InputError(
    `A Switchboard server is running on the store in ${dataDir} (it renewed its presence in the last 20 s): stop every switchboard serve using it, ` +
      'then copy again, so that no event arrives after the copy is taken. Nothing was copied.',
    'data-dir',
  );
}

/** The key must open the source's secrets: instances on the PostgreSQL store will need the very same one. */
function checkKey(db: Database.Database, dbFile: string, dataDir: string, secretKey: string | undefined): CopyResult['key'] {
  const check = (db.prepare("SELECT value FROM meta WHERE key = 'key_check'").get() as { value: string } | undefined)?.value;
  if (check === undefined) return undefined;
  let loaded: ReturnType<typeof loadKey>;
  try {
    loaded = loadKey({ dataDir, secretKey, createKeyFile: false });
  } catch (error) {
    throw new InputError(`${(error as Error).message} Nothing was copied.`, 'SWITCHBOARD_SECRET_KEY');
  }
  if (!keyMatches(loaded.key, check)) throw new InputError(keyMismatchMessage(loaded, dbFile), 'SWITCHBOARD_SECRET_KEY');
  return { source: loaded.source, keyFile: loaded.keyFile };
}

function sqliteSource(db: Database.Database): CopySource {
  return {
    tables: COPIED_TABLES,
    *batches(table) {
      const select = db.prepare(`SELECT rowid AS copy_rowid, ${table.columns.join(', ')} FROM ${table.name} WHERE rowid > ? ORDER BY rowid LIMIT ${BATCH_ROWS}`);
      for (let after = Number.MIN_SAFE_INTEGER; ; ) {
        const rows = select.all(after) as Array<Record<string, unknown> & { copy_rowid: number }>;
        if (!rows.length) return;
        for (const row of rows) for (const column of table.booleans ?? []) row[column] = row[column] === 1;
        yield rows;
        after = rows.at(-1)!.copy_rowid;
      }
    },
    lastId(table) {
      const row = db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table.name) as { seq: number } | undefined;
      return row?.seq ?? 0;
    },
  };
}
