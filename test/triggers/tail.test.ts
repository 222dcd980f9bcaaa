import { getEventListeners } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { openStore, type SqliteStore } from '../../src/store/index.js';
import { eventsFailed, eventsRetry } from '../../src/triggers/failed.js';
import { checkMaxAttempts, DEFAULT_BACKOFF, retryDelayMs, tailEvents, type TailOptions } from '../../src/triggers/tail.js';
import { until } from '../support/wait.js';

let dir: string;
let config: Config;
let store: SqliteStore;
let triggerId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sb-tail-'));
  config = loadConfig({ SWITCHBOARD_SECRET_KEY: 'tail-test-key' }, { 'data-dir': dir });
  store = await openStore({ dataDir: dir, secretKey: 'tail-test-key' });
  const account = await store.accounts.add({ provider: 'outlook', secret: { kind: 'token', token: 'token-123456' } });
  triggerId = (await store.triggers.create({ kind: 'outlook.new_email', accountId: account.id, config: {} })).id;
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
async function commit(summary: string) {
  n++;
  const [event] = await store.triggers.commit(triggerId, { events: [{ dedupeKey: `k${n}`, occurredAt: new Date().toISOString(), summary, payload: { n } }] });
  return event!;
}

/** Starts `events tail` in this process; resolves once it says it is waiting. */
async function startTail(options: Partial<TailOptions>) {
  const stop = new AbortController();
  const warnings: string[] = [];
  let onWarn: (line: string) => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onWarn = (line) => line.startsWith('Waiting for events') && resolve()));
  const done = tailEvents(config, {
    triggerId,
    json: false,
    write: () => undefined,
    ...options,
    warn: (line) => {
      warnings.push(line);
      onWarn(line);
      options.warn?.(line);
    },
    signal: stop.signal,
  });
  await Promise.race([ready, done]);
  return { warnings, signal: stop.signal, done, stop: () => (stop.abort(), done) };
}

function outFile(name: string): { path: string; ids: () => string[] } {
  const path = join(dir, `${name}.out`);
  return { path, ids: () => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).id) : []) };
}

/** A command that fails while `flag` exists and otherwise appends the event to `out`. */
const failWhile = (flag: string, out: string) => `test -e ${flag} && exit 3; cat >> ${out}`;

