export const PROVIDERS = ['outlook', 'sales', 'github', 'vercel'] as const;
export type Provider = (typeof PROVIDERS)[number];

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
  createdAt: string;
  lastUsedAt: string | null;
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
  remove(ref: string): Promise<Account>;
  rename(ref: string, label: string): Promise<Account>;
  setDefault(ref: string): Promise<Account>;
  updateSecret(id: string, secret: AccountSecret): Promise<void>;
  setStatus(id: string, status: AccountStatus): Promise<void>;
  touch(id: string): Promise<void>;
}

export interface Store {
  accounts: AccountStore;
  close(): Promise<void>;
}
