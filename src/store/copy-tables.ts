import { AUDIT_COLUMNS } from './audit-chain.js';

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
      'next_poll_at', 'poll_again', 'claimed_by', 'claimed_until', 'origin', 'subscriptions'],
    booleans: ['poll_again'],
  },
  { name: 'hooks', columns: ['id', 'provider', 'account_id', 'target', 'remote_id', 'events_json', 'secret_enc', 'created_at'] },
  { name: 'events', columns: ['id', 'trigger_id', 'owner', 'kind', 'dedupe_key', 'occurred_at', 'received_at', 'summary', 'payload_json'], identity: true },
  { name: 'consumers', columns: ['name', 'cursor', 'updated_at'] },
  { name: 'consumer_failures', columns: ['consumer', 'event_id', 'attempts', 'last_error', 'failed_at', 'retry_requested_at'] },
  {
    name: 'event_subscriptions',
    columns: ['id', 'owner', 'mode', 'name', 'arguments_json', 'url', 'trigger_id', 'client_name', 'secret_enc', 'refresh_before', 'status', 'start_event_id',
      'last_delivery_at', 'last_error', 'failed_since', 'failed_attempts', 'created_at', 'updated_at'],
  },
  {
    name: 'deliveries',
    columns: ['id', 'event_id', 'trigger_id', 'url', 'state', 'attempts', 'next_attempt_at', 'give_up_at', 'last_status', 'last_error', 'claimed_by', 'claimed_until', 'subscription_id'],
    identity: true,
  },
  { name: 'delivery_attempts', columns: ['id', 'delivery_id', 'attempt', 'at', 'status', 'error', 'duration_ms'], identity: true },
  { name: 'sales_cache', columns: ['account_id', 'kind', 'key_hash', 'result_enc', 'created_at'] },
  { name: 'team_users', columns: ['id', 'provider', 'subject', 'login', 'email', 'role', 'disabled', 'created_at', 'last_seen_at'], booleans: ['disabled'] },
  { name: 'account_grants', columns: ['account_id', 'grantee', 'created_at'] },
  { name: 'budget_usage', columns: ['owner', 'account_id', 'meter', 'window_start', 'used', 'updated_at'] },
  { name: 'policy', columns: ['id', 'text', 'updated_at', 'updated_by'] },
  { name: 'team_tokens', columns: ['id', 'user_id', 'name', 'scope', 'token_hash', 'created_at', 'expires_at', 'last_used_at', 'revoked_at'] },
  { name: 'audit', columns: AUDIT_COLUMNS },
  // The row every empty store makes in its migration: the source's chain head, anchor and key replace it.
  { name: 'audit_chain', columns: ['id', 'key_enc', 'head_seq', 'head_hash', 'anchor_seq', 'anchor_hash'], replaceOn: 'id' },
];

/** Tables of the SQLite store that `db copy` leaves behind on purpose, and why. A table in neither list fails a test. */
export const SKIPPED_TABLES: Readonly<Record<string, string>> = {
  leases: 'held for seconds by running instances, which take them again on the new store',
  sign_in_states: 'sign-ins waiting minutes for their redirect, which the stopped server would have finished',
  web_sessions: 'Integrations page sessions: a browser signs in again on the new store',
  continuations: 'the rest of cut tool results, kept minutes for callers of the stopped server',
  team_records: "the team authorization server's grants, tokens and registered clients: people sign in again and clients register again",
  team_keys: "the team authorization server's signing and cookie keys, made anew by the first instance on the new store",
  approvals: 'calls waiting minutes or hours for a yes: an agent whose call still waits asks again on the new store',
  approval_calls: 'the calls tasks wait on, kept with the approvals they wait for, which stay behind too',
  verified_callbacks: 'callback URLs that answered a challenge, cached for a while: the next subscription to one is challenged again',
};

/** What the PostgreSQL side of a copy reads from the source. */
export interface CopySource {
  tables: readonly CopiedTable[];
  /** The table's rows in batches, in the order SQLite inserted them (so accounts and triggers list alike). */
  batches(table: CopiedTable): Iterable<Array<Record<string, unknown>>>;
  /** The highest id SQLite has given out in the table, deleted rows included: PostgreSQL's next one must be higher. */
  lastId(table: CopiedTable): number;
}
