import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PendingSignIn, Store } from '../../src/store/index.js';
import { rotateSecrets } from '../../src/store/rotate.js';
import { ADAPTERS, cleanUp, openAt, type Adapter, type StoreLocation } from './adapters.js';

afterEach(() => {
  vi.useRealTimers();
  return cleanUp();
});

const HOUR = 3_600_000;
const signIn = (label: string): PendingSignIn => ({
  provider: 'outlook',
  verifier: `verifier-${label}-0123456789abcdefghijklmnopqrstuvwxyz`,
  redirectUri: 'http://127.0.0.1:8765/oauth/callback/outlook',
  groups: ['mail'],
  explicitGroups: true,
  label,
});

/** Every row of a table as one text, to show what a reader of the database sees. */
const rawText = async (adapter: Adapter, location: StoreLocation, table: string) => JSON.stringify(await adapter.raw(location, `SELECT * FROM ${table}`));
const count = async (adapter: Adapter, location: StoreLocation, table: string) => (await adapter.raw(location, `SELECT count(*) AS n FROM ${table}`))[0]!.n as number;

/**
 * The process's own clock is a day behind: a PostgreSQL store still dates and expires entries by the database's clock.
 * A SQLite store's clock is the machine's (every process on one data dir shares it), so there the test runs on the real time.
 */
async function processClockOff(adapter: Adapter, location: StoreLocation): Promise<() => Promise<number>> {
  if (adapter.name === 'sqlite') return async () => Date.now();
  const dbNow = async () => Number((await adapter.raw(location, 'SELECT floor(extract(epoch FROM clock_timestamp()) * 1000) AS ms'))[0]!.ms);
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now() - 24 * HOUR);
  return dbNow;
}

