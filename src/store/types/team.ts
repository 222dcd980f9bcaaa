/** Team mode: the people who sign in, the built-in authorization server's records and keys, personal access tokens. */

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
  /** The person the token stands for (stored as user_id). */
  owner: string;
  name: string | null;
  /** `switchboard` or `switchboard:read`. */
  scope: string;
  createdAt: string;
  expiresAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface NewPersonalToken {
  owner: string;
  name: string | null;
  scope: string;
  tokenHash: string;
  expiresAt: string;
}

/** Tokens made on the command line for headless agents, each standing for one person. */
export interface PersonalTokenStore {
  create(input: NewPersonalToken): Promise<PersonalToken>;
  /** Oldest first; only this person's when `owner` is given. */
  list(options?: { owner?: string }): Promise<PersonalToken[]>;
  get(id: string): Promise<PersonalToken | undefined>;
  findByHash(tokenHash: string): Promise<PersonalToken | undefined>;
  /** Revokes a token now; one already revoked keeps its first revocation time. Undefined for an unknown id. */
  revoke(id: string): Promise<PersonalToken | undefined>;
  /** Revokes every token of the person that still works (neither revoked nor expired), and says how many that was. */
  revokeAll(owner: string): Promise<number>;
  /** Records a use at `at`, unless one was recorded after `unlessSince` (so busy tokens write once a minute, not per call). */
  touch(id: string, at: string, unlessSince: string): Promise<void>;
}

export interface TeamStore {
  users: TeamUserStore;
  records: AuthRecordStore;
  keys: TeamKeyStore;
  tokens: PersonalTokenStore;
}
