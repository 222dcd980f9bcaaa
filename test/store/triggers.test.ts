import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, openStore, runMigrations, type Store } from '../../src/store/index.js';
import { ADAPTERS, cleanUp, openAt, type StoreLocation } from './adapters.js';

afterEach(cleanUp);

const ev = (key: string) => ({ dedupeKey: key, occurredAt: '2026-11-22T10:00:00Z', summary: `s ${key}`, payload: { key } });

describe.each(ADAPTERS)('triggers and events on $name', (adapter) => {
  let location: StoreLocation;
  let store: Store;
  let accountId: string;
  const raw = (sql: string, ...params: unknown[]) => adapter.raw(location, sql, ...params);

  beforeEach(async () => {
    location = await adapter.location();
    store = await openAt(location, { secretKey: 'k' });
    accountId = (await store.accounts.add({ provider: 'outlook', identity: 'a@b.example', secret: { kind: 'token', token: 'tok-123456' } })).id;
  });

  describe('trigger store', () => {
    it('creates, lists, reads secrets and removes triggers', async () => {
      const t = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: { folder: 'inbox' }, secrets: { forward: 'fwd-secret-value' } });
      expect(t.id).toMatch(/^trg_[0-9a-f]{16}$/);
      expect(t).toMatchObject({ kind: 'outlook.new_email', accountId, config: { folder: 'inbox' }, fired: 0, status: 'active' });
      expect(await store.triggers.list({ accountId })).toHaveLength(1);
      expect(await store.triggers.secrets(t.id)).toEqual({ forward: 'fwd-secret-value' });
      const [row] = await raw('SELECT secret_enc FROM triggers');
      expect(row!.secret_enc).not.toContain('fwd-secret-value');
      expect((await store.triggers.remove(t.id))?.id).toBe(t.id);
      expect(await store.triggers.get(t.id)).toBeUndefined();
    });

    it('refuses a trigger for an unknown account by naming the field', async () => {
      await expect(store.triggers.create({ kind: 'outlook.new_email', accountId: 'acc_nope', config: {} })).rejects.toThrow(/No account acc_nope/);
    });

    it('commits events with their state atomically, deduplicating per trigger', async () => {
      const t = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {} });
      const first = await store.triggers.commit(t.id, { events: [ev('m1'), ev('m2')], state: { deltaLink: 'd1' } });
      expect(first.map((e) => e.dedupeKey)).toEqual(['m1', 'm2']);
      const again = await store.triggers.commit(t.id, { events: [ev('m2'), ev('m3')], state: { deltaLink: 'd2' }, skipped: 1 });
      expect(again.map((e) => e.dedupeKey)).toEqual(['m3']);
      expect(again[0]!.id).toBeGreaterThan(first[1]!.id);
      const after = (await store.triggers.get(t.id))!;
      expect(after).toMatchObject({ fired: 3, skipped: 1, state: { deltaLink: 'd2' } });
      expect(after.lastEventAt).not.toBeNull();
    });

    it('notes in providerRefs key by key, counting every note from several connections, beside the state a poll commits', async () => {
      const t = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {}, providerRefs: { hookId: 'hk_1' } });
      const other = await openAt(location, { secretKey: 'k' });
      await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? store : other).triggers.note(t.id, { count: { key: 'refusedNotifications', by: 1 } })));
      await store.triggers.note(t.id, { set: { lifecycle: { event: 'missed', id: 'n1' } }, count: { key: 'refusedNotifications', by: 2 } });
      await store.triggers.commit(t.id, { events: [], state: { deltaLink: 'd1' } });
      await other.triggers.note(t.id, { set: { lifecycle: { event: 'subscriptionRemoved', id: 'n2' } } });
      expect(await store.triggers.get(t.id)).toMatchObject({
        providerRefs: { hookId: 'hk_1', refusedNotifications: 22, lifecycle: { event: 'subscriptionRemoved', id: 'n2' } },
        state: { deltaLink: 'd1' },
      });
      await expect(store.triggers.note(t.id, { set: { 'a.b': 1 } })).rejects.toThrow(/plain identifier/);
    });

    it('records and clears errors', async () => {
      const t = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {} });
      await store.triggers.commit(t.id, { events: [], error: 'Graph answered 503' });
      expect(await store.triggers.get(t.id)).toMatchObject({ status: 'failing', errors: 1, lastError: 'Graph answered 503' });
      await store.triggers.commit(t.id, { events: [], error: null });
      expect(await store.triggers.get(t.id)).toMatchObject({ status: 'active', errors: 1, lastError: null });
    });

    it('rolls back the state when the commit fails', async () => {
      const t = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {}, state: { deltaLink: 'old' } });
      const bad = { dedupeKey: 'x', occurredAt: 'now', summary: 's', payload: { self: undefined as unknown } };
      (bad.payload as any).self = bad.payload; // circular: JSON.stringify throws inside the transaction
      await expect(store.triggers.commit(t.id, { events: [ev('ok'), bad], state: { deltaLink: 'new' } })).rejects.toThrow();
      expect((await store.triggers.get(t.id))!.state).toEqual({ deltaLink: 'old' });
      expect(await store.events.after(0, { limit: 10 })).toEqual([]);
    });

    it('commits a batch in order: a key seen earlier in the batch or before is ignored, ids increase in input order', async () => {
      const a = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {} });
      const b = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {} });
      const [old] = await store.triggers.commit(a.id, { events: [ev('old')] });
      const outcomes = await store.triggers.commitMany([
        { triggerId: a.id, input: { events: [ev('x'), ev('old')] } },
        { triggerId: b.id, input: { events: [ev('x')] } },
        { triggerId: a.id, input: { events: [ev('x'), ev('y')] } },
        { triggerId: a.id, input: { events: [ev('z'), ev('z')] } },
      ]);
      const added = outcomes.map((o) => (o.status === 'fulfilled' ? o.value.map((e) => `${e.triggerId === a.id ? 'a' : 'b'}:${e.dedupeKey}`) : o.reason));
      expect(added).toEqual([['a:x'], ['b:x'], ['a:y'], ['a:z']]);
      const ids = outcomes.flatMap((o) => (o.status === 'fulfilled' ? o.value.map((e) => e.id) : []));
      expect(ids[0]).toBeGreaterThan(old!.id);
      expect(ids).toEqual([...ids].sort((p, q) => p - q));
      expect(new Set(ids).size).toBe(4);
      const log = await store.events.after(old!.id, { limit: 10 });
      expect(log.map((e) => [e.id, e.dedupeKey])).toEqual(outcomes.flatMap((o) => (o.status === 'fulfilled' ? o.value.map((e) => [e.id, e.dedupeKey]) : [])));
      expect(log[0]!.payload).toEqual({ key: 'x' });
      expect(await store.triggers.get(a.id)).toMatchObject({ fired: 4 });
      expect(await store.triggers.get(b.id)).toMatchObject({ fired: 1 });
    });

    it('keeps the other items of a batch when one fails or names a removed trigger', async () => {
      const t = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {}, state: { deltaLink: 'old' } });
      const gone = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {} });
      await store.triggers.remove(gone.id);
      const bad = { dedupeKey: 'bad', occurredAt: 'now', summary: 's', payload: {} as Record<string, unknown> };
      bad.payload.self = bad.payload; // circular: it cannot be written
      const outcomes = await store.triggers.commitMany([
        { triggerId: t.id, input: { events: [ev('1')] } },
        { triggerId: t.id, input: { events: [ev('2'), bad], state: { deltaLink: 'new' } } },
        { triggerId: gone.id, input: { events: [ev('3')] } },
        { triggerId: t.id, input: { events: [ev('4')] } },
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect(outcomes[2]).toEqual({ status: 'fulfilled', value: [] });
      expect((await store.events.after(0, { limit: 10 })).map((e) => e.dedupeKey)).toEqual(['1', '4']);
      expect(await store.triggers.get(t.id)).toMatchObject({ fired: 2, state: { deltaLink: 'old' } });
    });

    it('leaves a trigger\'s counts, error and state as the same commits one after another would', async () => {
      const batched = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {} });
      const single = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {} });
      const inputs = [
        { events: [ev('1')], skipped: 2, error: 'Graph answered 503' },
        { events: [ev('1'), ev('2')], state: { deltaLink: 'd1' } },
        { events: [], error: null, state: { deltaLink: 'd2' } },
        { events: [], error: 'Graph answered 429', skipped: 1 },
      ];
      await store.triggers.commitMany(inputs.map((input) => ({ triggerId: batched.id, input })));
      for (const input of inputs) await store.triggers.commit(single.id, input);
      const counts = ({ fired, skipped, errors, status, lastError, state }: any) => ({ fired, skipped, errors, status, lastError, state });
      expect(counts(await store.triggers.get(batched.id))).toEqual({ fired: 2, skipped: 3, errors: 2, status: 'failing', lastError: 'Graph answered 429', state: { deltaLink: 'd2' } });
      expect(counts(await store.triggers.get(single.id))).toEqual(counts(await store.triggers.get(batched.id)));
      expect(await store.triggers.commitMany([])).toEqual([]);
    });

    it('removes the triggers of a removed account', async () => {
      await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {} });
      await store.accounts.remove(accountId);
      expect(await store.triggers.list()).toEqual([]);
    });
  });

  describe('event store', () => {
    it('pages events after a cursor and filters by trigger', async () => {
      const a = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {} });
      const b = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {} });
      await store.triggers.commit(a.id, { events: [ev('1'), ev('2')] });
      await store.triggers.commit(b.id, { events: [ev('3')] });
      const all = await store.events.after(0, { limit: 10 });
      expect(all.map((e) => e.dedupeKey)).toEqual(['1', '2', '3']);
      expect((await store.events.after(all[0]!.id, { limit: 1 })).map((e) => e.dedupeKey)).toEqual(['2']);
      expect((await store.events.after(0, { triggerIds: [b.id], limit: 10 })).map((e) => e.dedupeKey)).toEqual(['3']);
      expect((await store.events.latest(a.id, 1))[0]!.dedupeKey).toBe('2');
      expect(await store.events.lastId()).toBe(all[2]!.id);
    });

    it('finds the newest event received before a time, reading back from the newest', async () => {
      const t = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {} });
      const [a, b, c] = await store.triggers.commit(t.id, { events: [ev('a'), ev('b'), ev('c')] });
      const receivedAt = (at: string, id: number) => raw('UPDATE events SET received_at = ? WHERE id = ?', at, id);
      await receivedAt('2026-11-22T10:00:00.000Z', a!.id);
      await receivedAt('2026-11-22T10:00:05.000Z', b!.id);
      await receivedAt('2026-11-22T10:00:09.000Z', c!.id);
      expect(await store.events.lastId('2026-11-22T09:59:59.999Z')).toBe(0);
      expect(await store.events.lastId('2026-11-22T10:00:05.000Z')).toBe(a!.id);
      expect(await store.events.lastId('2026-11-22T10:00:05.001Z')).toBe(b!.id);
      expect(await store.events.lastId('2026-11-22T11:00:00.000Z')).toBe(c!.id);
    });

    it('keeps consumer cursors, never moving them back', async () => {
      expect(await store.events.cursor('c')).toBeUndefined();
      await store.events.setCursor('c', 5);
      await store.events.setCursor('c', 3);
      expect(await store.events.cursor('c')).toBe(5);
    });

    it('keeps a consumer\'s failed events, moving its cursor past them, until a retry succeeds', async () => {
      const t = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {} });
      const [e1, e2, e3] = await store.triggers.commit(t.id, { events: [ev('1'), ev('2'), ev('3')] });
      await store.events.setCursor('cli:a', e2!.id);
      await store.events.recordFailure('cli:a', e3!.id, { attempts: 10, error: 'exited with code 3' });
      expect(await store.events.cursor('cli:a')).toBe(e3!.id);
      await store.events.recordFailure('cli:a', e1!.id, { attempts: 2, error: 'exited with code 1' });
      expect(await store.events.cursor('cli:a')).toBe(e3!.id);
      await store.events.recordFailure('cli:b', e1!.id, { attempts: 1, error: 'was stopped by SIGKILL' });

      const all = await store.events.failures();
      expect(all.map((f) => [f.consumer, f.event.id, f.attempts, f.lastError, f.retryRequestedAt])).toEqual([
        ['cli:a', e1!.id, 2, 'exited with code 1', null],
        ['cli:b', e1!.id, 1, 'was stopped by SIGKILL', null],
        ['cli:a', e3!.id, 10, 'exited with code 3', null],
      ]);
      expect(all[0]!.event.payload).toEqual({ key: '1' });
      expect((await store.events.failures({ consumer: 'cli:b' })).map((f) => f.event.id)).toEqual([e1!.id]);
      expect(await store.events.nextRetry('cli:a')).toBeUndefined();

      expect(await store.events.requestRetry({ eventId: e1!.id })).toBe(2);
      expect(await store.events.requestRetry({ consumer: 'cli:a', eventId: e2!.id })).toBe(0);
      expect((await store.events.nextRetry('cli:a'))!.id).toBe(e1!.id);
      expect(await store.events.requestRetry({ consumer: 'cli:a' })).toBe(2);
      expect((await store.events.nextRetry('cli:a'))!.id).toBe(e1!.id);

      // Failing again adds to the attempts and ends the retry request; succeeding removes it.
      await store.events.recordFailure('cli:a', e1!.id, { attempts: 2, error: 'exited with code 4' });
      expect((await store.events.failures({ consumer: 'cli:a' }))[0]).toMatchObject({ attempts: 4, lastError: 'exited with code 4', retryRequestedAt: null });
      expect((await store.events.nextRetry('cli:a'))!.id).toBe(e3!.id);
      await store.events.clearFailure('cli:a', e3!.id);
      expect((await store.events.failures({ consumer: 'cli:a' })).map((f) => f.event.id)).toEqual([e1!.id]);
      expect(await store.events.cursor('cli:a')).toBe(e3!.id);
    });

    it('grants a lease to one holder until it expires', async () => {
      expect(await store.leases.acquire('runner', 'a', 1000, 0)).toBe(true);
      expect(await store.leases.acquire('runner', 'b', 1000, 500)).toBe(false);
      expect(await store.leases.acquire('runner', 'a', 1000, 900)).toBe(true);
      expect(await store.leases.acquire('runner', 'b', 1000, 1500)).toBe(false);
      expect(await store.leases.acquire('runner', 'b', 1000, 2000)).toBe(true);
      await store.leases.release('runner', 'b');
      expect(await store.leases.acquire('runner', 'a', 1000, 2001)).toBe(true);
    });

    it('queues a delivery per event for a trigger with a forward URL', async () => {
      const t = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {}, forwardUrl: 'http://127.0.0.1:9/x', secrets: { forward: 's3cret-value' } });
      const [e] = await store.triggers.commit(t.id, { events: [ev('1')] });
      const due = await store.work.claimDeliveries('test', 10, 60_000);
      expect(due).toHaveLength(1);
      expect(due[0]).toMatchObject({ url: 'http://127.0.0.1:9/x', attempts: 0, secret: 's3cret-value' });
      expect(due[0]!.event.id).toBe(e!.id);
      await store.events.recordAttempt(due[0]!.id, { status: 500, error: 'receiver answered 500', durationMs: 3, delivered: false, nextAttemptAt: Date.now() + 60_000 });
      expect(await store.work.claimDeliveries('test', 10, 60_000)).toEqual([]);
      expect(await store.events.attempts(e!.id)).toMatchObject([{ attempt: 1, status: 500, error: 'receiver answered 500' }]);
    });

    it('queues a delivery per event a batch adds for a trigger with a forward URL', async () => {
      const t = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {}, forwardUrl: 'http://127.0.0.1:9/x' });
      const plain = await store.triggers.create({ kind: 'outlook.new_email', accountId, config: {} });
      const outcomes = await store.triggers.commitMany([
        { triggerId: t.id, input: { events: [ev('1'), ev('2')] } },
        { triggerId: plain.id, input: { events: [ev('3')] } },
        { triggerId: t.id, input: { events: [ev('1')] } },
      ]);
      const forwarded = outcomes.flatMap((o) => (o.status === 'fulfilled' && o.value[0]?.triggerId === t.id ? o.value.map((e) => e.id) : []));
      const due = await store.work.claimDeliveries('test', 10, 60_000);
      expect(due.map((d) => [d.event.id, d.url])).toEqual(forwarded.map((id) => [id, 'http://127.0.0.1:9/x']));
    });
  });
});

