import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { openCliStore } from '../cli-store.js';
import type { Config } from '../config.js';
import { InputError } from '../errors.js';
import type { Store, TriggerEvent } from '../store/types.js';
import { EventLog } from './event-log.js';
import { eventJson } from './forward.js';

/**
 * Ten runs take about 8.5 minutes with the default back-off: long enough to ride out a short outage of
 * whatever the command calls, short enough that one bad event does not hold back the ones after it.
 */
export const DEFAULT_MAX_ATTEMPTS = 10;
export const DEFAULT_BACKOFF: Backoff = { firstMs: 1_000, maxMs: 5 * 60_000 };

/** Consumer cursors of `events tail --exec` are kept under this prefix (MCP's events_next uses "mcp:"). */
export const CLI_CONSUMER_PREFIX = 'cli:';

/** How often an idle --exec tail looks for retries asked for with `switchboard events retry`. */
const RETRY_CHECK_MS = 1_000;

export interface Backoff {
  firstMs: number;
  maxMs: number;
}

export interface TailOptions {
  triggerId?: string;
  json: boolean;
  exec?: string;
  consumer?: string;
  /** Runs of --exec for one event before it is recorded as failed: a number, or the flag's text. */
  maxAttempts?: number | string;
  backoff?: Backoff;
  write: (line: string) => void;
  warn: (line: string) => void;
  signal: AbortSignal;
}

export function checkConsumerName(name: string): string {
  if (!/^[\w.:-]{1,64}$/.test(name)) throw new InputError(`--consumer "${name}" is not a valid name: use letters, digits, _ . : - only, at most 64.`, 'consumer');
  return name;
}

/** The consumer an --exec tail keeps its cursor and failed events under: --consumer, else one named after the command and trigger. */
export function consumerName(exec: string, triggerId: string | undefined, consumer: string | undefined): string {
  if (consumer !== undefined) return checkConsumerName(consumer);
  return createHash('sha256').update(`${exec}\0${triggerId ?? ''}`).digest('hex').slice(0, 16);
}

export function checkMaxAttempts(value: number | string | undefined, exec: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_ATTEMPTS;
  if (!exec) throw new InputError('--max-attempts applies to --exec: add --exec CMD, or leave --max-attempts out.', 'max-attempts');
  const n = typeof value === 'number' ? value : /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InputError(`--max-attempts must be a whole number of at least 1 (got "${value}"), e.g. --max-attempts ${DEFAULT_MAX_ATTEMPTS}.`, 'max-attempts');
  return n;
}

/** The wait after the n-th failed run: doubling from `firstMs`, at most `maxMs`, within 10% either way so tails started together drift apart. */
export function retryDelayMs(failedRuns: number, backoff: Backoff = DEFAULT_BACKOFF): number {
  const step = Math.min(backoff.maxMs, backoff.firstMs * 2 ** (failedRuns - 1));
  return Math.min(backoff.maxMs, Math.round(step * (0.9 + Math.random() * 0.2)));
}

/**
 * `switchboard events tail`: prints events as they are committed. With --exec, runs the command once
 * per event (event JSON on stdin) under a kept consumer cursor that advances only after the command
 * succeeds or the event is recorded as failed, so a crash repeats the event and never skips it.
 */
export async function tailEvents(config: Config, options: TailOptions): Promise<void> {
  const maxAttempts = checkMaxAttempts(options.maxAttempts, options.exec);
  const consumer = options.exec ? consumerName(options.exec, options.triggerId, options.consumer) : undefined;
  const store = await openCliStore(config);
  const log = new EventLog(store.events);
  try {
    if (options.triggerId && !(await store.triggers.get(options.triggerId))) {
      throw new InputError(`No trigger "${options.triggerId}"; switchboard triggers list shows them.`, 'trigger');
    }
    if (options.exec && consumer) await runEach(store, log, { ...options, exec: options.exec, consumer, maxAttempts });
    else await printEach(store, log, options);
  } finally {
    log.stop();
    await store.close();
  }
}

function waitingLine(triggerId: string | undefined, consumer?: string): string {
  const scope = [triggerId ? `trigger ${triggerId}` : 'all triggers', ...(consumer ? [`consumer ${consumer}`] : []), 'Ctrl-C to stop'];
  return `Waiting for events (${scope.join(', ')})…`;
}

