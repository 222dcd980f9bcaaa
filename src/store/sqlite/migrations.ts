import type Database from 'better-sqlite3';
import { InputError } from '../../errors.js';
import { assertMigrationsOrdered, type MigrationResult } from '../migration-rules.js';
import { DELIVERY_TABLES, EVENT_SUBSCRIPTION_TABLES } from './migration-14.js';
import { AUDIT_TABLES } from './migration-15.js';
import { APPROVAL_CALLS_TABLE, GOVERNANCE_TABLES } from '../governance-rows.js';

export interface Migration {
  version: number;
  up(db: Database.Database): void;
}

/** Ordered and append-only: never edit a shipped migration, add the next version instead. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up(db) {
      db.exec(`
        CREATE TABLE meta (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL
        );
        CREATE TABLE accounts (
          id TEXT PRIMARY KEY,
          provider TEXT NOT NULL,
          label TEXT NOT NULL,
          identity TEXT,
          is_default INTEGER NOT NULL DEFAULT 0,
          status TEXT NOT NULL DEFAULT 'active',
          groups_json TEXT NOT NULL DEFAULT '[]',
          scopes_json TEXT NOT NULL DEFAULT '[]',
          meta_json TEXT NOT NULL DEFAULT '{}',
          secret_enc TEXT NOT NULL,
          created_at TEXT NOT NULL,
          last_used_at TEXT
        );
        CREATE UNIQUE INDEX accounts_provider_label ON accounts (provider, lower(label));
        CREATE UNIQUE INDEX accounts_one_default_per_provider ON accounts (provider) WHERE is_default = 1;
      `);
    },
  },
  {
    version: 2,
    up(db) {
      db.exec(`
        CREATE TABLE triggers (
          id TEXT PRIMARY KEY,
          kind TEXT NOT NULL,
          account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          config_json TEXT NOT NULL DEFAULT '{}',
          status TEXT NOT NULL DEFAULT 'active',
          forward_url TEXT,
          secret_enc TEXT,
          provider_refs_json TEXT NOT NULL DEFAULT '{}',
          state_json TEXT NOT NULL DEFAULT '{}',
          fired INTEGER NOT NULL DEFAULT 0,
          skipped INTEGER NOT NULL DEFAULT 0,
          errors INTEGER NOT NULL DEFAULT 0,
          last_event_at TEXT,
          last_error TEXT,
          created_at TEXT NOT NULL
        );
        CREATE TABLE events (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          trigger_id TEXT NOT NULL,
          kind TEXT NOT NULL,
          dedupe_key TEXT NOT NULL,
          occurred_at TEXT NOT NULL,
          received_at TEXT NOT NULL,
          summary TEXT NOT NULL,
          payload_json TEXT NOT NULL,
          UNIQUE (trigger_id, dedupe_key)
        );
        CREATE INDEX events_trigger ON events (trigger_id, id);
        CREATE TABLE consumers (
          name TEXT PRIMARY KEY,
          cursor INTEGER NOT NULL DEFAULT 0,
          updated_at TEXT NOT NULL
        );
        CREATE TABLE deliveries (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          event_id INTEGER NOT NULL,
          trigger_id TEXT NOT NULL,
          url TEXT NOT NULL,
          state TEXT NOT NULL DEFAULT 'pending',
          attempts INTEGER NOT NULL DEFAULT 0,
          next_attempt_at INTEGER NOT NULL,
          give_up_at INTEGER NOT NULL,
          last_status INTEGER,
          last_error TEXT,
          UNIQUE (event_id, url)
        );
        CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);
        CREATE TABLE delivery_attempts (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          delivery_id INTEGER NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
          attempt INTEGER NOT NULL,
          at TEXT NOT NULL,
          status INTEGER,
          error TEXT,
          duration_ms INTEGER
        );
        CREATE TABLE leases (
          name TEXT PRIMARY KEY,
          holder TEXT NOT NULL,
          expires_at INTEGER NOT NULL
        );
      `);
    },
  },
  {
    version: 3,
    up(db) {
      db.exec(`
        CREATE TABLE hooks (
          id TEXT PRIMARY KEY,
          provider TEXT NOT NULL,
          account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          target TEXT NOT NULL,
          remote_id TEXT,
          events_json TEXT NOT NULL DEFAULT '[]',
          secret_enc TEXT NOT NULL,
          created_at TEXT NOT NULL,
          UNIQUE (provider, account_id, target)
        );
      `);
    },
  },
  {
    version: 4,
    up(db) {
      // Successful sales lookups, so a repeat within the cache period costs no credits (src/store/sales-cache.ts).
      db.exec(`
        CREATE TABLE sales_cache (
          account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          kind TEXT NOT NULL,
          key TEXT NOT NULL,
          result_json TEXT NOT NULL,
          created_at TEXT NOT NULL,
          PRIMARY KEY (account_id, kind, key)
        );
      `);
    },
  },
  {
    version: 5,
    up(db) {
      // Events a consumer (events tail --exec) gave up on after its attempts; kept so they can be listed and retried.
      db.exec(`
        CREATE TABLE consumer_failures (
          consumer TEXT NOT NULL,
          event_id INTEGER NOT NULL REFERENCES events(id) ON DELETE CASCADE,
          attempts INTEGER NOT NULL,
          last_error TEXT NOT NULL,
          failed_at TEXT NOT NULL,
          retry_requested_at TEXT,
          PRIMARY KEY (consumer, event_id)
        );
      `);
    },
  },
  {
    version: 6,
    up(db) {
      // The cache held names, emails and phones in plain text: drop those rows with their table, zeroing the freed
      // pages so they do not linger in the file, and keep results encrypted and identifiers hashed from now on.
      const secureDelete = db.pragma('secure_delete', { simple: true }) as number;
      db.pragma('secure_delete = ON');
      db.exec(`
        DROP TABLE sales_cache;
        CREATE TABLE sales_cache (
          account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          kind TEXT NOT NULL,
          key_hash TEXT NOT NULL,
          result_enc TEXT NOT NULL,
          created_at TEXT NOT NULL,
          PRIMARY KEY (account_id, kind, key_hash)
        );
      `);
      db.pragma(`secure_delete = ${secureDelete}`);
    },
  },
  {
    version: 7,
    up(db) {
      // An account's own API base URL (GitHub Enterprise Server, a national cloud); NULL follows the connector's.
      db.exec('ALTER TABLE accounts ADD COLUMN base_url TEXT');
    },
  },
  {
    version: 8,
    up(db) {
      // What any process on the store may be asked to finish (src/store/short-lived.ts); times are epoch milliseconds.
      db.exec(`
        CREATE TABLE sign_in_states (
          state_hash TEXT PRIMARY KEY,
          data_enc TEXT NOT NULL,
          expires_at INTEGER NOT NULL
        );
        CREATE TABLE web_sessions (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          id_hash TEXT NOT NULL UNIQUE,
          authed INTEGER NOT NULL,
          csrf_enc TEXT NOT NULL,
          flash_enc TEXT,
          last_seen INTEGER NOT NULL
        );
        CREATE INDEX web_sessions_seen ON web_sessions (authed, last_seen);
        CREATE TABLE continuations (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          id_hash TEXT NOT NULL UNIQUE,
          tool TEXT NOT NULL,
          data_enc TEXT NOT NULL,
          expires_at INTEGER NOT NULL
        );
      `);
    },
  },  {
    version: 9,
    up(db) {
      // Polls and forwards are claimed by whichever process asks first (WorkStore); a NULL next_poll_at is due now.
      db.exec(`
        ALTER TABLE triggers ADD COLUMN next_poll_at INTEGER;
        ALTER TABLE triggers ADD COLUMN poll_again INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE triggers ADD COLUMN claimed_by TEXT;
        ALTER TABLE triggers ADD COLUMN claimed_until INTEGER;
        ALTER TABLE deliveries ADD COLUMN claimed_by TEXT;
        ALTER TABLE deliveries ADD COLUMN claimed_until INTEGER;
        CREATE INDEX deliveries_claimed ON deliveries (claimed_by) WHERE claimed_by IS NOT NULL;
      `);
    },
  },
  {
    version: 10,
    up(db) {
      // Team mode (src/store/team.ts): who signed in, the authorization server's records, and its shared keys.
      db.exec(`
        CREATE TABLE team_users (
          id TEXT PRIMARY KEY,
          provider TEXT NOT NULL,
          subject TEXT NOT NULL,
          login TEXT NOT NULL,
          email TEXT,
          role TEXT NOT NULL,
          disabled INTEGER NOT NULL DEFAULT 0,
          created_at TEXT NOT NULL,
          last_seen_at TEXT,
          UNIQUE (provider, subject)
        );
        CREATE TABLE team_records (
          kind TEXT NOT NULL,
          id_hash TEXT NOT NULL,
          uid_hash TEXT,
          grant_hash TEXT,
          payload_enc TEXT NOT NULL,
          consumed INTEGER NOT NULL DEFAULT 0,
          expires_at INTEGER,
          PRIMARY KEY (kind, id_hash)
        );
        CREATE INDEX team_records_uid ON team_records (kind, uid_hash) WHERE uid_hash IS NOT NULL;
        CREATE INDEX team_records_grant ON team_records (grant_hash) WHERE grant_hash IS NOT NULL;
        CREATE INDEX team_records_expiry ON team_records (expires_at) WHERE expires_at IS NOT NULL;
        CREATE TABLE team_keys (
          name TEXT PRIMARY KEY,
          value_enc TEXT NOT NULL
        );
      `);
    },
  },
  {
    version: 11,
    up(db) {
      // Each row has an owner (src/store/owner.ts): '' is personal mode's one owner, so existing rows keep working as before.
      // Labels and the default account are per owner and provider; the indexes keep their names.
      db.exec(`
        ALTER TABLE accounts ADD COLUMN owner TEXT NOT NULL DEFAULT '';
        DROP INDEX accounts_provider_label;
        DROP INDEX accounts_one_default_per_provider;
        CREATE UNIQUE INDEX accounts_provider_label ON accounts (owner, provider, lower(label));
        CREATE UNIQUE INDEX accounts_one_default_per_provider ON accounts (owner, provider) WHERE is_default = 1;
        CREATE TABLE account_grants (
          account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
          grantee TEXT NOT NULL,
          created_at TEXT NOT NULL,
          PRIMARY KEY (account_id, grantee)
        );
        CREATE INDEX account_grants_grantee ON account_grants (grantee);
        ALTER TABLE triggers ADD COLUMN owner TEXT NOT NULL DEFAULT '';
        CREATE INDEX triggers_owner ON triggers (owner);
        ALTER TABLE events ADD COLUMN owner TEXT NOT NULL DEFAULT '';
        CREATE INDEX events_owner ON events (owner, id);
        ALTER TABLE web_sessions ADD COLUMN owner TEXT;
      `);
    },
  },
  {
    version: 12,
    up(db) {
      db.exec(`
        CREATE TABLE team_tokens (
          id TEXT PRIMARY KEY,
          user_id TEXT NOT NULL REFERENCES team_users(id) ON DELETE CASCADE,
          name TEXT,
          scope TEXT NOT NULL,
          token_hash TEXT NOT NULL UNIQUE,
          created_at TEXT NOT NULL,
          expires_at TEXT NOT NULL,
          last_used_at TEXT,
          revoked_at TEXT
        );
        CREATE INDEX team_tokens_user ON team_tokens (user_id);
      `);
    },
  },
  {
    version: 13,
    up(db) {
      // Whose an authorization record is, so disabling a person removes it. Earlier ones name no one: they go, and people sign in again.
      db.exec(`
        ALTER TABLE team_records ADD COLUMN owner TEXT;
        CREATE INDEX team_records_owner ON team_records (owner) WHERE owner IS NOT NULL;
        DELETE FROM team_records WHERE kind IN ('Session', 'Interaction', 'Grant', 'AuthorizationCode', 'AccessToken', 'RefreshToken');
      `);
    },
  },
  {
    version: 14,
    up(db) {
      // MCP Events subscriptions (src/store/sqlite/subscriptions.ts), and deliveries to them beside forwards: a forward is
      // unique per (event, url), a subscription delivery per (event, subscription). SQLite cannot drop a table's UNIQUE,
      // so deliveries and their attempts are rebuilt, keeping their ids and the id sequence.
      db.exec(`
        ALTER TABLE triggers ADD COLUMN origin TEXT;
        ALTER TABLE triggers ADD COLUMN subscriptions INTEGER NOT NULL DEFAULT 0;
        ${EVENT_SUBSCRIPTION_TABLES}
      `);
      const sequences = db.prepare("SELECT name, seq FROM sqlite_sequence WHERE name IN ('deliveries', 'delivery_attempts')").all() as Array<{ name: string; seq: number }>;
      db.exec(`
        CREATE TABLE deliveries_v13 AS SELECT * FROM deliveries;
        CREATE TABLE delivery_attempts_v13 AS SELECT * FROM delivery_attempts;
        DROP TABLE delivery_attempts;
        DROP TABLE deliveries;
        ${DELIVERY_TABLES}
        INSERT INTO deliveries (id, event_id, trigger_id, url, state, attempts, next_attempt_at, give_up_at, last_status, last_error, claimed_by, claimed_until)
          SELECT id, event_id, trigger_id, url, state, attempts, next_attempt_at, give_up_at, last_status, last_error, claimed_by, claimed_until FROM deliveries_v13 ORDER BY id;
        INSERT INTO delivery_attempts (id, delivery_id, attempt, at, status, error, duration_ms)
          SELECT id, delivery_id, attempt, at, status, error, duration_ms FROM delivery_attempts_v13 ORDER BY id;
        DROP TABLE deliveries_v13;
        DROP TABLE delivery_attempts_v13;
      `);
      const restore = db.prepare('UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = ?');
      const add = db.prepare('INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)');
      for (const { name, seq } of sequences) {
        restore.run(seq, name);
        add.run(name, seq, name);
      }
    },
  },
  {
    version: 15,
    up(db) {
      db.exec(AUDIT_TABLES);
    },
  },
  {
    version: 16,
    up(db) {
      // The governance policy and the approvals calls wait on (src/store/sqlite/governance.ts).
      db.exec(GOVERNANCE_TABLES);
    },
  },
  {
    version: 17,
    // The budgets' usage counters (src/store/sqlite/budgets.ts): one row per person, account, meter and window.
    up(db) {
      db.exec(`
        CREATE TABLE budget_usage (
          owner TEXT NOT NULL,
          account_id TEXT NOT NULL,
          meter TEXT NOT NULL,
          window_start TEXT NOT NULL,
          used INTEGER NOT NULL,
          updated_at TEXT NOT NULL,
          PRIMARY KEY (owner, account_id, meter, window_start)
        );
        CREATE INDEX budget_usage_window ON budget_usage (window_start);
      `);
    },
  },
  {
    version: 18,
    // The calls that tasks wait on, encrypted (src/store/sqlite/governance.ts).
    up(db) {
      db.exec(APPROVAL_CALLS_TABLE);
    },
  },
];

/** Brings the schema up to the newest migration in one immediate transaction, so concurrent openers serialise. */
export function runMigrations(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): MigrationResult {
  assertMigrationsOrdered(migrations);
  const newest = migrations.at(-1)?.version ?? 0;
  const migrate = db.transaction((): MigrationResult => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > newest) {
      throw new InputError(
        `The database ${db.name} was written by a newer Switchboard (schema ${current}, this one knows ${newest}); ` +
          'upgrade Switchboard or use another --data-dir.',
        'data-dir',
      );
    }
    for (const migration of migrations) if (migration.version > current) migration.up(db);
    if (current !== newest) db.pragma(`user_version = ${newest}`);
    return { from: current, to: newest };
  });
  return migrate.immediate();
}
