/** Triggers, their events and forwards, and the work instances claim for them. */
import type { DeliverySubscription } from './subscriptions.js';

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
  /** 'events' for a trigger made for MCP Events subscriptions, removed when its last subscription goes; null for the rest. */
  origin: TriggerOrigin;
}

export type TriggerOrigin = 'events' | null;

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
  // Web Crypto rather than an import of node:crypto: this module is read on every start, before crypto is needed.
  return 'trg_' + Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex');
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
  origin?: TriggerOrigin;
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
  /** Set for a delivery to an MCP Events webhook subscription (then `url` is its callback and `secret` unset); forwards have none. */
  subscription?: DeliverySubscription;
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
  recordAttempt(
    deliveryId: number,
    attempt: { status?: number; error?: string; durationMs: number; nextAttemptAt: number | null; delivered: boolean },
  ): Promise<void>;
  /**
   * Puts a claimed delivery off until `until` (epoch ms) without counting an attempt, ending the claim: a delivery over
   * its person's rate is sent later, not failed. Its window is stretched to reach `until` if it would end before.
   */
  deferDelivery(deliveryId: number, until: number): Promise<void>;
  attempts(eventId: number): Promise<Array<{ attempt: number; status: number | null; error: string | null; at: string }>>;
  /**
   * Retention: removes the events received before `before` (ISO 8601) with their finished deliveries and attempts,
   * keeping any event with a pending delivery or a consumer failure not yet retried; returns how many went.
   */
  prune(before: string): Promise<number>;
  /** The highest event id retention has removed (0 when none): a cursor below it may have missed events. */
  prunedThrough(): Promise<number>;
}

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
  /** pollSoon for every trigger on the account: once it is signed in again, its triggers resume at once. */
  pollAccountSoon(accountId: string): Promise<void>;
  /**
   * Claims up to `limit` pending forwards and subscription deliveries whose attempt is due; recordAttempt ends each
   * claim. A subscription delivery whose subscription is gone, suspended or past its refreshBefore is given up
   * (state 'expired') instead of returned.
   */
  claimDeliveries(holder: string, limit: number, ttlMs: number): Promise<Delivery[]>;
  /** Extends every claim `holder` has to `ttlMs` from now. */
  renewClaims(holder: string, ttlMs: number): Promise<void>;
  /** Pending deliveries: due now (claimed or not) and waiting for a later attempt, for the backlog figure. */
  deliveryBacklog(): Promise<{ due: number; waiting: number }>;
}