describe.each(ADAPTERS)('short-lived state on $name', (adapter) => {
  let location: StoreLocation;
  let a: Store;
  let b: Store;

  beforeEach(async () => {
    location = await adapter.location();
    a = await openAt(location, { secretKey: 'short-lived key' });
    // A second instance on the same database (or data dir).
    b = await openAt(location, { secretKey: 'short-lived key' });
  });

  describe('sign-in states', () => {
    const o = { ttlMs: 10 * 60_000, max: 200 };

    it('are taken once, by any instance, and kept encrypted under a hash of the state', async () => {
      expect(await a.signIns.put('state-one-0123456789', signIn('one'), o)).toBe(true);
      const raw = await rawText(adapter, location, 'sign_in_states');
      expect(raw).not.toContain('state-one-0123456789');
      expect(raw).not.toContain('verifier-one');
      expect(raw).not.toContain('callback');
      expect(await b.signIns.take('state-one-0123456789')).toEqual(signIn('one'));
      expect(await a.signIns.take('state-one-0123456789')).toBeUndefined();
      expect(await b.signIns.take('state-never-given')).toBeUndefined();
    });

    it('of callbacks racing on two instances, exactly one gets the sign-in', async () => {
      await a.signIns.put('state-race', signIn('race'), o);
      const taken = await Promise.all([a, b, a, b, a, b].map((store) => store.signIns.take('state-race')));
      expect(taken.filter(Boolean)).toEqual([signIn('race')]);
    });

    it('expire on the store\'s clock and are removed', async () => {
      const storeNow = await processClockOff(adapter, location);
      await a.signIns.put('state-fresh', signIn('fresh'), o);
      const [row] = await adapter.raw(location, 'SELECT expires_at FROM sign_in_states');
      expect(Math.abs(Number(row!.expires_at) - (await storeNow()) - o.ttlMs)).toBeLessThan(60_000);
      await a.signIns.put('state-old', signIn('old'), o);
      await adapter.raw(location, 'UPDATE sign_in_states SET expires_at = expires_at - ?', o.ttlMs + 1_000);
      expect(await b.signIns.take('state-old')).toBeUndefined();
      expect(await count(adapter, location, 'sign_in_states')).toBe(1);
      // The next sign-in to start sweeps the expired ones.
      await b.signIns.put('state-next', signIn('next'), o);
      expect(await count(adapter, location, 'sign_in_states')).toBe(1);
      expect(await a.signIns.take('state-fresh')).toBeUndefined();
      expect(await a.signIns.take('state-next')).toEqual(signIn('next'));
    });

    it('at most `max` wait, on all instances together; an expired or taken one frees its place', async () => {
      const small = { ...o, max: 3 };
      expect(await a.signIns.put('s1', signIn('1'), small)).toBe(true);
      expect(await b.signIns.put('s2', signIn('2'), small)).toBe(true);
      expect(await a.signIns.put('s3', signIn('3'), small)).toBe(true);
      expect(await b.signIns.put('s4', signIn('4'), small)).toBe(false);
      expect(await a.signIns.take('s4')).toBeUndefined();
      await b.signIns.take('s1');
      expect(await a.signIns.put('s5', signIn('5'), small)).toBe(true);
      expect(await a.signIns.put('s6', signIn('6'), { ...small, now: Date.now() + o.ttlMs + 1 })).toBe(true);
      expect(await count(adapter, location, 'sign_in_states')).toBe(1);
    });

    it('refuse starts beyond the cap even when instances start them at once', async () => {
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).signIns.put(`burst-${i}`, signIn(String(i)), { ...o, max: 5 })));
      expect(results.filter(Boolean)).toHaveLength(5);
      expect(await count(adapter, location, 'sign_in_states')).toBe(5);
    });
  });

  describe('web sessions', () => {
    const o = { max: 500, idleMs: 12 * HOUR };

    it('are found by any instance under a hash of the id, with the CSRF token kept encrypted', async () => {
      await a.webSessions.create('cookie-id-0123456789', { csrf: 'csrf-token-abcdefghij', authed: true }, o);
      const raw = await rawText(adapter, location, 'web_sessions');
      expect(raw).not.toContain('cookie-id-0123456789');
      expect(raw).not.toContain('csrf-token-abcdefghij');
      expect(await b.webSessions.touch('cookie-id-0123456789', o)).toEqual({ csrf: 'csrf-token-abcdefghij', authed: true });
      expect(await b.webSessions.touch('cookie-id-unknown', o)).toBeUndefined();
      await b.webSessions.remove('cookie-id-0123456789');
      expect(await a.webSessions.touch('cookie-id-0123456789', o)).toBeUndefined();
    });

    it('end after `idleMs` without use on the store\'s clock; each use starts the wait again', async () => {
      const storeNow = await processClockOff(adapter, location);
      await a.webSessions.create('kept', { csrf: 'c1', authed: true }, o);
      await a.webSessions.create('idle', { csrf: 'c2', authed: false }, o);
      const [row] = await adapter.raw(location, 'SELECT last_seen FROM web_sessions WHERE authed = ?', adapter.name === 'sqlite' ? 1 : true);
      expect(Math.abs(Number(row!.last_seen) - (await storeNow()))).toBeLessThan(60_000);
      await adapter.raw(location, 'UPDATE web_sessions SET last_seen = last_seen - ?', o.idleMs - 60_000);
      expect(await b.webSessions.touch('kept', o)).toMatchObject({ csrf: 'c1' });
      await adapter.raw(location, 'UPDATE web_sessions SET last_seen = last_seen - ?', 120_000);
      expect(await b.webSessions.touch('kept', o)).toMatchObject({ csrf: 'c1' });
      expect(await a.webSessions.touch('idle', o)).toBeUndefined();
      expect(await count(adapter, location, 'web_sessions')).toBe(1);
    });

    it('at `max` of a kind, the least recently seen of that kind make room; the other kind is untouched', async () => {
      const small = { max: 2, idleMs: 100 * HOUR };
      const at = (hours: number) => Date.now() - 50 * HOUR + hours * HOUR;
      await a.webSessions.create('in-1', { csrf: 'x', authed: true }, { ...small, now: at(1) });
      await b.webSessions.create('in-2', { csrf: 'x', authed: true }, { ...small, now: at(2) });
      for (let i = 1; i <= 5; i++) await (i % 2 ? a : b).webSessions.create(`out-${i}`, { csrf: 'x', authed: false }, { ...small, now: at(2 + i) });
      await a.webSessions.touch('in-1', { ...small, now: at(10) });
      await b.webSessions.create('in-3', { csrf: 'x', authed: true }, { ...small, now: at(11) });
      const alive = async (id: string) => (await a.webSessions.touch(id, { ...small, now: at(12) })) !== undefined;
      expect(await alive('in-1')).toBe(true);
      expect(await alive('in-2')).toBe(false);
      expect(await alive('in-3')).toBe(true);
      expect(await alive('out-4')).toBe(true);
      expect(await alive('out-5')).toBe(true);
      expect(await alive('out-3')).toBe(false);
    });

    it('keep a message for the next page view, shown by one instance once', async () => {
      await a.webSessions.create('with-flash', { csrf: 'c', authed: true }, o);
      await b.webSessions.setFlash('with-flash', '{"notice":"Renamed the account to personal-data"}');
      expect(await rawText(adapter, location, 'web_sessions')).not.toContain('personal-data');
      expect(await a.webSessions.touch('with-flash', o)).toEqual({ csrf: 'c', authed: true, flash: '{"notice":"Renamed the account to personal-data"}' });
      const views = await Promise.all([a, b, a, b].map((store) => store.webSessions.takeFlash('with-flash')));
      expect(views.filter(Boolean)).toEqual(['{"notice":"Renamed the account to personal-data"}']);
      expect(await b.webSessions.touch('with-flash', o)).toEqual({ csrf: 'c', authed: true });
      await a.webSessions.setFlash('with-flash', 'second');
      await a.webSessions.setFlash('with-flash', null);
      expect(await b.webSessions.takeFlash('with-flash')).toBeUndefined();
      expect(await b.webSessions.takeFlash('no-such-session')).toBeUndefined();
    });
  });

  describe('continuations of cut results', () => {
    const o = { ttlMs: 15 * 60_000, max: 64 };

    it('are taken once, by any instance, for their own tool only, and kept encrypted under a hash of the id', async () => {
      await a.continuations.put('cut_abcdefghijklmnop', 'outlook_find_email', '{"rest":["mail from avery@contoso.example"]}', o);
      const raw = await rawText(adapter, location, 'continuations');
      expect(raw).not.toContain('cut_abcdefghijklmnop');
      expect(raw).not.toContain('avery@contoso.example');
      expect(await b.continuations.take('cut_abcdefghijklmnop', 'github_list_repos')).toBeUndefined();
      const taken = await Promise.all([a, b, a].map((store) => store.continuations.take('cut_abcdefghijklmnop', 'outlook_find_email')));
      expect(taken.filter(Boolean)).toEqual(['{"rest":["mail from avery@contoso.example"]}']);
      expect(await b.continuations.take('cut_abcdefghijklmnop', 'outlook_find_email')).toBeUndefined();
    });

    it('expire on the store\'s clock and are removed', async () => {
      const storeNow = await processClockOff(adapter, location);
      await a.continuations.put('cut_fresh', 't', 'fresh', o);
      const [row] = await adapter.raw(location, 'SELECT expires_at FROM continuations');
      expect(Math.abs(Number(row!.expires_at) - (await storeNow()) - o.ttlMs)).toBeLessThan(60_000);
      await a.continuations.put('cut_old', 't', 'old', o);
      await adapter.raw(location, 'UPDATE continuations SET expires_at = expires_at - ?', o.ttlMs + 1_000);
      expect(await b.continuations.take('cut_old', 't')).toBeUndefined();
      await b.continuations.put('cut_next', 't', 'next', o);
      expect(await count(adapter, location, 'continuations')).toBe(1);
      expect(await a.continuations.take('cut_next', 't')).toBe('next');
    });

    it('at `max` entries of all tools and instances, the oldest make room', async () => {
      const small = { ...o, max: 3 };
      for (let i = 1; i <= 5; i++) await (i % 2 ? a : b).continuations.put(`cut_${i}`, `tool_${i % 2}`, `rest ${i}`, small);
      expect(await count(adapter, location, 'continuations')).toBe(3);
      expect(await a.continuations.take('cut_1', 'tool_1')).toBeUndefined();
      expect(await a.continuations.take('cut_2', 'tool_0')).toBeUndefined();
      expect(await b.continuations.take('cut_3', 'tool_1')).toBe('rest 3');
      expect(await b.continuations.take('cut_4', 'tool_0')).toBe('rest 4');
      expect(await b.continuations.take('cut_5', 'tool_1')).toBe('rest 5');
    });
  });

  it('after `secrets rotate` none of them is left', async () => {
    await a.signIns.put('s', signIn('s'), { ttlMs: 60_000, max: 5 });
    await a.webSessions.create('w', { csrf: 'c', authed: true }, { max: 5, idleMs: HOUR });
    await a.continuations.put('cut_x', 't', 'rest', { ttlMs: 60_000, max: 5 });
    await a.close();
    await b.close();
    await rotateSecrets({ ...location, secretKey: 'short-lived key', newSecretKey: 'the next short-lived key' });
    for (const table of ['sign_in_states', 'web_sessions', 'continuations']) expect(await count(adapter, location, table)).toBe(0);
  });
});
