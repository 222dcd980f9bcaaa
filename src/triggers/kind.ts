import type { Api } from '../http/client.js';
import type { Account, NewEvent, Provider, Trigger } from '../store/types.js';
import type { ObjectSchema } from '../tool.js';

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
  /** Polled sources: how often, and one poll. The first poll (no state) sets a baseline and fires nothing. */
  poll?: {
    intervalMs(config: Record<string, unknown>): number;
    run(ctx: PollContext): Promise<PollResult>;
  };
}

export const DEFAULT_POLL_INTERVAL_S = 60;
export const MIN_POLL_INTERVAL_S = 10;
