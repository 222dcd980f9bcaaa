/** MCP Events subscriptions: each rides on a trigger, and its webhook deliveries go through the forwarding outbox. */

export type SubscriptionMode = 'webhook' | 'poll' | 'stream';
export type SubscriptionStatus = 'active' | 'suspended';
/** Why the last delivery failed, as the Events extension names it (never the endpoint's own output). */
export type SubscriptionError = 'connection_refused' | 'timeout' | 'tls_error' | 'http_4xx' | 'http_5xx' | 'challenge_failed';

export const SUBSCRIPTION_ERRORS: readonly SubscriptionError[] = ['connection_refused', 'timeout', 'tls_error', 'http_4xx', 'http_5xx', 'challenge_failed'];

/** Times are epoch milliseconds. */
/**
 * A healthy subscription's lastDeliveryAt is written at most this often: a delivery to a subscription whose last one
 * succeeded less than this long ago writes nothing, so a busy subscription costs no write per event.
 */
export const LAST_DELIVERY_PRECISION_MS = 1_000;

export interface EventSubscription {
  /** Chosen by the caller, deterministic over principal, url, name and canonical arguments. */
  id: string;
  owner: string;
  mode: SubscriptionMode;
  /** The event type: a trigger kind. */
  name: string;
  /** As the client sent them. */
  arguments: Record<string, unknown>;
  /** The webhook callback, byte for byte; null for poll and stream. */
  url: string | null;
  triggerId: string;
  clientName: string | null;
  /** Nothing is delivered after this; null for no expiry. */
  refreshBefore: number | null;
  status: SubscriptionStatus;
  /** The log's newest id when the subscription was made: the trigger's events after it are its own. */
  startEventId: number;
  /** To within LAST_DELIVERY_PRECISION_MS. */
  lastDeliveryAt: number | null;
  lastError: SubscriptionError | null;
  /** When the current run of failures began; null after a success. */
  failedSince: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface NewEventSubscription {
  id: string;
  mode: SubscriptionMode;
  name: string;
  arguments: Record<string, unknown>;
  url: string | null;
  triggerId: string;
  clientName?: string | null;
  /** The client's `whsec_` secret (webhook mode). */
  secret?: string;
  refreshBefore: number | null;
  /** When a new secret replaces the current one: until when the old one still signs (default SECRET_GRACE_MS from now). */
  previousUntil?: number;
}

export interface SubscriptionSecrets {
  current: string;
  previous?: string;
  previousUntil?: number;
}

/** A failed attempt; a success is recorded with the attempt itself (EventStore.recordAttempt). */
export type DeliveryOutcome = { error: SubscriptionError; at: number };

export interface ReplayResult {
  enqueued: number;
  /** Events between the cursor and now are gone: older than retention, before the trigger existed, or cut by notBefore. */
  truncated: boolean;
}

/** A subscription delivery's subscription, as a claim hands it to the sender. */
export interface DeliverySubscription {
  id: string;
  /** Whose subscription it is: the per-person delivery rate counts by it. */
  owner: string;
  name: string;
  url: string;
  /** The current secret first, then the previous one while its grace lasts: one signature each. */
  secrets: string[];
  refreshBefore: number | null;
  /** The oldest event still owed to the subscription when this delivery was claimed (this one's, or an older one's). */
  owedFrom: number;
}

export interface SubscriptionStore {
  /**
   * Creates the subscription, or refreshes the one with this id: a new secret becomes current (the old one signs
   * until `previousUntil`), the new refreshBefore applies, and a suspended subscription is active again.
   */
  upsert(input: NewEventSubscription): Promise<{ subscription: EventSubscription; created: boolean }>;
  get(id: string): Promise<EventSubscription | undefined>;
  list(filter?: { triggerId?: string; owner?: string }): Promise<EventSubscription[]>;
  /** Removes it and cancels its pending deliveries, at once; the row as it was, or undefined when unknown. */
  remove(id: string): Promise<EventSubscription | undefined>;
  /** Its secrets, decrypted; never logged. Undefined for an unknown subscription or one without a secret. */
  secrets(id: string): Promise<SubscriptionSecrets | undefined>;
  /** Subscriptions whose refreshBefore has passed at `now`. */
  expired(now: number): Promise<EventSubscription[]>;
  /** Notes a failed attempt; persistent failure suspends the subscription (see SUSPEND_AFTER_MS). */
  recordOutcome(id: string, outcome: DeliveryOutcome): Promise<void>;
  countByOwner(owner: string): Promise<number>;
  /** Until when (epoch ms) a callback URL counts as verified for the owner; undefined when not, or no more. */
  verifiedCallback(owner: string, url: string, now?: number): Promise<number | undefined>;
  rememberCallback(owner: string, url: string, until: number): Promise<void>;
  /**
   * The highest log id such that every event of the subscription's trigger after its start and at or below it has
   * been delivered to it or given up: never past an event still pending. 0 for an unknown subscription.
   */
  watermark(id: string): Promise<number>;
  /**
   * Enqueues the trigger's events after `after` (received at or after `notBefore`, ISO 8601) for the subscription: an
   * event already delivered to it is not sent again, one given up on is sent again under its own id.
   */
  replay(id: string, range: { after: number; notBefore?: string }): Promise<ReplayResult>;
}
