import { decryptSecret } from './crypto.js';
import { openSecrets, signingSecrets } from './subscription-rules.js';
import type { Account, AccountStatus, Delivery, Hook, Provider, Trigger, TriggerEvent } from './types.js';

/*
 * The rows both adapters read, and the one way each becomes what the Store contract returns. JSON columns come as
 * their text in both (PostgreSQL's json is read as text, as it was written), so one parse serves both.
 */

export interface AccountRow {
  id: string;
  owner: string;
  provider: string;
  label: string;
  identity: string | null;
  /** 0 or 1 in SQLite, a boolean in PostgreSQL. */
  is_default: number | boolean;
  status: string;
  groups_json: string;
  scopes_json: string;
  meta_json: string;
  base_url: string | null;
  secret_enc: string;
  created_at: string;
  last_used_at: string | null;
}

export interface TriggerRow {
  id: string;
  owner: string;
  kind: string;
  account_id: string;
  config_json: string;
  status: string;
  forward_url: string | null;
  secret_enc: string | null;
  provider_refs_json: string;
  state_json: string;
  fired: number;
  skipped: number;
  errors: number;
  last_event_at: string | null;
  last_error: string | null;
  created_at: string;
  origin: string | null;
}

export interface EventRow {
  id: number;
  trigger_id: string;
  kind: string;
  dedupe_key: string;
  occurred_at: string;
  received_at: string;
  summary: string;
  /** NULL when a listing leaves payloads out (the event's payload is then null). */
  payload_json: string;
}

export interface HookRow {
  id: string;
  provider: string;
  account_id: string;
  target: string;
  remote_id: string | null;
  events_json: string;
  secret_enc: string;
  created_at: string;
}

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    provider: row.provider as Provider,
    label: row.label,
    identity: row.identity,
    isDefault: row.is_default === 1 || row.is_default === true,
    status: row.status as AccountStatus,
    groups: JSON.parse(row.groups_json) as string[],
    scopes: JSON.parse(row.scopes_json) as string[],
    meta: JSON.parse(row.meta_json) as Record<string, string>,
    baseUrl: row.base_url ?? null,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

export function toTrigger(row: TriggerRow): Trigger {
  return {
    id: row.id,
    kind: row.kind,
    accountId: row.account_id,
    config: JSON.parse(row.config_json),
    status: row.status === 'failing' ? 'failing' : 'active',
    forwardUrl: row.forward_url,
    providerRefs: JSON.parse(row.provider_refs_json),
    state: JSON.parse(row.state_json),
    fired: row.fired,
    skipped: row.skipped,
    errors: row.errors,
    lastEventAt: row.last_event_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    origin: row.origin === 'events' ? 'events' : null,
  };
}

export function toEvent(row: EventRow): TriggerEvent {
  return {
    id: row.id,
    triggerId: row.trigger_id,
    kind: row.kind,
    dedupeKey: row.dedupe_key,
    occurredAt: row.occurred_at,
    receivedAt: row.received_at,
    summary: row.summary,
    payload: JSON.parse(row.payload_json),
  };
}

export function toHook(row: HookRow): Hook {
  return {
    id: row.id,
    provider: row.provider,
    accountId: row.account_id,
    target: row.target,
    remoteId: row.remote_id,
    events: JSON.parse(row.events_json),
    createdAt: row.created_at,
  };
}

/**
 * A claimed delivery with its event and the trigger's encrypted secrets, or its subscription's. An event's payload is
 * on its first row only (PAYLOAD_ONCE): one sent to a hundred subscriptions is read and parsed once.
 */
export type DeliveryRow = Omit<EventRow, 'payload_json'> & {
  payload_json: string | null;
  delivery_id: number;
  url: string;
  attempts: number;
  give_up_at: number;
  secret_enc: string | null;
  subscription_id: string | null;
  subscription_name: string | null;
  subscription_secret_enc: string | null;
  refresh_before: number | null;
  owed_from: number | string | null;
  /** The event's owner, whose subscription this is. */
  owner: string;
};

/** The events columns of a claim, `d` the deliveries and `e` the events, ordered as the claim orders its rows. */
export const PAYLOAD_ONCE = (d: string) =>
  `e.id, e.trigger_id, e.kind, e.dedupe_key, e.occurred_at, e.received_at, e.summary, e.owner,
   CASE WHEN row_number() OVER (PARTITION BY ${d}.event_id ORDER BY ${d}.next_attempt_at, ${d}.id) = 1 THEN e.payload_json END AS payload_json`;

/** The claimed rows, in the claim's order, as deliveries: the deliveries of one event share it. */
export function toDeliveries(rows: DeliveryRow[], key: Buffer, now: number): Delivery[] {
  const events = new Map<number, TriggerEvent>();
  return rows.map((row) => {
    let event = events.get(row.id);
    if (!event) events.set(row.id, (event = toEvent(row as EventRow)));
    return toDelivery(row, event, key, now);
  });
}

function toDelivery(row: DeliveryRow, event: TriggerEvent, key: Buffer, now: number): Delivery {
  const delivery = { id: row.delivery_id, event, url: row.url, attempts: row.attempts, giveUpAt: row.give_up_at };
  if (row.subscription_id === null) {
    return { ...delivery, secret: row.secret_enc ? (JSON.parse(decryptSecret(key, row.secret_enc, row.trigger_id)).forward as string | undefined) : undefined };
  }
  const secrets = signingSecrets(openSecrets(key, row.subscription_id, row.subscription_secret_enc), now);
  return {
    ...delivery,
    secret: undefined,
    subscription: {
      id: row.subscription_id,
      owner: row.owner,
      name: row.subscription_name!,
      url: row.url,
      secrets,
      refreshBefore: row.refresh_before,
      owedFrom: Number(row.owed_from ?? row.id),
    },
  };
}
