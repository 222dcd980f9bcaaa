import { InputError } from '../../errors.js';
import { assertMigrationsOrdered } from '../migration-rules.js';
import { APPROVAL_CALLS_TABLE, GOVERNANCE_TABLES } from '../governance-rows.js';
import { connect, connectionError, displayUrl, LOCK_SPACE, LOCKS, type Sql } from './connection.js';

export interface PgMigration {
  version: number;
  sql: string;
}

/**
 * Ordered and append-only: never edit a shipped migration, add the next version instead.
 * The tables and columns are named as in SQLite, so a store reads the same in both. Times are ISO 8601 text as
 * the contract passes them (an event's occurred_at is the provider's own string); JSON is `json`, which keeps
 * the text as written (key order included), cast to jsonb where a query looks inside.
 */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE meta (
        key text PRIMARY KEY,
        value text NOT NULL
      );
      CREATE TABLE accounts (
        id text PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        provider text NOT NULL,
        label text NOT NULL,
        identity text,
        is_default boolean NOT NULL DEFAULT false,
        status text NOT NULL DEFAULT 'active',
        groups_json json NOT NULL DEFAULT '[]',
        scopes_json json NOT NULL DEFAULT '[]',
        meta_json json NOT NULL DEFAULT '{}',
        base_url text,
        secret_enc text NOT NULL,
        created_at text NOT NULL,
        last_used_at text
      );
      CREATE UNIQUE INDEX accounts_provider_label ON accounts (provider, lower(label));
      CREATE UNIQUE INDEX accounts_one_default_per_provider ON accounts (provider) WHERE is_default;
      CREATE TABLE triggers (
        id text PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        kind text NOT NULL,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        config_json json NOT NULL DEFAULT '{}',
        status text NOT NULL DEFAULT 'active',
        forward_url text,
        secret_enc text,
        provider_refs_json json NOT NULL DEFAULT '{}',
        state_json json NOT NULL DEFAULT '{}',
        fired integer NOT NULL DEFAULT 0,
        skipped integer NOT NULL DEFAULT 0,
        errors integer NOT NULL DEFAULT 0,
        last_event_at text,
        last_error text,
        created_at text NOT NULL
      );
      CREATE INDEX triggers_account ON triggers (account_id);
      CREATE TABLE events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        trigger_id text NOT NULL,
        kind text NOT NULL,
        dedupe_key text NOT NULL,
        occurred_at text NOT NULL,
        received_at text NOT NULL,
        summary text NOT NULL,
        payload_json json NOT NULL,
        UNIQUE (trigger_id, dedupe_key)
      );
      CREATE INDEX events_trigger ON events (trigger_id, id);
      CREATE TABLE consumers (
        name text PRIMARY KEY,
        cursor bigint NOT NULL DEFAULT 0,
        updated_at text NOT NULL
      );
      CREATE TABLE consumer_failures (
        consumer text NOT NULL,
        event_id bigint NOT NULL REFERENCES events (id) ON DELETE CASCADE,
        attempts integer NOT NULL,
        last_error text NOT NULL,
        failed_at text NOT NULL,
        retry_requested_at text,
        PRIMARY KEY (consumer, event_id)
      );
      CREATE TABLE deliveries (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        event_id bigint NOT NULL,
        trigger_id text NOT NULL,
        url text NOT NULL,
        state text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at bigint NOT NULL,
        give_up_at bigint NOT NULL,
        last_status integer,
        last_error text,
        UNIQUE (event_id, url)
      );
      CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at);
      CREATE TABLE delivery_attempts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        delivery_id bigint NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        at text NOT NULL,
        status integer,
        error text,
        duration_ms integer
      );
      CREATE TABLE leases (
        name text PRIMARY KEY,
        holder text NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE TABLE hooks (
        id text PRIMARY KEY,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        provider text NOT NULL,
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        target text NOT NULL,
        remote_id text,
        events_json json NOT NULL DEFAULT '[]',
        secret_enc text NOT NULL,
        created_at text NOT NULL,
        UNIQUE (provider, account_id, target)
      );
      CREATE TABLE sales_cache (
        account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        kind text NOT NULL,
        key_hash text NOT NULL,
        result_enc text NOT NULL,
        created_at text NOT NULL,
        PRIMARY KEY (account_id, kind, key_hash)
      );
    `,
  },
  {
    version: 2,
    // What any instance may be asked to finish (src/store/pg/short-lived.ts); times are epoch milliseconds on the database's clock.
    sql: `
      CREATE TABLE sign_in_states (
        state_hash text PRIMARY KEY,
        data_enc text NOT NULL,
        expires_at bigint NOT NULL
      );
      CREATE TABLE web_sessions (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id_hash text NOT NULL UNIQUE,
        authed boolean NOT NULL,
        csrf_enc text NOT NULL,
        flash_enc text,
        last_seen bigint NOT NULL
      );
      CREATE INDEX web_sessions_seen ON web_sessions (authed, last_seen);
      CREATE TABLE continuations (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id_hash text NOT NULL UNIQUE,
        tool text NOT NULL,
        data_enc text NOT NULL,
        expires_at bigint NOT NULL
      );
    `,
  },  {
    version: 3,
    sql: `
      ALTER TABLE triggers ADD COLUMN next_poll_at bigint;
      ALTER TABLE triggers ADD COLUMN poll_again boolean NOT NULL DEFAULT false;
      ALTER TABLE triggers ADD COLUMN claimed_by text;
      ALTER TABLE triggers ADD COLUMN claimed_until bigint;
      ALTER TABLE deliveries ADD COLUMN claimed_by text;
      ALTER TABLE deliveries ADD COLUMN claimed_until bigint;
      CREATE INDEX deliveries_claimed ON deliveries (claimed_by) WHERE claimed_by IS NOT NULL;
    `,
  },
  {
    version: 4,
    // Team mode (src/store/pg/team.ts); record expiries are epoch milliseconds on the database's clock.
    sql: `
      CREATE TABLE team_users (
        id text PRIMARY KEY,
        provider text NOT NULL,
        subject text NOT NULL,
        login text NOT NULL,
        email text,
        role text NOT NULL,
        disabled boolean NOT NULL DEFAULT false,
        created_at text NOT NULL,
        last_seen_at text,
        UNIQUE (provider, subject)
      );
      CREATE TABLE team_records (
        kind text NOT NULL,
        id_hash text NOT NULL,
        uid_hash text,
        grant_hash text,
        payload_enc text NOT NULL,
        consumed boolean NOT NULL DEFAULT false,
        expires_at bigint,
        PRIMARY KEY (kind, id_hash)
      );
      CREATE INDEX team_records_uid ON team_records (kind, uid_hash) WHERE uid_hash IS NOT NULL;
      CREATE INDEX team_records_grant ON team_records (grant_hash) WHERE grant_hash IS NOT NULL;
      CREATE INDEX team_records_expiry ON team_records (expires_at) WHERE expires_at IS NOT NULL;
      CREATE TABLE team_keys (
        name text PRIMARY KEY,
        value_enc text NOT NULL
      );
    `,
  },
  {
    version: 5,
    // Each row has an owner (src/store/owner.ts): '' is personal mode's one owner, so existing rows keep working as before.
      // Labels and the default account are per owner and provider; the indexes keep their names.
    sql: `
      ALTER TABLE accounts ADD COLUMN owner text NOT NULL DEFAULT '';
      DROP INDEX accounts_provider_label;
      DROP INDEX accounts_one_default_per_provider;
      CREATE UNIQUE INDEX accounts_provider_label ON accounts (owner, provider, lower(label));
      CREATE UNIQUE INDEX accounts_one_default_per_provider ON accounts (owner, provider) WHERE is_default;
      CREATE TABLE account_grants (
        account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        grantee text NOT NULL,
        created_at text NOT NULL,
        PRIMARY KEY (account_id, grantee)
      );
      CREATE INDEX account_grants_grantee ON account_grants (grantee);
      ALTER TABLE triggers ADD COLUMN owner text NOT NULL DEFAULT '';
      CREATE INDEX triggers_owner ON triggers (owner);
      ALTER TABLE events ADD COLUMN owner text NOT NULL DEFAULT '';
      CREATE INDEX events_owner ON events (owner, id);
      ALTER TABLE web_sessions ADD COLUMN owner text;
    `,
  },
  {
    version: 6,
    sql: `
      CREATE TABLE team_tokens (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES team_users(id) ON DELETE CASCADE,
        name text,
        scope text NOT NULL,
        token_hash text NOT NULL UNIQUE,
        created_at text NOT NULL,
        expires_at text NOT NULL,
        last_used_at text,
        revoked_at text
      );
      CREATE INDEX team_tokens_user ON team_tokens (user_id);
    `,
  },
  {
    version: 7,
    // Whose an authorization record is, so disabling a person removes it. Earlier ones name no one: they go, and people sign in again.
    sql: `
      ALTER TABLE team_records ADD COLUMN owner text;
      CREATE INDEX team_records_owner ON team_records (owner) WHERE owner IS NOT NULL;
      DELETE FROM team_records WHERE kind IN ('Session', 'Interaction', 'Grant', 'AuthorizationCode', 'AccessToken', 'RefreshToken');
    `,
  },
  {
    version: 8,
    // MCP Events subscriptions (src/store/pg/subscriptions.ts), and deliveries to them beside forwards: a forward is
    // unique per (event, url), a subscription delivery per (event, subscription).
    sql: `
      ALTER TABLE triggers ADD COLUMN origin text;
      ALTER TABLE triggers ADD COLUMN subscriptions integer NOT NULL DEFAULT 0;
      CREATE TABLE event_subscriptions (
        id text PRIMARY KEY,
        owner text NOT NULL,
        mode text NOT NULL,
        name text NOT NULL,
        arguments_json json NOT NULL,
        url text,
        trigger_id text NOT NULL REFERENCES triggers (id) ON DELETE CASCADE,
        client_name text,
        secret_enc text,
        refresh_before bigint,
        status text NOT NULL DEFAULT 'active',
        start_event_id bigint NOT NULL,
        last_delivery_at bigint,
        last_error text,
        failed_since bigint,
        failed_attempts integer NOT NULL DEFAULT 0,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX event_subscriptions_trigger ON event_subscriptions (trigger_id);
      CREATE INDEX event_subscriptions_owner ON event_subscriptions (owner);
      CREATE INDEX event_subscriptions_refresh ON event_subscriptions (refresh_before) WHERE refresh_before IS NOT NULL;
      CREATE TABLE verified_callbacks (
        owner text NOT NULL,
        url text NOT NULL,
        until bigint NOT NULL,
        PRIMARY KEY (owner, url)
      );
      ALTER TABLE deliveries ADD COLUMN subscription_id text;
      ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_id_url_key;
      CREATE UNIQUE INDEX deliveries_forward ON deliveries (event_id, url) WHERE subscription_id IS NULL;
      CREATE UNIQUE INDEX deliveries_subscription ON deliveries (subscription_id, event_id) WHERE subscription_id IS NOT NULL;
      CREATE INDEX deliveries_event ON deliveries (event_id);
      CREATE INDEX deliveries_owed ON deliveries (subscription_id, event_id) WHERE state = 'pending' AND subscription_id IS NOT NULL;
    `,
  },
  {
    version: 9,
    // The audit trail (src/store/pg/audit.ts): one chained record per tool call or administrative act.
    sql: `
      CREATE TABLE audit (
        seq bigint PRIMARY KEY,
        at text NOT NULL,
        owner text NOT NULL,
        auth text NOT NULL,
        client_name text,
        client_id text,
        action text NOT NULL,
        tool text,
        effect text,
        account_id text,
        target text,
        outcome text NOT NULL,
        error_class text,
        provider_status integer,
        duration_ms integer,
        approval_id text,
        prev_hash text NOT NULL,
        hash text NOT NULL
      );
      CREATE INDEX audit_owner ON audit (owner, seq);
      CREATE INDEX audit_at ON audit (at);
      CREATE TABLE audit_chain (
        id integer PRIMARY KEY CHECK (id = 1),
        key_enc text,
        head_seq bigint NOT NULL DEFAULT 0,
        head_hash text NOT NULL DEFAULT '',
        anchor_seq bigint NOT NULL DEFAULT 0,
        anchor_hash text NOT NULL DEFAULT ''
      );
      INSERT INTO audit_chain (id) VALUES (1);
    `,
  },
  {
    version: 10,
    // The governance policy and the approvals calls wait on (src/store/pg/governance.ts).
    sql: GOVERNANCE_TABLES,
  },
  {
    version: 11,
    // The budgets' usage counters (src/store/pg/budgets.ts): one row per person, account, meter and window.
    sql: `
      CREATE TABLE budget_usage (
        owner text NOT NULL,
        account_id text NOT NULL,
        meter text NOT NULL,
        window_start text NOT NULL,
        used bigint NOT NULL,
        updated_at text NOT NULL,
        PRIMARY KEY (owner, account_id, meter, window_start)
      );
      CREATE INDEX budget_usage_window ON budget_usage (window_start);
    `,
  },
  {
    version: 12,
    // The calls that tasks wait on, encrypted (src/store/pg/governance.ts).
    sql: APPROVAL_CALLS_TABLE,
  },
];

/**
 * Brings the schema up to the newest migration in one transaction, under an advisory lock: instances starting
 * together wait for the first, then find nothing left to do. The applied versions are rows of schema_migrations.
 */
export async function migrate(sql: Sql, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<{ from: number; to: number }> {
  assertMigrationsOrdered(migrations);
  const newest = migrations.at(-1)?.version ?? 0;
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${LOCK_SPACE}, ${LOCKS.migrations})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`;
    const [{ current }] = await tx<[{ current: number }]>`SELECT COALESCE(max(version), 0) AS current FROM schema_migrations`;
    if (current > newest) {
      throw new InputError(
        `The database was written by a newer Switchboard (schema ${current}, this one knows ${newest}); ` +
          'upgrade Switchboard or use another database (SWITCHBOARD_DATABASE_URL).',
        'database-url',
      );
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await tx.unsafe(migration.sql);
      await tx`INSERT INTO schema_migrations (version) VALUES (${migration.version})`;
    }
    return { from: current, to: newest };
  });
}

/** `switchboard db migrate` on a PostgreSQL store: its own connection, closed when done. */
export async function migrateDatabase(url: string): Promise<{ store: string; from: number; to: number }> {
  const sql = connect(url);
  try {
    return { store: `PostgreSQL ${displayUrl(url)}`, ...(await migrate(sql)) };
  } catch (error) {
    throw connectionError(error, url);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
