import { createHash } from 'node:crypto';
import type { EventsErrors } from './errors.js';

/** A subscription lives an hour unless the client asks otherwise. */
export const DEFAULT_TTL_MS = 60 * 60_000;
/** The longest grant; a client asking for no expiry (ttlMs null) gets this: no-expiry is not granted. */
export const MAX_TTL_MS = 24 * 60 * 60_000;
/** A shorter ttlMs is raised to this. */
export const MIN_TTL_MS = 5 * 60_000;
/** A callback that echoed a challenge counts as verified for its owner for this long, for every name and arguments. */
export const CALLBACK_VERIFIED_MS = 24 * 60 * 60_000;
/** A subscription past its refreshBefore is kept this long (a late refresh with its cursor can still replay), then swept. */
export const EXPIRED_GRACE_MS = 60 * 60_000;
/** After a refresh with a new secret, the old one signs beside it for this long. */
export const REFRESH_SECRET_GRACE_MS = 60 * 60_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** JSON with every object's keys sorted, nothing added or dropped: the arguments as received, in one spelling. */
export function canonicalJson(value: unknown): string {
  const sorted = (item: unknown): Json => {
    if (Array.isArray(item)) return item.map(sorted);
    if (item !== null && typeof item === 'object') {
      return Object.fromEntries(
        Object.keys(item)
          .sort()
          .map((key) => [key, sorted((item as Record<string, unknown>)[key])]),
      );
    }
    return item as Json;
  };
  return JSON.stringify(sorted(value ?? {}));
}

/**
 * A subscription's id: deterministic over the principal, the callback URL byte for byte, the name and the arguments as
 * received, so a refresh finds it and unsubscribe with the same key removes it. It routes; it grants nothing.
 */
export function subscriptionId(owner: string, url: string, name: string, args: unknown): string {
  return 'sub_' + createHash('sha256').update(JSON.stringify([owner, url, name, canonicalJson(args)])).digest('hex');
}

/** The lifetime granted for a requested ttlMs: the default when omitted, at most a day (also for null), at least the floor. */
export function grantTtl(ttlMs: unknown, errors: EventsErrors, floorMs = MIN_TTL_MS): number {
  if (ttlMs === undefined) return DEFAULT_TTL_MS;
  if (ttlMs === null) return MAX_TTL_MS;
  if (typeof ttlMs !== 'number' || !Number.isInteger(ttlMs) || ttlMs < 0) {
    throw errors.invalidParams(`"ttlMs" must be a whole number of milliseconds (or null), not ${JSON.stringify(ttlMs)}.`, { field: 'ttlMs' });
  }
  return Math.max(Math.min(ttlMs, MAX_TTL_MS), floorMs);
}

/** maxAgeMs, when given: a positive whole number of milliseconds. */
export function checkMaxAge(maxAgeMs: unknown, errors: EventsErrors): number | undefined {
  if (maxAgeMs === undefined || maxAgeMs === null) return undefined;
  if (typeof maxAgeMs !== 'number' || !Number.isInteger(maxAgeMs) || maxAgeMs < 1) {
    throw errors.invalidParams(`"maxAgeMs" must be a whole number of milliseconds from 1, not ${JSON.stringify(maxAgeMs)}; omit it to replay all that is kept.`, {
      field: 'maxAgeMs',
    });
  }
  return maxAgeMs;
}

/**
 * The id of a subscription without a callback (events/poll): deterministic over the principal, the mode, the name and
 * the arguments as received, so each poll of the same key finds the row that keeps its trigger alive.
 */
export function callbackFreeSubscriptionId(owner: string, mode: 'poll' | 'stream', name: string, args: unknown, nonce = ''): string {
  return 'sub_' + createHash('sha256').update(JSON.stringify([owner, mode, name, canonicalJson(args), nonce])).digest('hex');
}
