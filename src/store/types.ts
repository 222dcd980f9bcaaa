import { randomBytes } from 'node:crypto';

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

export interface Store {
  accounts: AccountStore;
  triggers: TriggerStore;
  events: EventStore;
  hooks: HookStore;
  salesCache: SalesCacheStore;
  work: WorkStore;
  signIns: SignInStore;
  webSessions: WebSessionStore;
  continuations: ContinuationStore;
  /** Team mode: who may sign in, and the state of the built-in authorization server. */
  team: TeamStore;
  /**
   * The same store seen as one owner sees it: accounts, triggers, events, consumers and sales lookups are that owner's
   * (and accounts shared with them), in every query. The store as opened is every owner's: the server's own work.
   */
  ownedBy(owner: string): Store;
  close(): Promise<void>;
}

/** Each running server keeps a lease named this plus its holder id renewed while it runs. */
export const INSTANCE_LEASE_PREFIX = 'instance:';

/**
 * Due polls and due forwards, claimed by whichever instance asks first. A claim is the holder's until `ttlMs` from
 * the claim or its last renewal, on the store's clock; a holder that stops renewing (killed) frees its work then.
 */
export interface WorkStore {
  /** Claims up to `limit` triggers of `kinds` whose poll is due and that no live claim holds; returns them as they are now. */
  claimPolls(holder: string, kinds: string[], limit: number, ttlMs: number): Promise<Trigger[]>;
  /** Ends `holder`'s claim on the trigger; its next poll is due `delayMs` from now, or at once if one was asked for meanwhile. */
  finishPoll(triggerId: string, holder: string, delayMs: number): Promise<void>;
  /** Makes the trigger's poll due now; asked during a poll, one more runs right after it. */
  pollSoon(triggerId: string): Promise<void>;
  /** Claims up to `limit` pending forwards whose attempt is due; recordAttempt ends each claim. */
  claimDeliveries(holder: string, limit: number, ttlMs: number): Promise<Delivery[]>;
  /** Extends every claim `holder` has to `ttlMs` from now. */
  renewClaims(holder: string, ttlMs: number): Promise<void>;
}

/*
 * Short-lived state that whichever instance gets the next request must find: browser sign-ins waiting for the
 * provider's redirect, sessions of the Integrations page, the rest of cut tool results. Expiries are on the store's
 * clock (the database's, in PostgreSQL, so instances whose clocks differ agree), unless `now` (epoch ms) is given.
 * Ids are kept only as hashes, and what is kept under them is encrypted with the store key.
 */

/** A browser sign-in between its start and the provider's redirect back. */
export interface PendingSignIn {
  provider: Provider;
  /** The PKCE code verifier. */
  verifier: string;
  redirectUri: string;
  groups: string[];
  /** Whether the person chose the groups (else they are the provider's defaults). */
  explicitGroups: boolean;
  label?: string;
  /** Whose account the sign-in adds (absent in sign-ins started before owners existed: the personal owner's). */
  owner?: string;
}

export interface SignInStore {
  /** Keeps a started sign-in under its OAuth state for `ttlMs`; false, keeping nothing, while `max` others wait. Removes expired ones. */
  put(state: string, signIn: PendingSignIn, options: { ttlMs: number; max: number; now?: number }): Promise<boolean>;
  /** Removes and returns the sign-in of `state`, so only one of any racing callbacks gets it; undefined when unknown, taken or expired. */
  take(state: string, now?: number): Promise<PendingSignIn | undefined>;
}

/** A session of the Integrations page, as the store keeps it. */
export interface StoredWebSession {
  csrf: string;
  authed: boolean;
  /** Team mode: the person signed in to the page, whose accounts, triggers and events it shows. */
  owner?: string;
  /** What the session's next page view shows once (opaque text, e.g. JSON); absent when nothing waits. */
  flash?: string;
}

export interface WebSessionStore {
  /**
   * Stores a new session under `id` (the cookie's value); at `max` sessions of its kind (logged in or not) the least
   * recently seen make room, so a flood of one kind never pushes out the other. Removes sessions idle past `idleMs`.
   */
  create(id: string, session: { csrf: string; authed: boolean; owner?: string }, options: { max: number; idleMs: number; now?: number }): Promise<void>;
  /** The session, seen now; undefined when unknown, or idle for longer than `idleMs` (it is then removed). */
  touch(id: string, options: { idleMs: number; now?: number }): Promise<StoredWebSession | undefined>;
  /** Replaces what the session's next page view shows; null clears it. */
  setFlash(id: string, flash: string | null): Promise<void>;
  /** What the next page view shows, cleared as it is read, so only one view shows it. */
  takeFlash(id: string): Promise<string | undefined>;
  remove(id: string): Promise<void>;
}

