import type { AccountStore, HookStore, SalesCacheStore } from './types/accounts.js';
import type { EventStore, TriggerStore, WorkStore } from './types/triggers.js';
import type { LeaseStore } from './types/leases.js';
import type { ContinuationStore, SignInStore, WebSessionStore } from './types/short-lived.js';
import type { TeamStore } from './types/team.js';
import type { SubscriptionStore } from './types/subscriptions.js';
import type { BudgetUsageStore } from './types/budgets.js';
import type { ApprovalStore, PolicyStore } from './types/governance.js';
import type { AuditStore } from './types/audit.js';
import type { StoreHealth } from './health.js';
import type { Redactor } from '../redact.js';

// Each area's types live in ./types/; every caller imports them from here.
export * from './types/accounts.js';
export * from './types/triggers.js';
export * from './types/leases.js';
export * from './types/short-lived.js';
export * from './types/team.js';
export * from './types/subscriptions.js';
export * from './types/budgets.js';
export * from './types/governance.js';
export * from './types/audit.js';
export type { StoreHealth } from './health.js';
// Owners belong to the contract, and importing them loads no adapter (the stdio server answers tools/list before one loads).
export { EVERYONE, ownEvents, ownedConsumer, PERSONAL_OWNER, type Owner } from './owner.js';

/** What every store adapter (SQLite, PostgreSQL) offers. */
export interface Store {
  accounts: AccountStore;
  triggers: TriggerStore;
  events: EventStore;
  /** MCP Events subscriptions, each on a trigger. */
  subscriptions: SubscriptionStore;
  hooks: HookStore;
  salesCache: SalesCacheStore;
  work: WorkStore;
  leases: LeaseStore;
  signIns: SignInStore;
  webSessions: WebSessionStore;
  continuations: ContinuationStore;
  /** Team mode: who may sign in, and the state of the built-in authorization server. */
  team: TeamStore;
  /** The budgets' usage counters, per person, account and window (every owner's: each key names its owner). */
  budgets: BudgetUsageStore;
  /** The governance policy every instance reads (unless SWITCHBOARD_POLICY names a file). */
  policy: PolicyStore;
  /** Calls waiting for a person's yes, and the decisions they wait on. */
  approvals: ApprovalStore;
  /** The audit trail: every tool call and administrative act, chained; an owner's view lists that owner's records only. */
  audit: AuditStore;
  /** Whether the store can serve (reachable, intact, schema current), from its own errors and cheap checks. */
  health: StoreHealth;
  /**
   * The same store seen as one owner sees it: accounts, triggers, events, consumers and sales lookups are that owner's
   * (and accounts shared with them), in every query. The store as opened is every owner's: the server's own work.
   */
  ownedBy(owner: string): Store;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** Holds the SQLite file, and the key file when SWITCHBOARD_SECRET_KEY is not set. */
  dataDir: string;
  /** SWITCHBOARD_DATABASE_URL: a postgres:// URL; the store is then that PostgreSQL database, shared by every instance using it. */
  databaseUrl?: string;
  /** SWITCHBOARD_SECRET_KEY: 32 bytes as hex or base64, or a passphrase. Without it, `<dataDir>/secret.key` is used. */
  secretKey?: string;
  /** Receives every secret `accounts.resolve` decrypts. */
  redactor?: Redactor;
}
