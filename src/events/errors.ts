/**
 * The MCP Events extension's errors. Two numberings are in use: the design sketch's, which ChatGPT follows, and the
 * SEP draft's provisional one (the 2026-07-28 revision reserves -32020 and below for the specification). Which one
 * is sent is the setting SWITCHBOARD_EVENTS_ERROR_CODES; the typed `data` is the same in both.
 */

import { DEFAULT_EVENTS_ERROR_NUMBERING, type EventsErrorNumbering } from '../config.js';

export { EVENTS_ERROR_NUMBERINGS, type EventsErrorNumbering } from '../config.js';

export const EVENTS_ERROR_CODES = {
  sketch: { InvalidParams: -32602, NotFound: -32011, Forbidden: -32012, ResourceExhausted: -32013, Unsupported: -32014, CallbackEndpointError: -32015 },
  sep: { InvalidParams: -32602, NotFound: -32023, Forbidden: -32024, ResourceExhausted: -32025, Unsupported: -32026, CallbackEndpointError: -32027 },
} as const satisfies Record<EventsErrorNumbering, Record<string, number>>;

export type EventsErrorName = keyof (typeof EVENTS_ERROR_CODES)['sketch'];

/** Why a callback endpoint failed, in the categories `deliveryStatus.lastError` uses: never the endpoint's own output. */
export type CallbackFailure = 'connection_refused' | 'timeout' | 'tls_error' | 'http_4xx' | 'http_5xx' | 'challenge_failed';

/** The `data` each error carries. */
export interface EventsErrorData {
  /** The argument or parameter at fault, e.g. "cursor" or "arguments.repo". */
  InvalidParams: { field: string };
  /** What was not found: an event type, or a subscription. */
  NotFound: { kind: 'event' | 'subscription' };
  Forbidden: { reason: string };
  /** Which limit was reached, and its maximum. */
  ResourceExhausted: { limit: string; max: number };
  /** The feature refused, with the value asked for or the reason it is refused. */
  Unsupported: { feature: string; value: unknown } | { feature: string; reason: string };
  CallbackEndpointError: { reason: CallbackFailure };
}

/** One Events error: its name, the code of the numbering in force, a message naming the fix, and its typed data. */
export class EventsError<N extends EventsErrorName = EventsErrorName> extends Error {
  override readonly name: N;
  readonly code: number;

  constructor(
    name: N,
    message: string,
    readonly data: EventsErrorData[N],
    numbering: EventsErrorNumbering = DEFAULT_EVENTS_ERROR_NUMBERING,
  ) {
    super(message);
    this.name = name;
    this.code = EVENTS_ERROR_CODES[numbering][name];
  }
}

/** The error constructors for one numbering, so callers never pass the numbering around themselves. */
export function eventsErrors(numbering: EventsErrorNumbering = DEFAULT_EVENTS_ERROR_NUMBERING) {
  const make =
    <N extends EventsErrorName>(name: N) =>
    (message: string, data: EventsErrorData[N]) =>
      new EventsError(name, message, data, numbering);
  return {
    invalidParams: make('InvalidParams'),
    notFound: make('NotFound'),
    forbidden: make('Forbidden'),
    resourceExhausted: make('ResourceExhausted'),
    unsupported: make('Unsupported'),
    callbackEndpointError: make('CallbackEndpointError'),
  };
}

export type EventsErrors = ReturnType<typeof eventsErrors>;
