import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors.js';
import { DB_FILE_NAME, openStore } from '../../src/store/index.js';
import { TrackedHealth, type StoreProbe } from '../../src/store/health.js';
import { ADAPTERS, cleanUp, openAt, sqlite } from './adapters.js';

afterEach(cleanUp);

const damage = (detail: string) => new StoreUnavailableError(`The store /x is damaged (${detail})`, 'intact', 'damaged', 'data-dir');
const unreachable = () => new StoreUnavailableError('Cannot use the database: nothing answers', 'reachable', 'unreachable', 'database-url');

/** A probe whose checks are counted and whose cheap check fails with `failure` while it is set. */
function countingProbe() {
  const calls = { cheap: 0, thorough: 0 };
  const probe: StoreProbe & { failure?: Error } = {
    async cheap() {
      calls.cheap++;
      if (probe.failure) throw probe.failure;
    },
    async thorough() {
      calls.thorough++;
    },
    classify: (error) => ((error as { code?: string }).code === 'BROKEN' ? damage('BROKEN') : undefined),
    unanswered: () => unreachable(),
  };
  return { probe, calls };
}

describe('store health', () => {
  it('readiness probes share one cheap check per interval, and never read the whole store', async () => {
    const { probe, calls } = countingProbe();
    let now = 1_000_000;
    const health = new TrackedHealth(probe, () => now);
    await Promise.all(Array.from({ length: 20 }, () => health.check()));
    for (let i = 0; i < 10; i++) {
      now += 150;
      expect(await health.check()).toBeUndefined();
    }
    expect(calls).toEqual({ cheap: 1, thorough: 0 });
    now += 2_000;
    await health.check();
    expect(calls).toEqual({ cheap: 2, thorough: 0 });
  });

  it('an unreachable store is ready again once a later check passes; each change is told once', async () => {
    const { probe } = countingProbe();
    let now = 0;
    const health = new TrackedHealth(probe, () => now);
    const told: Array<string | undefined> = [];
    health.onChange((problem) => told.push(problem?.part));
    probe.failure = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect((await health.check())?.part).toBe('reachable');
    now += 2_500;
    expect((await health.check())?.part).toBe('reachable');
    expect(health.refusal()).toBeUndefined();
    probe.failure = undefined;
    now += 2_500;
    expect(await health.check()).toBeUndefined();
    expect(told).toEqual(['reachable', undefined]);
  });

  it('damage seen in any call refuses every later call without reaching the store, and no passing check undoes it', async () => {
    const { probe } = countingProbe();
    let now = 0;
    const health = new TrackedHealth(probe, () => now);
    let reached = 0;
    const triggers = health.guard({
      async list() {
        reached++;
        if (reached === 2) throw Object.assign(new Error('database disk image is malformed'), { code: 'BROKEN' });
        return [];
      },
    });
    expect(await triggers.list()).toEqual([]);
    await expect(triggers.list()).rejects.toThrow('The store /x is damaged (BROKEN)');
    await expect(triggers.list()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(reached).toBe(2);
    now += 10_000;
    expect((await health.check())?.part).toBe('intact');
    expect(health.refusal()?.message).toContain('damaged');
  });

  it('an error that says nothing of the store passes through as it was and changes nothing', async () => {
    const { probe } = countingProbe();
    const health = new TrackedHealth(probe);
    const accounts = health.guard({
      async find(): Promise<never> {
        throw new TypeError('a bug');
      },
    });
    await expect(accounts.find()).rejects.toThrow(TypeError);
    expect(health.problem()).toBeUndefined();
  });
});

describe.each(ADAPTERS)('the health of a store on $name', (adapter) => {
  it('passes both checks when current; a schema newer than this version fails them, naming the upgrade', async () => {
    const location = await adapter.location();
    const store = await openAt(location);
    expect(await store.health.checkThoroughly()).toBeUndefined();
    expect(await store.health.check()).toBeUndefined();
    if (adapter.name === 'sqlite') await adapter.raw(location, 'PRAGMA user_version = 999');
    else await adapter.raw(location, 'INSERT INTO schema_migrations (version) VALUES (999)');
    const problem = await store.health.checkThoroughly();
    expect(problem?.part).toBe('schema');
    expect(problem?.message).toMatch(/schema 999, .*newer Switchboard; this server knows \d+\. Upgrade this server and restart it\./);
    expect(problem?.summary).toMatch(/schema \(999\) is newer than this server's \(\d+\): upgrade this server/);
  });
});

describe('the health of a SQLite store', () => {
  it('start-up reads every page: a damaged table no query has read yet fails the thorough check with the file and how to recover', async () => {
    const location = await sqlite.location();
    const dbFile = join(location.dataDir, DB_FILE_NAME);
    await (await openStore(location)).close();
    const bytes = readFileSync(dbFile);
    const page = 4096;
    // The accounts table's pages, past the schema: opening the store still succeeds.
    Buffer.alloc(2 * page, 0xa5).copy(bytes, 3 * page);
    writeFileSync(dbFile, bytes);
    const store = await openAt(location);
    const problem = await store.health.checkThoroughly();
    expect(problem?.part).toBe('intact');
    expect(problem?.message).toMatch(new RegExp(`^The store ${dbFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged \\(PRAGMA quick_check: .+, SQLITE_CORRUPT\\)`));
    expect(problem?.message).toContain('Restore it from a backup, or move it aside (e.g. to switchboard.db.damaged)');
    expect(problem?.summary).not.toContain(location.dataDir);
  });
});