describe('events tail --exec with a failing command', () => {
  it('says it is waiting, gives up on an event after --max-attempts, records it as failed for its consumer and runs the next one', async () => {
    const out = outFile('give-up');
    const exec = `read -r line; case "$line" in *'"summary":"bad"'*) exit 3;; esac; printf '%s\\n' "$line" >> ${out.path}`;
    const tail = await startTail({ exec, consumer: 'give-up', maxAttempts: 3, backoff: { firstMs: 10, maxMs: 50 } });
    expect(tail.warnings).toEqual([`Waiting for events (trigger ${triggerId}, consumer give-up, Ctrl-C to stop)…`]);
    const bad = await commit('bad');
    const good = await commit('good');
    await until(() => out.ids().length === 1, 'the next event to run');
    await tail.stop();

    expect(out.ids()).toEqual([String(good.id)]);
    const attempts = tail.warnings.filter((w) => w.startsWith('--exec'));
    expect(attempts.map((w) => /attempt (\d) of 3/.exec(w)?.[1])).toEqual(['1', '2']);
    expect(attempts[0]).toMatch(new RegExp(`^--exec exited with code 3 for event ${bad.id} \\(attempt 1 of 3\\); trying again in \\d+\\.\\d s\\.$`));
    const gaveUp = tail.warnings.find((w) => w.startsWith(`Event ${bad.id} failed 3 time(s)`))!;
    expect(gaveUp).toContain('recorded as failed for consumer give-up and the next event runs');
    expect(gaveUp).toContain('switchboard events failed --consumer give-up');
    expect(gaveUp).toContain(`switchboard events retry ${bad.id} --consumer give-up`);
    expect(tail.warnings.join('\n')).not.toMatch(/events_next|_tool/);

    const failures = await store.events.failures({ consumer: 'cli:give-up' });
    expect(failures.map((f) => [f.event.id, f.attempts, f.lastError, f.retryRequestedAt])).toEqual([[bad.id, 3, 'exited with code 3', null]]);
    expect(await store.events.cursor('cli:give-up')).toBe(good.id);
  });

  it('adds no abort listener per retry: 40 failed runs leave the count flat and raise no MaxListenersExceededWarning', async () => {
    const processWarnings: string[] = [];
    const onWarning = (w: Error) => void processWarnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const listeners: number[] = [];
      let signal: AbortSignal | undefined;
      const tail = await startTail({
        exec: 'exit 1',
        consumer: 'no-leak',
        maxAttempts: 40,
        backoff: { firstMs: 1, maxMs: 1 },
        warn: (line) => void (line.startsWith('--exec') && listeners.push(getEventListeners(signal!, 'abort').length)),
      });
      signal = tail.signal;
      const event = await commit('always fails');
      await until(async () => (await store.events.failures({ consumer: 'cli:no-leak' })).length === 1, 'the event to be recorded as failed', 30_000);
      await tail.stop();
      expect(processWarnings).not.toContain('MaxListenersExceededWarning');
      expect(listeners).toHaveLength(39);
      expect(listeners.every((count) => count === 0)).toBe(true);
      expect((await store.events.failures({ consumer: 'cli:no-leak' }))[0]).toMatchObject({ event: { id: event.id }, attempts: 40 });
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a retry asked for while the tail runs is run, and the event leaves the failed list; events failed shows it until then', async () => {
    const flag = join(dir, 'running.flag');
    const out = outFile('running');
    writeFileSync(flag, '');
    const tail = await startTail({ exec: failWhile(flag, out.path), consumer: 'running', maxAttempts: 2, backoff: { firstMs: 5, maxMs: 5 } });
    const event = await commit('fails, then works');
    await until(async () => (await store.events.failures({ consumer: 'cli:running' })).length === 1, 'the failure');

    const table = await eventsFailed(config, { consumer: 'running' });
    expect(table.split('\n')[0]).toMatch(/^EVENT +CONSUMER +KIND +ATTEMPTS +FAILED AT +STATE +LAST ERROR +SUMMARY$/);
    expect(table.split('\n')[1]).toMatch(new RegExp(`^${event.id} +running +outlook\\.new_email +2 +\\S+ +failed +exited with code 3 +fails, then works$`));
    expect(table).toContain('switchboard events retry <event-id>');
    const json = JSON.parse(await eventsFailed(config, { consumer: 'running', json: true }));
    expect(json).toEqual([
      {
        consumer: 'running',
        attempts: 2,
        last_error: 'exited with code 3',
        failed_at: expect.any(String),
        retry_requested_at: null,
        event: expect.objectContaining({ id: String(event.id), trigger_id: triggerId, summary: 'fails, then works', payload: { n: event.payload.n } }),
      },
    ]);

    rmSync(flag);
    expect(await eventsRetry(config, { eventId: String(event.id), consumer: 'running' })).toMatch(
      new RegExp(`^Queued 1 failed event\\(s\\) to run again \\(consumer running: ${event.id}\\)\\. A running switchboard events tail --exec`),
    );
    await until(() => out.ids().length === 1, 'the retried event to run');
    await until(async () => (await store.events.failures({ consumer: 'cli:running' })).length === 0, 'the failed list to empty');
    await tail.stop();
    expect(out.ids()).toEqual([String(event.id)]);
    expect(tail.warnings).toContain(`Event ${event.id} succeeded on retry; it has left the failed list of consumer running.`);
    expect(await eventsFailed(config, { consumer: 'running' })).toBe('No failed events for consumer running.');
  });

  it('the next tail runs retries asked for while none ran before the events that came meanwhile', async () => {
    const flag = join(dir, 'next.flag');
    const out = outFile('next');
    writeFileSync(flag, '');
    const first = await startTail({ exec: failWhile(flag, out.path), consumer: 'next', maxAttempts: 1 });
    const failed = await commit('failed while the command was broken');
    await until(async () => (await store.events.failures({ consumer: 'cli:next' })).length === 1, 'the failure');
    await first.stop();
    expect(first.warnings.filter((w) => w.startsWith('--exec'))).toEqual([]);

    const later = await commit('came while no tail ran');
    rmSync(flag);
    expect(await eventsRetry(config, { all: true, consumer: 'next' })).toContain(`(consumer next: ${failed.id})`);
    const restarted = await startTail({ exec: failWhile(flag, out.path), consumer: 'next', maxAttempts: 1 });
    await until(() => out.ids().length === 2, 'both events');
    await restarted.stop();
    expect(out.ids()).toEqual([String(failed.id), String(later.id)]);
    expect(await store.events.failures({ consumer: 'cli:next' })).toEqual([]);
  });
});