async function printEach(store: Store, log: EventLog, options: TailOptions): Promise<void> {
  const triggerIds = options.triggerId ? [options.triggerId] : undefined;
  let cursor = await store.events.lastId();
  await log.start();
  options.warn(waitingLine(options.triggerId));
  while (!options.signal.aborted) {
    const batch = await store.events.after(cursor, { triggerIds, limit: 100 });
    for (const event of batch) {
      options.write(options.json ? JSON.stringify(eventJson(event)) : `#${event.id} ${event.receivedAt} ${event.kind} ${event.triggerId} ${event.summary}`);
      cursor = event.id;
    }
    if (batch.length === 0) await log.waitFor(cursor, triggerIds, 5_000, options.signal);
  }
}

interface ExecOptions extends TailOptions {
  exec: string;
  consumer: string;
  maxAttempts: number;
}

/** Retries asked for run first, then new events in order; an event that fails every attempt is recorded as failed and the next one runs. */
async function runEach(store: Store, log: EventLog, options: ExecOptions): Promise<void> {
  const key = CLI_CONSUMER_PREFIX + options.consumer;
  const triggerIds = options.triggerId ? [options.triggerId] : undefined;
  // A consumer seen for the first time starts now.
  const kept = await store.events.cursor(key);
  let cursor = kept ?? (await store.events.lastId());
  if (kept === undefined) await store.events.setCursor(key, cursor);
  await log.start();
  const parked = (await store.events.failures({ consumer: key })).filter((f) => !f.retryRequestedAt).length;
  if (parked) options.warn(`${parked} event(s) failed earlier for consumer ${options.consumer}: switchboard events failed --consumer ${options.consumer} lists them.`);
  options.warn(waitingLine(options.triggerId, options.consumer));
  while (!options.signal.aborted) {
    const retry = await store.events.nextRetry(key);
    const event = retry ?? (await store.events.after(cursor, { triggerIds, limit: 1 }))[0];
    if (!event) {
      await log.waitFor(cursor, triggerIds, RETRY_CHECK_MS, options.signal);
      continue;
    }
    const outcome = await runWithRetries(event, options);
    if (outcome === 'stopped') return;
    if (outcome === 'done') {
      if (retry) {
        await store.events.clearFailure(key, event.id);
        options.warn(`Event ${event.id} succeeded on retry; it has left the failed list of consumer ${options.consumer}.`);
      } else await store.events.setCursor(key, event.id);
    } else {
      await store.events.recordFailure(key, event.id, { attempts: options.maxAttempts, error: outcome.error });
      options.warn(
        `Event ${event.id} failed ${options.maxAttempts} time(s) (last: ${outcome.error}); it is recorded as failed for consumer ${options.consumer}` +
          `${retry ? '' : ' and the next event runs'}. List failed events: switchboard events failed --consumer ${options.consumer}; ` +
          `run it again: switchboard events retry ${event.id} --consumer ${options.consumer}`,
      );
    }
    if (!retry) cursor = event.id;
  }
}

async function runWithRetries(event: TriggerEvent, options: ExecOptions): Promise<'done' | 'stopped' | { error: string }> {
  for (let run = 1; ; run++) {
    const error = await runCommand(options.exec, event);
    if (error === undefined) return 'done';
    if (options.signal.aborted) return 'stopped';
    if (run >= options.maxAttempts) return { error };
    const wait = retryDelayMs(run, options.backoff);
    options.warn(`--exec ${error} for event ${event.id} (attempt ${run} of ${options.maxAttempts}); trying again in ${(wait / 1000).toFixed(wait < 10_000 ? 1 : 0)} s.`);
    // timers/promises removes its abort listener when the timer fires, so many retries add none.
    await delay(wait, undefined, { signal: options.signal }).catch(() => undefined);
    if (options.signal.aborted) return 'stopped';
  }
}

/** Runs the command with the event JSON on stdin; resolves with what went wrong, or undefined when it exited 0. */
function runCommand(command: string, event: TriggerEvent): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'] });
    child.once('error', (error) => resolve(`could not start: ${error.message}`));
    child.once('close', (code, signal) => resolve(code === 0 ? undefined : code === null ? `was stopped by ${signal}` : `exited with code ${code}`));
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(eventJson(event)) + '\n');
  });
}
