import type { Provider } from '../../providers.js';
import type { Trigger } from './triggers.js';

/** Accounts at the providers, the webhooks made at them, and the sales lookups kept per account. */

export { PROVIDERS, type Provider } from '../../providers.js';

export type AccountStatus = 'active' | 'needs_reconnect';

/** A connected identity at a provider. Never carries its secret. */
export interface Account {
  id: string;
  provider: Provider;
  label: string;
  /** Who the provider says this is: an email address, a login or a user name. */
  identity: string | null;
  isDefault: boolean;
  status: AccountStatus;
  /** Permission groups granted (Outlook: mail, calendar, contacts, mailbox-settings, team-collaboration). */
  groups: string[];
  scopes: string[];
  /** Provider specifics that are not secret: teamId (Vercel), dialect (sales), tenant (Outlook). */
  meta: Record<string, string>;
  /** The account's own API base URL (GitHub Enterprise Server, a national cloud); null uses the connector's. */
  baseUrl: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  /** Someone else's account shared with the view's owner: they may use it, not change or remove it. Absent on their own. */
  shared?: true;
}

export interface AccountSecret {
  kind: 'token' | 'api_key' | 'oauth';
  token?: string;
  apiKey?: string;
  refreshToken?: string;
  /** Epoch milliseconds at which `token` expires. */
  expiresAt?: number;
}

export interface NewAccount {
  provider: Provider;
  label?: string;
  identity?: string | null;
  groups?: string[];
  scopes?: string[];
  meta?: Record<string, string>;
  /** Fixed when the account is added: its calls and credentials go to this host only. */
  baseUrl?: string | null;
  secret: AccountSecret;
}

export interface AccountStore {
  list(filter?: { provider?: Provider; group?: string }): Promise<Account[]>;
  /** By id, or by label (case-insensitive) within the provider when one is given. */
  find(ref: string, provider?: Provider): Promise<Account | undefined>;
  /**
   * The account a tool call uses: `ref` (id or label), else the provider's default, else its only account.
   * Throws AccountError naming the labels to choose from when that is ambiguous or empty.
   */
  resolve(provider: Provider, ref?: string): Promise<{ account: Account; secret: AccountSecret }>;
  /** Adds an account; the label defaults to the identity; the first account of a provider becomes its default. */
  add(input: NewAccount): Promise<Account>;
  /** By id or label; a label shared by several providers needs `provider`. */
  remove(ref: string, provider?: Provider): Promise<Account>;
  rename(ref: string, label: string): Promise<Account>;
  setDefault(ref: string): Promise<Account>;
  /** Signs an existing account in again (new secret, identity, groups, scopes, meta merged), making it active; keeps id, label and triggers. */
  reconnect(id: string, input: Omit<NewAccount, 'provider' | 'label'>): Promise<Account>;
  updateSecret(id: string, secret: AccountSecret): Promise<void>;
  setStatus(id: string, status: AccountStatus): Promise<void>;
  touch(id: string): Promise<void>;
  /** Lets `grantee` (a person's id, or EVERYONE) use one of the owner's accounts, never change it or see its secret. */
  share(ref: string, grantee: string): Promise<Account>;
  unshare(ref: string, grantee: string): Promise<{ account: Account; removed: boolean }>;
  /** Who the owner's accounts are shared with. */
  grants(): Promise<AccountGrant[]>;
}

export interface AccountGrant {
  accountId: string;
  grantee: string;
}

/** A webhook Switchboard created at a provider, shared by the triggers on one target (a repository or an organization). */
export interface Hook {
  id: string;
  provider: string;
  accountId: string;
  /** e.g. "repo:octo/hello" or "org:octo". */
  target: string;
  /** The provider's id for the hook, once created. */
  remoteId: string | null;
  events: string[];
  createdAt: string;
}

export interface HookStore {
  find(provider: string, accountId: string, target: string): Promise<Hook | undefined>;
  get(id: string): Promise<Hook | undefined>;
  /** Stores a hook with a fresh id and secret (returned once, here). */
  create(input: { provider: string; accountId: string; target: string; events: string[] }): Promise<{ hook: Hook; secret: string }>;
  update(id: string, patch: { remoteId?: string; events?: string[] }): Promise<void>;
  secret(id: string): Promise<string>;
  remove(id: string): Promise<void>;
  /** Triggers whose providerRefs.hookId is this hook. */
  triggers(id: string): Promise<Trigger[]>;
  /** What a delivery to the hook needs, in one read: its secret and its triggers (as `triggers`); undefined for an unknown hook. */
  intake(id: string): Promise<{ secret: string; triggers: Trigger[] } | undefined>;
}

/** Successful sales lookups, per account, kind ('person' | 'company') and normalised identifier. */
export interface SalesCacheStore {
  /** The stored JSON of each key found, written at or after `since` (ISO 8601). */
  get(accountId: string, kind: string, keys: string[], since: string): Promise<Map<string, string>>;
  put(accountId: string, kind: string, entries: Array<[key: string, json: string]>, at: string): Promise<void>;
  /** Deletes the account's entries written before `before`; returns how many. */
  purge(accountId: string, before: string): Promise<number>;
}
