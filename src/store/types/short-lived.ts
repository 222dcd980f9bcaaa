import type { Provider } from './accounts.js';

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