describe('events tail --exec settings and events retry input', () => {
  it('waits 1 s after the first failed run, doubling to at most 5 minutes, within 10%', () => {
    for (let run = 1; run <= 12; run++) {
      const want = Math.min(DEFAULT_BACKOFF.maxMs, 1_000 * 2 ** (run - 1));
      const got = retryDelayMs(run);
      expect(got).toBeGreaterThanOrEqual(want * 0.9);
      expect(got).toBeLessThanOrEqual(Math.min(DEFAULT_BACKOFF.maxMs, want * 1.1));
    }
    expect(retryDelayMs(30)).toBeGreaterThanOrEqual(DEFAULT_BACKOFF.maxMs * 0.9);
    expect(DEFAULT_BACKOFF).toEqual({ firstMs: 1_000, maxMs: 300_000 });
  });

  it('takes --max-attempts as a whole number of at least 1, with --exec only, 10 when not given', () => {
    expect(checkMaxAttempts(undefined, 'cmd')).toBe(10);
    expect(checkMaxAttempts('3', 'cmd')).toBe(3);
    expect(() => checkMaxAttempts('0', 'cmd')).toThrow('--max-attempts must be a whole number of at least 1 (got "0"), e.g. --max-attempts 10.');
    expect(() => checkMaxAttempts('2.5', 'cmd')).toThrow(/--max-attempts must be a whole number/);
    expect(() => checkMaxAttempts('3', undefined)).toThrow('--max-attempts applies to --exec: add --exec CMD, or leave --max-attempts out.');
  });

  it('refuses a bad consumer name before opening anything', async () => {
    await expect(tailEvents(config, { exec: 'true', consumer: 'a b', json: false, write: () => undefined, warn: () => undefined, signal: new AbortController().signal })).rejects.toThrow(
      '--consumer "a b" is not a valid name: use letters, digits, _ . : - only, at most 64.',
    );
  });

  it('events retry names what is missing or wrong', async () => {
    await expect(eventsRetry(config, {})).rejects.toThrow(/^Name the event to retry: switchboard events retry <event-id> \[--consumer NAME\], or every failed one: switchboard events retry --all\.$/);
    await expect(eventsRetry(config, { eventId: '4', all: true })).rejects.toThrow('Give one event id or --all, not both.');
    await expect(eventsRetry(config, { eventId: 'abc' })).rejects.toThrow('"abc" is not an event id: use the number switchboard events failed shows, e.g. switchboard events retry 42.');
    await expect(eventsRetry(config, { eventId: '999999' })).rejects.toThrow('Event 999999 is not in the failed list; switchboard events failed lists the failed events.');
    expect(await eventsRetry(config, { all: true, consumer: 'nobody' })).toBe('No failed events to retry for consumer nobody.');
  });
});