export interface ContinuationStore {
  /** Keeps the rest of a cut result of `tool` under `id` for `ttlMs`; at `max` entries (all tools together) the oldest make room. */
  put(id: string, tool: string, data: string, options: { ttlMs: number; max: number; now?: number }): Promise<void>;
  /** Removes and returns what `id` holds for `tool`; undefined when unknown, taken or expired; another tool's entry stays in place. */
  take(id: string, tool: string, now?: number): Promise<string | undefined>;
}

/** Successful sales lookups, per account, kind ('person' | 'company') and normalised identifier. */
export interface SalesCacheStore {
  /** The stored JSON of each key found, written at or after `since` (ISO 8601). */
  get(accountId: string, kind: string, keys: string[], since: string): Promise<Map<string, string>>;
  put(accountId: string, kind: string, entries: Array<[key: string, json: string]>, at: string): Promise<void>;
  /** Deletes the account's entries written before `before`; returns how many. */
  purge(accountId: string, before: string): Promise<number>;
}

export type TriggerStatus = 'active' | 'failing';

/** A standing request for events, e.g. every email to an account that matches a filter. */
export interface Trigger {
  id: string;
  kind: string;
  accountId: string;
  config: Record<string, unknown>;
  status: TriggerStatus;
  forwardUrl: string | null;
  /** Ids of what the trigger created at the provider (webhooks), to remove them with it. */
  providerRefs: Record<string, unknown>;
  /** The source's own progress (a delta link, a last-seen time). */
  state: Record<string, unknown>;
  fired: number;
  skipped: number;
  errors: number;
  lastEventAt: string | null;
  lastError: string | null;
  createdAt: string;
}

export interface TriggerSecrets {
  /** Signs forwarded events (X-Switchboard-Signature-256). */
  forward?: string;
  /** Verifies the provider's webhook deliveries. */
  webhook?: string;
  /** The webhook secret this one replaced, still accepted until `previousWebhookUntil` (ISO time). */
  previousWebhook?: string;
  previousWebhookUntil?: string;
  /** Sent with a Graph subscription and echoed in each of its notifications, which proves they come from Graph. */
  clientState?: string;
}

/** A new trigger id, for a trigger whose set-up needs its id before it is stored (a webhook URL names it). */
export function newTriggerId(): string {
  return 'trg_' + randomBytes(8).toString('hex');
}

export interface NewTrigger {
  /** Chosen in advance when set-up needs it (a webhook URL names the trigger). */
  id?: string;
  kind: string;
  accountId: string;
  config: Record<string, unknown>;
  forwardUrl?: string | null;
  secrets?: TriggerSecrets;
  providerRefs?: Record<string, unknown>;
  state?: Record<string, unknown>;
}

/** One durable, numbered occurrence of a trigger. */
export interface TriggerEvent {
  id: number;
  triggerId: string;
  kind: string;
  dedupeKey: string;
  occurredAt: string;
  receivedAt: string;
  summary: string;
  payload: Record<string, unknown>;
}

export interface NewEvent {
  dedupeKey: string;
  occurredAt: string;
  summary: string;
  payload: Record<string, unknown>;
}

export interface CommitInput {
  events: NewEvent[];
  /** The source's new state, stored in the same transaction as the events. */
  state?: Record<string, unknown>;
  skipped?: number;
  /** A failure to record; null clears the last one. */
  error?: string | null;
}

/** One trigger's commit within a batch (TriggerStore.commitMany). */
export interface CommitItem {
  triggerId: string;
  input: CommitInput;
}

