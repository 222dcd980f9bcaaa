import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod/v4';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { openStore, type Store } from '../../src/store/index.js';
import { ADAPTERS, cleanUp, openAt, type StoreLocation } from '../store/adapters.js';
import { backdateEvents } from '../store/states.js';
import { EventLog } from '../../src/triggers/event-log.js';
import type { TriggerKind } from '../../src/contracts/triggers.js';
import { Runner } from '../../src/triggers/runner.js';
import { RETENTION_LEASE, sweepEventLog } from '../../src/triggers/retention.js';
import { until } from '../support/wait.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-runner-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Triggers being polled right now, by any process in the test, and how often one was polled twice at once. */
const running = { ids: new Set<string>(), overlaps: 0 };

function countingKind(counts: Map<string, number>, name: string): TriggerKind {
  return {
    kind: 'outlook.new_email',
    connector: 'outlook',
    description: 'test',
    config: z.object({}),
    payload: z.object({}),
    poll: {
      intervalMs: () => 30,
      async run({ trigger, now }) {
        counts.set(name, (counts.get(name) ?? 0) + 1);
        if (running.ids.has(trigger.id)) running.overlaps++;
        running.ids.add(trigger.id);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running.ids.delete(trigger.id);
        return { events: [{ dedupeKey: `${name}-${now}`, occurredAt: new Date(now).toISOString(), summary: name, payload: {} }], state: { lastPollAt: new Date(now).toISOString(), n: ((trigger.state.n as number) ?? 0) + 1 } };
      },
    },
  };
}

async function process(location: StoreLocation, name: string, counts: Map<string, number>): Promise<{ store: Store; runner: Runner; log: EventLog; seen: number[] }> {
  const store = await openAt(location, { secretKey: 'k' });
  const log = new EventLog(store.events, 30);
  await log.start();
  const seen: number[] = [];
  log.subscribe((events) => seen.push(...events.map((e) => e.id)));
  const runner = new Runner({
    store,
    kinds: new Map([['outlook.new_email', countingKind(counts, name)]]),
    log,
    deps: { baseUrls: { outlook: 'http://127.0.0.1:9' } as never },
    logger: createLogger({ level: 'error' }),
    claimTtlMs: 600,
    tickMs: 20,
  });
  return { store, runner, log, seen };
}

describe.each(ADAPTERS)('claimed polls on $name', (adapter) => {
  afterEach(cleanUp);

  it('shares the triggers between two processes, never polls one twice at once, and the survivor takes over a killed one\'s', { timeout: 30_000 }, async () => {
    const counts = new Map<string, number>();
    const location = await adapter.location();
    const a = await process(location, 'a', counts);
    const b = await process(location, 'b', counts);
    const account = await a.store.accounts.add({ provider: 'outlook', secret: { kind: 'token', token: 'token-123456' } });
    for (let i = 0; i < 6; i++) await a.store.triggers.create({ kind: 'outlook.new_email', accountId: account.id, config: {} });

    await a.runner.start();
    await b.runner.start();
    await until(() => (counts.get('a') ?? 0) >= 6 && (counts.get('b') ?? 0) >= 6, 'polls by both processes');
    const all = (await a.store.events.after(0, { limit: 1000 })).map((e) => e.id);
    await until(() => a.seen.length >= all.length && b.seen.length >= all.length, 'both logs to read every event');
    expect(b.seen.slice(0, all.length)).toEqual(all);
    expect(a.seen.slice(0, all.length)).toEqual(all);

    // a dies without finishing or releasing anything: b polls every trigger once a's claims expire.
    const timer = (a.runner as unknown as { timer: NodeJS.Timeout }).timer;
    clearInterval(timer);
    (a.runner as unknown as { timer: undefined }).timer = undefined;
    const before = counts.get('b')!;
    await until(() => (counts.get('b') ?? 0) >= before + 12, 'b to carry on polling all six');
    expect(running.overlaps).toBe(0);

    await b.runner.stop();
    a.log.stop();
    b.log.stop();
  });
});

