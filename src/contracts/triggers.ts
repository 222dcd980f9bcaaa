import type { IncomingHttpHeaders } from 'node:http';
import type { Api } from '../http/client.js';
import type { ObjectSchema } from '../schema.js';
import type { Account, NewEvent, Provider, Store, Trigger, TriggerEvent, TriggerSecrets } from '../store/types.js';

export interface PollContext {
  trigger: Trigger;
  account: Account;
  api: Api;
  now: number;
}

export interface PollResult {
  events: NewEvent[];
  /** The source's new state, committed with the events. */
  state: Record<string, unknown>;
  /** Occurrences that were not delivered, each with its reason. */
  skipped?: Array<{ key: string; reason: string }>;
}

/** A kind of trigger: what it watches, its config, and how events are found. */
export interface TriggerKind {
  kind: string;
  connector: Provider;
  description: string;
  config: ObjectSchema;
  /** The shape of each event's payload as this kind renders it: every field named and typed, none other (payloadJsonSchema). */
  payload: ObjectSchema;
  /** Config fields of which exactly one must be given (GitHub: repo or org); the config schema refuses none or both too. */
  exactlyOneOf?: string[];
  /** Polled sources: how often, and one poll. The first poll (no state) sets a baseline and fires nothing. */
  poll?: {
    intervalMs(config: Record<string, unknown>): number;
    run(ctx: PollContext): Promise<PollResult>;
  };
  /** Webhook sources: how a verified delivery becomes this trigger's events. */
  webhook?: WebhookSource;
  /** Provider-side set-up and removal (webhooks), when the kind needs any. */
  provider?: ProviderSetup;
  /** Polled sources the provider can also notify (Graph change notifications): the poll keeps the subscription. */
  push?: PushSource;
  /** How events reach Switchboard, when that depends on more than whether the kind has a webhook. */
  modeOf?(trigger: Trigger, account: Account | undefined): TriggerMode;
}

/** How a trigger's events reach Switchboard, as triggers_list shows it. */
export interface TriggerMode {
  /** push: the provider tells Switchboard; poll: Switchboard asks on a timer; paused: neither until the account is reconnected. */
  mode: 'push' | 'poll' | 'paused';
  /** Why this mode, and what keeps it going; null when there is nothing to say. */
  reason: string | null;
  /** Notifications refused because they did not prove they came from the provider. */
  refused?: number;
}

/** How long a provider subscription lives and when it is renewed; tests shorten them. */
export interface PushTiming {
  /** The lifetime asked for on each subscribe and renewal. */
  lifetimeMs: number;
  /** Renew once less than this remains. */
  renewBeforeMs: number;
  /** After the provider refused a subscription, ask again after this long. */
  retryMs: number;
}

export interface PushContext extends PollContext {
  store: Store;
  /** Where providers reach this server; without it the source polls only (and removes a subscription it had). */
  publicUrl?: string;
  /** The state the poll has just produced, to build on. */
  state: Record<string, unknown>;
  /** The poll before this one failed (an account to reconnect, an outage): a subscription may have lapsed meanwhile. */
  recovering: boolean;
  timing?: Partial<PushTiming>;
}

/** A provider subscription kept by the trigger's own poll, in the claim that poll holds: one instance at a time. */
export interface PushSource {
  /** Runs after each successful poll: subscribes, renews, re-creates or removes. Never throws: a failure is the state's reason. */
  maintain(ctx: PushContext): Promise<{ state: Record<string, unknown>; nextPollMs: number }>;
  /** Runs when the trigger is deleted: removes its subscription at the provider. */
  teardown(ctx: { trigger: Trigger; account: Account; api: Api; store: Store }): Promise<void>;
  /** What happens next, said when the trigger is created. */
  next(config: Record<string, unknown>, account: Account, publicUrl: string | undefined): string;
}

/** The resource that lists a trigger's events: named by resources, notifications and MCP event bodies alike. */
export const eventsUri = (triggerId: string) => `switchboard://triggers/${triggerId}/events`;

export const DEFAULT_POLL_INTERVAL_S = 60;
export const MIN_POLL_INTERVAL_S = 10;

/** One verified delivery from a provider's webhook. */
export interface WebhookDelivery {
  /** The provider's delivery id (X-GitHub-Delivery, Vercel payload id): deduplicates redeliveries. */
  id: string;
  /** GitHub: X-GitHub-Event; Vercel: the payload type. */
  event: string;
  payload: Record<string, any>;
}

export interface SetupContext {
  triggerId: string;
  account: Account;
  api: Api;
  store: Store;
  config: Record<string, unknown>;
  /** Where providers can reach this server, when it is reachable from outside. */
  publicUrl?: string;
}

export interface SetupResult {
  /** The config to store, when set-up took something out of it (a secret goes to `secrets` instead). */
  config?: Record<string, unknown>;
  providerRefs?: Record<string, unknown>;
  secrets?: TriggerSecrets;
  state?: Record<string, unknown>;
  /** What happens next, for the person or agent that created the trigger. */
  next: string;
  /** Called once the trigger is stored or given up: frees what set-up held (a shared webhook) until then. */
  settle?: () => Promise<void>;
}

/** How a provider's webhook deliveries are taken in: what their URL names, how they are signed, what identifies them. */
export interface WebhookIntake {
  provider: Provider;
  /** A delivery's URL names the hook its triggers share (GitHub) or its one trigger (Vercel). */
  addressedTo: 'hook' | 'trigger';
  /** Whether the raw bytes are signed with one of the secrets, checked in constant time before anything is parsed. */
  verify(raw: Buffer, headers: IncomingHttpHeaders, secrets: readonly string[]): boolean;
  /** The verified delivery, with the provider's delivery id; 'ping' for a check that carries no event; why it is malformed. */
  delivery(raw: Buffer, headers: IncomingHttpHeaders): WebhookDelivery | 'ping' | { malformed: string };
}

export interface WebhookSource extends WebhookIntake {
  /** This trigger's events in one delivery; none when it does not match. */
  match(delivery: WebhookDelivery, config: Record<string, unknown>): NewEvent[];
}

export interface ProviderSetup {
  /** Runs before the trigger is stored: creates or joins provider-side hooks. Throws to refuse the trigger. */
  setup(ctx: SetupContext): Promise<SetupResult>;
  /** Runs when the trigger is deleted: removes what setup created once nothing else uses it. */
  teardown?(ctx: { trigger: Trigger; account: Account; api: Api; store: Store }): Promise<void>;
}

/** Trigger kinds, the event log and the runner, as tools see them; absent where a process serves no triggers. */
export interface TriggerRuntime {
  kinds: Map<string, TriggerKind>;
  log: EventFeed;
  /** Ask the runner (when this process holds it) to poll a trigger soon. */
  pollSoon?(triggerId: string): void;
  publicUrl?: string;
}

/** The durable event log as this process tails it (EventLog). */
export interface EventFeed {
  /** The newest event id this process has delivered to its listeners. */
  readonly lastSeen: number;
  subscribe(listener: (events: TriggerEvent[]) => void): () => void;
  /** Reads anything new now. */
  poke(): Promise<void>;
  /** Resolves when an event after `cursor` (of these triggers, or any) arrives, after `timeoutMs`, or on abort. */
  waitFor(cursor: number, triggerIds: string[] | undefined, timeoutMs: number, signal?: AbortSignal): Promise<void>;
}