export interface TriggerStore {
  create(input: NewTrigger): Promise<Trigger>;
  get(id: string): Promise<Trigger | undefined>;
  list(filter?: { accountId?: string; kind?: string }): Promise<Trigger[]>;
  remove(id: string): Promise<Trigger | undefined>;
  secrets(id: string): Promise<TriggerSecrets>;
  /** Replaces the trigger's secrets (a webhook secret given after creation). */
  setSecrets(id: string, secrets: TriggerSecrets): Promise<void>;
  update(id: string, patch: { state?: Record<string, unknown>; providerRefs?: Record<string, unknown> }): Promise<void>;
  /**
   * Notes what a provider's notification said in the trigger's providerRefs, in one statement, so notes made by
   * several instances at once all land: `set` replaces those top-level keys, `count` adds `by` to a top-level counter.
   * A poll never writes providerRefs, so a note made while one runs is kept.
   */
  note(id: string, note: { set?: Record<string, unknown>; count?: { key: string; by: number } }): Promise<void>;
  /** Appends the new events (a dedupe key seen before for the trigger is ignored) and the state, atomically. */
  commit(triggerId: string, input: CommitInput): Promise<TriggerEvent[]>;
  /**
   * Commits several items in one transaction, each as `commit` would in the order given (a dedupe key seen earlier,
   * in the batch or before, is ignored; ids increase in input order). One outcome per item, in order: its added
   * events, or why that item alone failed (nothing of it is stored; the others are). Rejects when the transaction
   * as a whole fails: then nothing of the batch is stored.
   */
  commitMany(items: CommitItem[]): Promise<Array<PromiseSettledResult<TriggerEvent[]>>>;
}

export interface Delivery {
  id: number;
  event: TriggerEvent;
  url: string;
  attempts: number;
  giveUpAt: number;
  secret: string | undefined;
}

/** An event a consumer gave up on after its attempts; kept until a retry succeeds. */
export interface ConsumerFailure {
  consumer: string;
  event: TriggerEvent;
  attempts: number;
  lastError: string;
  failedAt: string;
  /** Set while a retry is asked for and not yet run. */
  retryRequestedAt: string | null;
}