describe('runner polls on request', () => {
  it('runs a poll asked for while one is under way right after it, not an interval later', async () => {
    const store = await openStore({ dataDir: mkdtempSync(join(tmpdir(), 'sb-runner-soon-')), secretKey: 'k' });
    const log = new EventLog(store.events, 30);
    await log.start();
    let release!: () => void;
    const runsOf = new Map<string, number>();
    let slowId = '';
    const runs = () => runsOf.get(slowId) ?? 0;
    const slowKind: TriggerKind = {
      kind: 'outlook.new_email',
      connector: 'outlook',
      description: 'test',
      config: z.object({}),
      payload: z.object({}),
      poll: {
        intervalMs: () => 60_000,
        async run({ trigger, now }) {
          const n = (runsOf.get(trigger.id) ?? 0) + 1;
          runsOf.set(trigger.id, n);
          if (trigger.id === slowId && n === 1) await new Promise<void>((r) => (release = r));
          return { events: [], state: { lastPollAt: new Date(now).toISOString(), runs: n } };
        },
      },
    };
    const runner = new Runner({
      store,
      kinds: new Map([['outlook.new_email', slowKind]]),
      log,
      deps: { baseUrls: { outlook: 'http://127.0.0.1:9' } as never },
      logger: createLogger({ level: 'error' }),
      tickMs: 10,
    });
    const account = await store.accounts.add({ provider: 'outlook', secret: { kind: 'token', token: 'token-123456' } });
    const trigger = await store.triggers.create({ kind: 'outlook.new_email', accountId: account.id, config: {}, state: { lastPollAt: new Date().toISOString() } });
    const marker = await store.triggers.create({ kind: 'outlook.new_email', accountId: account.id, config: {}, state: { lastPollAt: new Date().toISOString() } });
    slowId = trigger.id;
    await runner.start();
    runner.pollSoon(trigger.id);
    await until(() => runs() === 1, 'the first poll');
    runner.pollSoon(trigger.id); // asked again while the first poll is under way
    release();
    await until(async () => (await store.triggers.get(trigger.id))!.state.runs === 2, 'the second poll to finish');
    expect(runs()).toBe(2);
    // Two more polls of another trigger, each on a later tick, give a repeat of the first every chance to show.
    // The other trigger was due when the runner started (a trigger's first poll is due at once): that was its first.
    await until(async () => (await store.triggers.get(marker.id))!.state.runs === 1, 'the first poll of the other trigger');
    for (const n of [2, 3]) {
      runner.pollSoon(marker.id);
      await until(async () => (await store.triggers.get(marker.id))!.state.runs === n, `poll ${n} of the other trigger`);
    }
    expect(runs()).toBe(2); // and then back to the interval
    await runner.stop();
    log.stop();
    await store.close();
  });
});

describe('event log', () => {
  it('started late, still delivers the events received since the time it is given', async () => {
    const dataDir = mkdtempSync(join(dir, 'since-'));
    const store = await openStore({ dataDir, secretKey: 'k' });
    const account = await store.accounts.add({ provider: 'outlook', secret: { kind: 'token', token: 'token-123456' } });
    const trigger = await store.triggers.create({ kind: 'outlook.new_email', accountId: account.id, config: {} });
    const event = (key: string) => ({ dedupeKey: key, occurredAt: new Date().toISOString(), summary: key, payload: {} });
    await store.triggers.commit(trigger.id, { events: [event('before')] });
    backdateEvents(dataDir, '2000-01-01T00:00:00.000Z');
    const since = new Date();
    const [missed] = await store.triggers.commit(trigger.id, { events: [event('while loading')] });
    const log = new EventLog(store.events, 10_000);
    const seen: string[] = [];
    log.subscribe((events) => seen.push(...events.map((e) => e.summary)));
    await log.start(since);
    await log.poke();
    expect(seen).toEqual(['while loading']);
    expect(log.lastSeen).toBe(missed!.id);
    log.stop();
    await store.close();
  });

  it('reads nothing once stopped, even for a poke made just before', async () => {
    let reads = 0;
    const store = { lastId: async () => 0, after: async () => (reads++, []), watchCommits: async () => undefined } as never;
    const log = new EventLog(store, 10_000);
    await log.start();
    const poked = log.poke();
    log.stop();
    await poked;
    expect(reads).toBe(0);
  });
});

describe.each(ADAPTERS)('event log retention on $name', (adapter) => {
  afterEach(cleanUp);

  it('prunes on start and then every period, on the one instance holding the lease', async () => {
    const location = await adapter.location();
    const store = await openAt(location, { secretKey: 'k' });
    const other = await openAt(location, { secretKey: 'k' });
    const logger = createLogger({ level: 'error' });
    const account = await store.accounts.add({ provider: 'outlook', secret: { kind: 'token', token: 'token-123456' } });
    const trigger = await store.triggers.create({ kind: 'outlook.new_email', accountId: account.id, config: {} });
    const event = (key: string) => ({ dedupeKey: key, occurredAt: new Date().toISOString(), summary: key, payload: {} });
    const [old] = await store.triggers.commit(trigger.id, { events: [event('old')] });
    await adapter.raw(location, 'UPDATE events SET received_at = ?', '2000-01-01T00:00:00.000Z');
    const [recent] = await store.triggers.commit(trigger.id, { events: [event('recent')] });
    const ids = async () => (await store.events.after(0, { limit: 10 })).map((e) => e.id);

    const runner = new Runner({ store, kinds: new Map(), log: new EventLog(store.events, 10_000), deps: { baseUrls: {} as never }, logger, eventRetentionDays: 7, retentionEveryMs: 200 });
    await runner.start();
    await until(async () => (await ids()).length === 1, 'the old event pruned at start');
    expect(await ids()).toEqual([recent!.id]);
    expect(await store.events.prunedThrough()).toBe(old!.id);

    // Another instance leaves it to the holder; the holder's next sweeps take what has aged since.
    const [aged] = await store.triggers.commit(trigger.id, { events: [event('aged')] });
    await adapter.raw(location, 'UPDATE events SET received_at = ? WHERE id = ?', '2000-01-01T00:00:00.000Z', aged!.id);
    expect(await sweepEventLog({ store: other, holder: 'another-instance', logger, days: 7 })).toBe(0);
    await until(async () => !(await ids()).includes(aged!.id), 'the next sweep');
    await runner.stop();
    await adapter.raw(location, 'UPDATE leases SET expires_at = 1 WHERE name = ?', RETENTION_LEASE);
    await adapter.raw(location, 'UPDATE events SET received_at = ?', '2000-01-01T00:00:00.000Z');
    expect(await sweepEventLog({ store: other, holder: 'another-instance', logger, days: 7 })).toBe(1);
  });
});

