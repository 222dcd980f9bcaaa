import { InputError } from '../errors.js';
import { decryptSecret, encryptSecret } from './crypto.js';
import type { EventSubscription, NewEventSubscription, SubscriptionError, SubscriptionSecrets } from './types.js';
export { LAST_DELIVERY_PRECISION_MS } from './types.js';

/** A subscription delivery is tried for this long after its event was committed (the SEP: 3 to 5 attempts over 10 to 15 minutes). */
export const SUBSCRIPTION_WINDOW_MS = 15 * 60 * 1000;

/** After a refresh with a new secret, the old one still signs for this long, unless the caller says otherwise. */
export const SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/*
 * Suspension: a subscription whose every attempt has failed for SUSPEND_AFTER_MS, with at least
 * SUSPEND_AFTER_FAILURES failed attempts in that run, is suspended: commits enqueue nothing for it and its pending
 * deliveries are given up when claimed. One success ends the run; a refresh (upsert) makes it active again. Per
 * subscription, traffic rarely reaches the SEP's example of 100 attempts an hour, hence the lower count.
 */
export const SUSPEND_AFTER_MS = 60 * 60 * 1000;
export const SUSPEND_AFTER_FAILURES = 10;

export interface SubscriptionRow {
  id: string;
  owner: string;
  mode: string;
  name: string;
  arguments_json: string;
  url: string | null;
  trigger_id: string;
  client_name: string | null;
  refresh_before: number | null;
  status: string;
  start_event_id: number;
  last_delivery_at: number | null;
  last_error: string | null;
  failed_since: number | null;
  created_at: number;
  updated_at: number;
}

export function toSubscription(row: SubscriptionRow): EventSubscription {
  return {
    id: row.id,
    owner: row.owner,
    mode: row.mode as EventSubscription['mode'],
    name: row.name,
    arguments: JSON.parse(row.arguments_json),
    url: row.url,
    triggerId: row.trigger_id,
    clientName: row.client_name,
    refreshBefore: row.refresh_before,
    status: row.status === 'suspended' ? 'suspended' : 'active',
    startEventId: row.start_event_id,
    lastDeliveryAt: row.last_delivery_at,
    lastError: row.last_error as SubscriptionError | null,
    failedSince: row.failed_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The secrets a subscription keeps after an upsert: a secret unlike the current one takes its place, which signs on until its grace ends. */
export function nextSecrets(before: SubscriptionSecrets | undefined, input: NewEventSubscription, now: number): SubscriptionSecrets | undefined {
  if (input.secret === undefined) return before;
  if (!before || before.current === input.secret) return { ...before, current: input.secret };
  return { current: input.secret, previous: before.current, previousUntil: input.previousUntil ?? now + SECRET_GRACE_MS };
}

/** Encrypted under the store key, bound to the subscription's id (a row copied onto another does not decrypt). */
export function sealSecrets(key: Buffer, id: string, secrets: SubscriptionSecrets | undefined): string | null {
  return secrets ? encryptSecret(key, JSON.stringify(secrets), id) : null;
}

export function openSecrets(key: Buffer, id: string, sealed: string | null): SubscriptionSecrets | undefined {
  return sealed ? (JSON.parse(decryptSecret(key, sealed, id)) as SubscriptionSecrets) : undefined;
}

/** The secrets that sign a delivery now: the current one, and the previous one while its grace lasts. */
export function signingSecrets(secrets: SubscriptionSecrets | undefined, now: number): string[] {
  if (!secrets) return [];
  return secrets.previous && (secrets.previousUntil ?? 0) > now ? [secrets.current, secrets.previous] : [secrets.current];
}

/** Whether a failed attempt at `at` makes the run of failures long enough to suspend. */
export function suspends(failedSince: number, failedAttempts: number, at: number): boolean {
  return failedAttempts >= SUSPEND_AFTER_FAILURES && at - failedSince >= SUSPEND_AFTER_MS;
}

/** The meta key under which retention notes the highest event id it removed. */
export const PRUNED_THROUGH_KEY = 'events_pruned_through';

export const noTrigger = (id: string) => new InputError(`No trigger ${id} for this subscription; triggers_list shows the triggers there are.`, 'triggerId');
export const noSubscription = (id: string) => new InputError(`No subscription ${id}; subscribe again (events/subscribe) to make it.`, 'id');