export interface EventStore {
  /** Events after `cursor`, oldest first; with `payloads: false` each payload is null (the log's tail needs none). */
  after(cursor: number, options: { triggerIds?: string[]; limit: number; payloads?: boolean }): Promise<TriggerEvent[]>;
  /**
   * Calls `listener` after events are committed by any instance, when the store can push that (PostgreSQL's
   * LISTEN/NOTIFY), and once after each reconnect, since commits made while disconnected were not heard.
   * Resolves to undefined when the store cannot push (SQLite: readers poll), else to a function that stops listening.
   */
  watchCommits(listener: () => void): Promise<(() => Promise<void>) | undefined>;
  /** The newest events of a trigger, newest first. */
  latest(triggerId: string, limit: number): Promise<TriggerEvent[]>;
  /** The newest event's id; with `receivedBefore` (ISO 8601), the newest received before then; 0 when there is none. */
  lastId(receivedBefore?: string): Promise<number>;
  /** Where `consumer` has acknowledged up to; undefined for a consumer never seen. */
  cursor(consumer: string): Promise<number | undefined>;
  setCursor(consumer: string, cursor: number): Promise<void>;
  /** Records that `consumer` gave up on an event (adding to its attempts, ending any retry request) and moves its cursor past it, at once. */
  recordFailure(consumer: string, eventId: number, failure: { attempts: number; error: string }): Promise<void>;
  /** Failed events, oldest first, of one consumer or of all. */
  failures(filter?: { consumer?: string }): Promise<ConsumerFailure[]>;
  /** Asks for failed events to run again (one event, or all; of one consumer, or of all); returns how many were asked for. */
  requestRetry(filter: { consumer?: string; eventId?: number }): Promise<number>;
  /** The oldest event of `consumer` whose retry is asked for. */
  nextRetry(consumer: string): Promise<TriggerEvent | undefined>;
  /** Removes an event from the consumer's failed list (its retry succeeded). */
  clearFailure(consumer: string, eventId: number): Promise<void>;
  /** Takes or renews a named lease; true while `holder` holds it. Without `now`, on the store's clock. */
  acquireLease(name: string, holder: string, ttlMs: number, now?: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  recordAttempt(
    deliveryId: number,
    attempt: { status?: number; error?: string; durationMs: number; nextAttemptAt: number | null; delivered: boolean },
  ): Promise<void>;
  attempts(eventId: number): Promise<Array<{ attempt: number; status: number | null; error: string | null; at: string }>>;
}

/** The identity providers the built-in authorization server signs a person in with. */
export const SIGN_IN_PROVIDERS = ['github', 'outlook'] as const;
export type SignInProvider = (typeof SIGN_IN_PROVIDERS)[number];
/** Where a person of a team server signed in: at GitHub or Microsoft through the built-in sign-in, or at an external OpenID Connect issuer. */
export type TeamIdentityProvider = SignInProvider | 'oidc';

export type TeamRole = 'admin' | 'member';

/** A person who signed in to a team server. */
export interface TeamUser {
  id: string;
  provider: TeamIdentityProvider;
  /** The provider's stable id for the person (GitHub's numeric user id, Microsoft's object id; an external issuer's `<issuer>#<sub>`). */
  subject: string;
  /** GitHub login, Microsoft user principal name, or the external issuer's preferred_username (else email, else sub). */
  login: string;
  email: string | null;
  role: TeamRole;
  /** A disabled person cannot sign in, and the tokens issued to them stop working. */
  disabled: boolean;
  createdAt: string;
  lastSeenAt: string | null;
}

export interface TeamSignIn {
  provider: TeamIdentityProvider;
  subject: string;
  login: string;
  email: string | null;
  /** The role the operator's configuration gives; without it the first person ever stored becomes admin and the rest members. */
  role?: TeamRole;
}

export interface TeamUserStore {
  /** Oldest first. */
  list(): Promise<TeamUser[]>;
  get(id: string): Promise<TeamUser | undefined>;
  /** Creates the person on their first sign-in, else refreshes login, email, role (when given) and last seen; a disabled person stays disabled. */
  signIn(input: TeamSignIn): Promise<TeamUser>;
  /**
   * Disabling also ends what the person is signed in with: the authorization server's sessions, grants, codes and
   * tokens of theirs, and their Integrations page sessions; enabling brings none of them back.
   */
  setDisabled(id: string, disabled: boolean): Promise<TeamUser | undefined>;
  /** Forgets the person, and deletes their personal access tokens, authorization records and page sessions. */
  remove(id: string): Promise<TeamUser | undefined>;
}

/**
 * The authorization server's records (grants, codes, tokens, sessions, interactions, registered clients), each of
 * one `kind` under an id. Ids, uids and grant ids are kept only as hashes (an opaque access token is its own id);
 * payloads are encrypted. Expiry is on the store's clock; an expired record reads as absent.
 */
export interface AuthRecordStore {
  /** Creates or replaces a record; without `expiresInMs` it never expires (a registered client). Removes expired records. */
  /** `owner` is the person a session, grant, code or token is of: disabling or removing them removes it. */
  put(kind: string, id: string, payload: string, options: { expiresInMs?: number; grantId?: string; uid?: string; owner?: string }): Promise<void>;
  get(kind: string, id: string): Promise<{ payload: string; consumed: boolean } | undefined>;
  getByUid(kind: string, uid: string): Promise<{ payload: string; consumed: boolean } | undefined>;
  /** Marks a record used (a code exchanged, a rotated refresh token), keeping it readable until it expires. */
  consume(kind: string, id: string): Promise<void>;
  remove(kind: string, id: string): Promise<void>;
  /** Removes and returns a record, so only one of racing callers gets it. */
  take(kind: string, id: string): Promise<string | undefined>;
  /** Removes every record of a grant (its tokens and codes). */
  removeGrant(grantId: string): Promise<void>;
}

export interface TeamKeyStore {
  /** The secret kept under `name`: made by `create` for the first instance that asks, read by every later one. */
  ensure(name: string, create: () => string): Promise<string>;
}

/** A personal access token as the store keeps it: never the token, only its SHA-256 hash (which no listing returns). */
export interface PersonalToken {
  id: string;
  userId: string;
  name: string | null;
  /** `switchboard` or `switchboard:read`. */
  scope: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface NewPersonalToken {
  userId: string;
  name: string | null;
  scope: string;
  tokenHash: string;
  expiresAt: string;
}

/** Tokens made on the command line for headless agents, each standing for one person. */
export interface PersonalTokenStore {
  create(input: NewPersonalToken): Promise<PersonalToken>;
  /** Oldest first; only this person's when `userId` is given. */
  list(options?: { userId?: string }): Promise<PersonalToken[]>;
  get(id: string): Promise<PersonalToken | undefined>;
  findByHash(tokenHash: string): Promise<PersonalToken | undefined>;
  /** Revokes a token now; one already revoked keeps its first revocation time. Undefined for an unknown id. */
  revoke(id: string): Promise<PersonalToken | undefined>;
  /** Revokes every token of the person that still works (neither revoked nor expired), and says how many that was. */
  revokeAll(userId: string): Promise<number>;
  /** Records a use at `at`, unless one was recorded after `unlessSince` (so busy tokens write once a minute, not per call). */
  touch(id: string, at: string, unlessSince: string): Promise<void>;
}

export interface TeamStore {
  users: TeamUserStore;
  records: AuthRecordStore;
  keys: TeamKeyStore;
  tokens: PersonalTokenStore;
}
