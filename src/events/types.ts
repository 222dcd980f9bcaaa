import * as z from 'zod/v4';
import type { TriggerKind } from '../contracts/triggers.js';
import { InputError } from '../errors.js';
import { forOwner } from '../owner.js';
import { providerRecord } from '../providers.js';
import { inputJsonSchema, payloadJsonSchema, type ObjectSchema } from '../schema.js';
import type { Store } from '../store/types.js';
import { parseInput } from '../tool.js';
import { TRIGGER_KINDS } from '../triggers/kinds.js';
import { eventsErrors, type EventsErrors } from './errors.js';

/** How a client may take a type's events: a signed POST to its URL (events/subscribe), asking with a cursor (events/poll), or a held stream (push: events/stream). */
export const DELIVERY_MODES = ['webhook', 'poll', 'push'] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];

type JsonSchema = Record<string, unknown>;

/** One event type as `events/list` describes it: a trigger kind, under the kind's name. */
export interface EventType {
  name: string;
  description: string;
  delivery: DeliveryMode[];
  inputSchema: JsonSchema;
  payloadSchema: JsonSchema;
  _meta?: Record<string, unknown>;
}

/**
 * Config fields for setting a provider's webhook up by hand (its signing secret, or a promise to give it later) are not
 * subscription arguments: arguments are the subscription's key, resent on every refresh and kept by the client, and a
 * subscription's trigger is always set up by Switchboard itself.
 */
export const MANUAL_SETUP_FIELDS = ['secret', 'manual'] as const;

/** A subscription's arguments: the kind's config (without the manual set-up fields), and which account it watches. */
function argumentsSchema(kind: TriggerKind): ObjectSchema {
  const title = providerRecord(kind.connector).title;
  const manual = MANUAL_SETUP_FIELDS.filter((field) => field in kind.config.shape);
  const config = manual.length ? kind.config.omit(Object.fromEntries(manual.map((field) => [field, true]))) : kind.config;
  return config.safeExtend({
    account: z.string().min(1).optional().describe(`${title} account to watch: an id or label from accounts_list; default the ${title} default account`),
  });
}

export function eventPayloadSchema(kind: TriggerKind): JsonSchema {
  return payloadJsonSchema(kind.payload);
}

const fieldList = (schema: JsonSchema) => Object.keys((schema.properties as JsonSchema | undefined) ?? {});

/** What a model needs to choose and use the type: what fires it, what narrows it, what the data holds, where the rest is. */
function describe(kind: TriggerKind, input: JsonSchema, payload: JsonSchema): string {
  const required = new Set((input.required as string[] | undefined) ?? []);
  const args = fieldList(input).map((name) => (required.has(name) ? name : `${name}?`));
  const oneOf = kind.exactlyOneOf ? ` Give exactly one of ${kind.exactlyOneOf.map((f) => `"${f}"`).join(' or ')}.` : '';
  const fields = fieldList(payload);
  const holds = fields.length ? `Each event's data holds ${fields.join(', ')}: fields to triage by` : "Each event's data holds fields to triage by";
  const tools = `${kind.connector}_* tools (${kind.connector}_api_call reaches any path)`;
  return `${kind.description} Arguments narrow it (? = optional): ${args.join(', ')}.${oneOf} ${holds}, not the whole object; read that with the ${tools}.`;
}

function describeKind(kind: TriggerKind): EventType {
  const inputSchema = inputJsonSchema(argumentsSchema(kind));
  const payloadSchema = eventPayloadSchema(kind);
  return { name: kind.kind, description: describe(kind, inputSchema, payloadSchema), delivery: [...DELIVERY_MODES], inputSchema, payloadSchema };
}

// Converting 31 kinds' schemas costs milliseconds; the descriptors depend on the kinds only, so each set is described once.
const describedFor = new WeakMap<Map<string, TriggerKind>, EventType[]>();
function describedKinds(kinds: Map<string, TriggerKind>): EventType[] {
  let described = describedFor.get(kinds);
  if (!described) describedFor.set(kinds, (described = [...kinds.values()].map(describeKind)));
  return described;
}

export interface EventTypeOptions {
  /** The signed-in person in team mode: they see the kinds of the providers they hold an account of (their own or shared). */
  person?: string;
  /** The caller may change nothing (a read-only token, or a read-only server): a subscription creates a trigger, so no type is offered. */
  readOnly?: boolean;
}

/**
 * The event types a caller may subscribe to, one per trigger kind, in the kinds' order. In personal mode the one owner
 * sees every kind, connected or not: subscribing then names the account to connect.
 */
export async function eventTypes(deps: { store: Store; triggers?: { kinds: Map<string, TriggerKind> } }, options: EventTypeOptions = {}): Promise<EventType[]> {
  if (options.readOnly) return [];
  const kinds = deps.triggers?.kinds ?? TRIGGER_KINDS;
  const all = describedKinds(kinds);
  if (options.person === undefined) return all;
  const held = new Set((await forOwner(deps, options.person).store.accounts.list()).map((a) => a.provider));
  return all.filter((type) => held.has(kinds.get(type.name)!.connector));
}

/** A subscription's name and arguments, checked as triggers_create checks a kind and its config. */
export interface EventArguments {
  kind: TriggerKind;
  account?: string;
  config: Record<string, unknown>;
}

/**
 * The kind an event name names and its arguments, checked against the type's inputSchema (exactly-one-of rules too):
 * NotFound for an unknown name, InvalidParams naming the argument at fault.
 */
export function parseEventArguments(name: string, args: unknown, errors: EventsErrors = eventsErrors(), kinds: Map<string, TriggerKind> = TRIGGER_KINDS): EventArguments {
  const kind = kinds.get(name);
  if (!kind) throw errors.notFound(`No event type "${name.slice(0, 100)}"; events/list names the ${kinds.size} types.`, { kind: 'event' });
  try {
    const { account, ...config } = parseInput(argumentsSchema(kind), args ?? {}, 'arguments') as Record<string, unknown> & { account?: string };
    return { kind, config, ...(account === undefined ? {} : { account }) };
  } catch (error) {
    if (error instanceof InputError) throw errors.invalidParams(error.message, { field: error.field ?? 'arguments' });
    throw error;
  }
}
