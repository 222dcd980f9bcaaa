import { metrics, type Counter, type Histogram, type Meter, type ObservableGauge } from '@opentelemetry/api';

/** The MCP semantic conventions' buckets for operation and session durations, in seconds. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/** Every figure Switchboard records; docs/operations.md lists them with a query each. */
export interface Instruments {
  operationDuration: Histogram;
  sessionDuration: Histogram;
  sessions: ObservableGauge;
  providerRequests: Counter;
  providerDuration: Histogram;
  webhookDeliveries: Counter;
  deliveryAttempts: Counter;
  deliveryLag: Histogram;
  backlog: ObservableGauge;
  storePool: ObservableGauge;
  claimed: Counter;
  polls: Counter;
  reconnectRequired: Counter;
  meter: Meter;
}

let recording = false;
let built: Instruments | undefined;

/** Set once the SDK's meter provider is in place: instruments made before would be the API's no-ops for good. */
export function enableMetrics(): void {
  recording = true;
  built = undefined;
}

/** The instruments, or undefined while metrics are off: callers skip the work of their attributes then. */
export function instruments(): Instruments | undefined {
  if (!recording) return undefined;
  return (built ??= build(metrics.getMeter('switchboard')));
}

function build(meter: Meter): Instruments {
  const seconds = (name: string, description: string, buckets = DURATION_BUCKETS) =>
    meter.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: buckets } });
  return {
    meter,
    operationDuration: seconds('mcp.server.operation.duration', 'MCP requests handled, by method and tool'),
    sessionDuration: seconds('mcp.server.session.duration', 'MCP sessions over Streamable HTTP, from initialize to their end', [1, 10, 60, 300, 900, 1800, 3600, 14400, 86400]),
    sessions: meter.createObservableGauge('switchboard.mcp.sessions', { description: 'MCP sessions open now over Streamable HTTP', unit: '{session}' }),
    providerRequests: meter.createCounter('switchboard.provider.requests', { description: 'Requests sent to providers, each retry counted, by provider, status and retry', unit: '{request}' }),
    providerDuration: seconds('http.client.request.duration', 'Provider requests, each attempt'),
    webhookDeliveries: meter.createCounter('switchboard.webhook.deliveries', { description: 'Provider webhook deliveries received, by provider and outcome (accepted or why refused)', unit: '{delivery}' }),
    deliveryAttempts: meter.createCounter('switchboard.event.delivery.attempts', { description: 'Attempts to deliver an event to a webhook URL, by route and outcome', unit: '{attempt}' }),
    deliveryLag: seconds('switchboard.event.delivery.lag', 'From an event committed to the log to its delivery', LAG_BUCKETS),
    backlog: meter.createObservableGauge('switchboard.event.delivery.backlog', { description: 'Deliveries pending in the store: due now, or waiting for a later attempt', unit: '{delivery}' }),
    storePool: meter.createObservableGauge('switchboard.store.pool', {
      description: 'The store connections of this process: its size, those in use by store calls now, and calls waiting for one',
      unit: '{connection}',
    }),
    claimed: meter.createCounter('switchboard.work.claimed', { description: 'Polls and deliveries this process claimed from the shared store', unit: '{item}' }),
    polls: meter.createCounter('switchboard.trigger.polls', { description: 'Trigger polls run, by trigger kind', unit: '{poll}' }),
    reconnectRequired: meter.createCounter('switchboard.accounts.reconnect_required', { description: 'Accounts whose provider refused to renew their sign-in: they need reconnecting', unit: '{account}' }),
  };
}
