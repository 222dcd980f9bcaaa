import { createHash, randomBytes } from 'node:crypto';
import type { PersonalTokenStore, TeamUserStore } from '../store/types.js';
import type { Verified } from './resource.js';
import { mayRead } from './scopes.js';

/*
 * Personal access tokens: made on the command line for an agent that cannot sign in, each standing for one person.
 * The prefix sets them apart from the authorization server's opaque tokens and lets secret scanners find them; the
 * store keeps only their SHA-256 hash, enough for 256 random bits, which no one can guess their way back from.
 */

export const PERSONAL_TOKEN_PREFIX = 'sbp_';
const PERSONAL_TOKEN = /^sbp_[A-Za-z0-9_-]{43}$/;

/** A use is recorded at most this often per token, so a busy agent does not write to the store on every call. */
export const LAST_USED_EVERY_MS = 60_000;

export function newPersonalToken(): { token: string; hash: string } {
  const token = PERSONAL_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  return { token, hash: hashPersonalToken(token) };
}

export const hashPersonalToken = (token: string) => createHash('sha256').update(token).digest('hex');

export const isPersonalToken = (token: string) => token.startsWith(PERSONAL_TOKEN_PREFIX);

const UNKNOWN = { invalid: 'The access token is unknown, expired or revoked' } as const;

/**
 * Checks a personal access token: its hash must be stored, neither revoked nor expired, and its person still allowed.
 * Its audience is this server's own resource: a token made on the command line is for every server on the store.
 */
export function personalTokenVerifier(o: { tokens: PersonalTokenStore; users: TeamUserStore; resource: string; clock?: () => number }) {
  const clock = o.clock ?? Date.now;
  return async (token: string): Promise<Verified> => {
    if (!PERSONAL_TOKEN.test(token)) return UNKNOWN;
    const found = await o.tokens.findByHash(hashPersonalToken(token));
    const now = clock();
    if (!found || found.revokedAt !== null || Date.parse(found.expiresAt) <= now) return UNKNOWN;
    const user = await o.users.get(found.owner);
    if (!user || user.disabled) return { invalid: 'The person this access token was issued to may no longer sign in' };
    const scopes = [found.scope];
    if (!mayRead(scopes)) return { insufficient: 'This token allows no call; it needs scope switchboard:read or switchboard' };
    const since = new Date(now - LAST_USED_EVERY_MS).toISOString();
    if (found.lastUsedAt === null || found.lastUsedAt < since) await o.tokens.touch(found.id, new Date(now).toISOString(), since);
    return { caller: { owner: user.id, clientId: found.id, scopes, token, expiresAt: Math.floor(Date.parse(found.expiresAt) / 1000), resource: o.resource } };
  };
}

/** A bearer check that takes personal access tokens (by their prefix) to their own verifier, and every other token to `next`. */
export function withPersonalTokens(personal: (token: string) => Promise<Verified>, next: (token: string) => Promise<Verified>) {
  return (token: string) => (isPersonalToken(token) ? personal(token) : next(token));
}
