import { randomBytes } from 'node:crypto';
import { eventsUri } from '../contracts/triggers.js';
import type { TriggerEvent } from '../store/types.js';

/** The most a webhook delivery's body may hold (the receivers answer 413 above it). */
export const MAX_BODY_BYTES = 262_144;
export const TRUNCATED_META_KEY = 'io.switchboard/truncated';
const CUT_MARK = '…';
const MAX_LISTED_FIELDS = 100;

/** A body ready to sign and send, with the webhook-id it goes under. */
export interface OutgoingBody {
  webhookId: string;
  body: string;
}

/** What a terminated envelope carries: the JSON-RPC error the subscription ended with. */
export interface TerminationError {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** The event's id on the wire: the log's id, so retries, replays and every instance send the same one. */
export const occurrenceId = (event: Pick<TriggerEvent, 'id'>) => `evt_${event.id}`;

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Path = (string | number)[];

const pointerOf = (path: Path) => path.map((part) => '/' + String(part).replaceAll('~', '~0').replaceAll('/', '~1')).join('');

/** ISO 8601 in UTC: receivers refuse a timestamp without a zone. */
function zoned(event: TriggerEvent): string {
  for (const text of [event.occurredAt, event.receivedAt]) {
    const at = new Date(text);
    if (!Number.isNaN(at.getTime())) return at.toISOString();
  }
  return new Date().toISOString();
}

function longestString(value: Json): number {
  if (typeof value === 'string') return value.length;
  const items = Array.isArray(value) ? value : value !== null && typeof value === 'object' ? Object.values(value) : [];
  return items.reduce<number>((longest, item) => Math.max(longest, longestString(item)), 0);
}

function cut(text: string, limit: number): string {
  let kept = text.slice(0, limit);
  const last = kept.charCodeAt(kept.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) kept = kept.slice(0, -1);
  return kept + CUT_MARK;
}

/** A copy of `value` with every string longer than `limit` cut to it, and the pointers of those cut. */
function capStrings(value: Json, limit: number, path: Path, cutAt: string[]): Json {
  if (typeof value === 'string') {
    if (value.length <= limit) return value;
    cutAt.push(pointerOf(path));
    return cut(value, limit);
  }
  if (Array.isArray(value)) return value.map((item, i) => capStrings(item, limit, [...path, i], cutAt));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, capStrings(item, limit, [...path, key], cutAt)]));
  }
  return value;
}

interface Envelope {
  eventId: string;
  name: string;
  timestamp: string;
  cursor: string | null;
  readWith: Record<string, unknown>;
}

function serialize({ eventId, name, timestamp, cursor, readWith }: Envelope, data: Json, fields: string[] | undefined): string {
  const body: Record<string, unknown> = { eventId, name, timestamp, data, cursor };
  if (fields) {
    const note: Record<string, unknown> = { fields: fields.slice(0, MAX_LISTED_FIELDS), readWith };
    if (fields.length > MAX_LISTED_FIELDS) note.unlistedFields = fields.length - MAX_LISTED_FIELDS;
    body._meta = { [TRUNCATED_META_KEY]: note };
  }
  return JSON.stringify(body);
}

const fits = (body: string) => Buffer.byteLength(body) <= MAX_BODY_BYTES;

/** The body with the longest strings of `data` cut just enough to fit, or undefined when even empty strings do not. */
function fitByCutting(envelope: Envelope, data: Json, alreadyDropped: string[]): string | undefined {
  const attempt = (limit: number) => {
    const cutAt: string[] = [];
    const capped = capStrings(data, limit, [], cutAt);
    return serialize(envelope, capped, [...alreadyDropped, ...cutAt]);
  };
  let low = 0;
  let high = longestString(data);
  let best = attempt(low);
  if (!fits(best)) return undefined;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    const body = attempt(middle);
    if (fits(body)) {
      low = middle;
      best = body;
    } else high = middle - 1;
  }
  return best;
}

/**
 * An EventOccurrence as the exact bytes sent. An event too large for one delivery keeps every field of its data with
 * the longest strings cut, and says in `_meta` which fields were cut and how to read the whole event; if even that
 * cannot fit, its data keeps only its top-level scalars.
 */
export function occurrenceBody(event: TriggerEvent, subscription: { name: string }, cursor: string | null): OutgoingBody {
  const eventId = occurrenceId(event);
  const data = (event.payload ?? {}) as Json;
  const envelope: Envelope = {
    eventId,
    name: subscription.name,
    timestamp: zoned(event),
    cursor,
    readWith: {
      tool: 'events_next',
      arguments: { triggers: [event.triggerId], cursor: String(event.id - 1), limit: 1 },
      resource: eventsUri(event.triggerId),
    },
  };
  const whole = serialize(envelope, data, undefined);
  if (fits(whole)) return { webhookId: eventId, body: whole };
  const cutBody = fitByCutting(envelope, data, []);
  if (cutBody) return { webhookId: eventId, body: cutBody };
  const dropped: string[] = [];
  const scalars: Record<string, Json> = {};
  for (const [key, value] of Object.entries(data as Record<string, Json>)) {
    if (value !== null && typeof value === 'object') dropped.push(pointerOf([key]));
    else scalars[key] = value;
  }
  const body = fitByCutting(envelope, scalars, dropped) ?? serialize(envelope, {}, [...dropped, ...Object.keys(scalars).map((key) => pointerOf([key]))]);
  return { webhookId: eventId, body };
}

const controlId = (type: string) => `msg_${type}_${randomBytes(12).toString('hex')}`;

/**
 * A control envelope, the only bodies with a top-level `type`: `gap` hands a fresh cursor after skipped events,
 * `terminated` ends the subscription.
 */
export function controlBody(type: 'gap', cursor: string): OutgoingBody;
export function controlBody(type: 'terminated', error: TerminationError): OutgoingBody;
export function controlBody(type: 'gap' | 'terminated', detail: string | TerminationError): OutgoingBody {
  if (type === 'gap') return { webhookId: controlId(type), body: JSON.stringify({ type, cursor: detail }) };
  const { code, message, data } = detail as TerminationError;
  return { webhookId: controlId(type), body: JSON.stringify({ type, error: { code, message, ...(data ? { data } : {}) } }) };
}
