import { openCliStore } from '../cli-store.js';
import type { Config } from '../config.js';
import { InputError } from '../errors.js';
import type { ConsumerFailure } from '../store/types.js';
import { eventJson } from './forward.js';
import { checkConsumerName, CLI_CONSUMER_PREFIX } from './tail.js';

/** `switchboard events failed`: the events an `events tail --exec` consumer gave up on, as a table or JSON. */
export async function eventsFailed(config: Config, options: { consumer?: string; json?: boolean }): Promise<string> {
  const failures = await readFailures(config, options.consumer);
  if (options.json) return JSON.stringify(failures.map(failureJson), null, 2);
  if (failures.length === 0) return `No failed events${options.consumer ? ` for consumer ${options.consumer}` : ''}.`;
  const rows = failures.map((f) => [
    String(f.event.id),
    shortName(f.consumer),
    f.event.kind,
    String(f.attempts),
    f.failedAt,
    f.retryRequestedAt ? 'retry queued' : 'failed',
    f.lastError,
    f.event.summary,
  ]);
  const header = ['EVENT', 'CONSUMER', 'KIND', 'ATTEMPTS', 'FAILED AT', 'STATE', 'LAST ERROR', 'SUMMARY'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const table = [header, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
  return [...table, '', 'Run one again: switchboard events retry <event-id> [--consumer NAME]; every one: switchboard events retry --all'].join('\n');
}

/**
 * `switchboard events retry`: asks for failed events to run again; a running `events tail --exec` of
 * the consumer runs them before new events, else the next one started does.
 */
export async function eventsRetry(config: Config, options: { eventId?: string; all?: boolean; consumer?: string }): Promise<string> {
  if (options.eventId !== undefined && options.all) throw new InputError('Give one event id or --all, not both.', 'event-id');
  if (options.eventId === undefined && !options.all) {
    throw new InputError('Name the event to retry: switchboard events retry <event-id> [--consumer NAME], or every failed one: switchboard events retry --all.', 'event-id');
  }
  let eventId: number | undefined;
  if (options.eventId !== undefined) {
    const m = /^#?(\d{1,15})$/.exec(options.eventId.trim());
    if (!m) throw new InputError(`"${options.eventId}" is not an event id: use the number switchboard events failed shows, e.g. switchboard events retry 42.`, 'event-id');
    eventId = Number(m[1]);
  }
  const key = options.consumer === undefined ? undefined : CLI_CONSUMER_PREFIX + checkConsumerName(options.consumer);
  const store = await openCliStore(config);
  try {
    const asked = await store.events.requestRetry({ consumer: key, eventId });
    const scope = options.consumer ? ` for consumer ${options.consumer}` : '';
    if (asked === 0) {
      if (eventId === undefined) return `No failed events to retry${scope}.`;
      throw new InputError(`Event ${eventId} is not in the failed list${scope}; switchboard events failed lists the failed events.`, 'event-id');
    }
    const queued = (await store.events.failures({ consumer: key })).filter((f) => f.retryRequestedAt && (eventId === undefined || f.event.id === eventId));
    const byConsumer = new Map<string, number[]>();
    for (const f of queued) byConsumer.set(shortName(f.consumer), [...(byConsumer.get(shortName(f.consumer)) ?? []), f.event.id]);
    const which = [...byConsumer].map(([consumer, ids]) => `consumer ${consumer}: ${ids.join(', ')}`).join('; ');
    return (
      `Queued ${queued.length} failed event(s) to run again (${which}). A running switchboard events tail --exec of that consumer runs them ` +
      'within a second, before new events; otherwise the next one started does. They leave switchboard events failed once they succeed.'
    );
  } finally {
    await store.close();
  }
}

async function readFailures(config: Config, consumer: string | undefined): Promise<ConsumerFailure[]> {
  const key = consumer === undefined ? undefined : CLI_CONSUMER_PREFIX + checkConsumerName(consumer);
  const store = await openCliStore(config);
  try {
    return (await store.events.failures({ consumer: key })).filter((f) => f.consumer.startsWith(CLI_CONSUMER_PREFIX));
  } finally {
    await store.close();
  }
}

function shortName(consumer: string): string {
  return consumer.slice(CLI_CONSUMER_PREFIX.length);
}

function failureJson(f: ConsumerFailure): Record<string, unknown> {
  return {
    consumer: shortName(f.consumer),
    attempts: f.attempts,
    last_error: f.lastError,
    failed_at: f.failedAt,
    retry_requested_at: f.retryRequestedAt,
    event: eventJson(f.event),
  };
}