describe('SQLite event log', () => {
  it('migrates a version 4 database to keep failed events, with its events and cursors intact', async () => {
    const old = mkdtempSync(join(tmpdir(), 'sb-v4-'));
    const raw = new Database(join(old, 'switchboard.db'));
    runMigrations(raw, MIGRATIONS.filter((m) => m.version <= 4));
    raw.prepare(`INSERT INTO events (trigger_id, kind, dedupe_key, occurred_at, received_at, summary, payload_json) VALUES ('trg_1', 'outlook.new_email', 'k', 'x', 'x', 'old', '{}')`).run();
    raw.prepare(`INSERT INTO consumers (name, cursor, updated_at) VALUES ('cli:a', 1, 'x')`).run();
    raw.close();
    const migrated = await openStore({ dataDir: old, secretKey: 'k' });
    try {
      expect(migrated.db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(5);
      expect(await migrated.events.cursor('cli:a')).toBe(1);
      await migrated.events.recordFailure('cli:a', 1, { attempts: 1, error: 'exited with code 1' });
      expect((await migrated.events.failures())[0]).toMatchObject({ consumer: 'cli:a', event: { id: 1, summary: 'old' } });
    } finally {
      await migrated.close();
      rmSync(old, { recursive: true, force: true });
    }
  });
});
