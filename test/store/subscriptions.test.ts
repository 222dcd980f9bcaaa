import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewEventSubscription, Store } from '../../src/store/index.js';
import { SUSPEND_AFTER_FAILURES, SUSPEND_AFTER_MS } from '../../src/store/subscription-rules.js';
import { ADAPTERS, cleanUp, openAt, type StoreLocation } from './adapters.js';

afterEach(cleanUp);

const ev = (key: string) => ({ dedupeKey: key, occurredAt: '2026-11-22T10:00:00Z', summary: `s ${key}`, payload: { key } });
const HOUR = 60 * 60 * 1000;

describe.each(ADAPTERS)('event subscriptions on $name', (adapter) => {
  let location: StoreLocation;
  let store: Store;
  let accountId: string;
  let triggerId: string;
  const raw = (sql: string, ...params: unknown[]) => adapter.raw(location, sql, ...params);

  const webhook = (id: string, more: Partial<NewEventSubscription> = {}): NewEventSubscription => ({
    id,
    mode: 'webhook',
    name: 'github.new_issue',
    arguments: { repo: 'octo/hello' },
    url: `https://agent.example/hook?mcp_event_subscription=${id}`,
    triggerId,
    clientName: 'ai-sdk-mcp-client',
    secret: `whsec_${id}_first_secret`,
    refreshBefore: Date.now() + HOUR,
    ...more,
  });

  const deliveriesOf = async (id: string) =>
    (await raw('SELECT event_id, state FROM deliveries WHERE subscription_id = ? ORDER BY event_id', id)).map((r) => [Number(r.event_id), r.state]);

  const claimAll = async () => (await store.work.claimDeliveries('test', 100, 60_000)).filter((d) => d.subscription);

  const deliver = async (holder = 'test') => {
    for (const d of await store.work.claimDeliveries(holder, 100, 60_000)) {
      await store.events.recordAttempt(d.id, { status: 204, durationMs: 1, nextAttemptAt: null, delivered: true });
    }
  };

  beforeEach(async () => {
    location = await adapter.location();
    store = await openAt(location, { secretKey: 'k' });
    accountId = (await store.accounts.add({ provider: 'github', secret: { kind: 'token', token: 'ghp_subscriptions_1' } })).id;
    triggerId = (await store.triggers.create({ kind: 'github.new_issue', accountId, config: { repo: 'octo/hello' }, origin: 'events' })).id;
  });

  it('creates, then refreshes under the same id: a new secret is current and the old one signs until its grace ends', async () => {
    await store.triggers.commit(triggerId, { events: [ev('before')] });
    const first = await store.subscriptions.upsert(webhook('sub_a'));
    expect(first.created).toBe(true);
    expect(first.subscription).toMatchObject({ id: 'sub_a', owner: '', mode: 'webhook', status: 'active', startEventId: 1, triggerId, lastError: null, failedSince: null });
    expect(first.subscription.arguments).toEqual({ repo: 'octo/hello' });
    expect(await store.subscriptions.secrets('sub_a')).toEqual({ current: 'whsec_sub_a_first_secret' });

    const later = Date.now() + 2 * HOUR;
    const graceEnd = Date.now() + 60_000;
    const again = await store.subscriptions.upsert(webhook('sub_a', { secret: 'whsec_sub_a_second_secret', refreshBefore: later, previousUntil: graceEnd }));
    expect(again.created).toBe(false);
    expect(again.subscription).toMatchObject({ id: 'sub_a', refreshBefore: later, startEventId: 1 });
    expect(await store.subscriptions.secrets('sub_a')).toEqual({ current: 'whsec_sub_a_second_secret', previous: 'whsec_sub_a_first_secret', previousUntil: graceEnd });
    // The same secret again keeps the grace as it is.
    await store.subscriptions.upsert(webhook('sub_a', { secret: 'whsec_sub_a_second_secret', refreshBefore: later }));
    expect((await store.subscriptions.secrets('sub_a'))?.previous).toBe('whsec_sub_a_first_secret');

    const [row] = await raw('SELECT * FROM event_subscriptions');
    expect(JSON.stringify(row)).not.toMatch(/first_secret|second_secret/);
    expect(await store.subscriptions.list({ triggerId })).toHaveLength(1);
    expect((await store.triggers.get(triggerId))?.origin).toBe('events');
    expect(await raw('SELECT subscriptions FROM triggers WHERE id = ?', triggerId)).toEqual([{ subscriptions: 1 }]);
    await expect(store.subscriptions.upsert(webhook('sub_b', { triggerId: 'trg_missing' }))).rejects.toThrow(/No trigger trg_missing/);
  });

  it('fans a commit out to active, unexpired webhook subscriptions only, once per event and subscription', async () => {
    await store.subscriptions.upsert(webhook('sub_live'));
    await store.subscriptions.upsert(webhook('sub_forever', { refreshBefore: null }));
    await store.subscriptions.upsert(webhook('sub_lapsed', { refreshBefore: Date.now() - 1 }));
    await store.subscriptions.upsert({ ...webhook('sub_poll'), mode: 'poll', url: null, secret: undefined });
    const plain = await store.triggers.create({ kind: 'github.new_issue', accountId, config: { repo: 'octo/other' } });
    expect((await store.triggers.get(plain.id))?.origin).toBeNull();

    const [e1] = await store.triggers.commit(triggerId, { events: [ev('1')] });
    await store.triggers.commit(triggerId, { events: [ev('1')] });
    await store.triggers.commit(plain.id, { events: [ev('elsewhere')] });
    const claimed = await claimAll();
    expect(claimed.map((d) => d.subscription!.id).sort()).toEqual(['sub_forever', 'sub_live']);
    const live = claimed.find((d) => d.subscription!.id === 'sub_live')!;
    expect(live).toMatchObject({ url: webhook('sub_live').url, secret: undefined, attempts: 0, event: { id: e1!.id } });
    expect(live.subscription).toMatchObject({ name: 'github.new_issue', url: webhook('sub_live').url, secrets: ['whsec_sub_live_first_secret'] });
    expect(live.giveUpAt - Date.now()).toBeLessThanOrEqual(15 * 60 * 1000);
    expect(await raw('SELECT count(*) AS n FROM deliveries WHERE subscription_id IS NOT NULL')).toEqual([{ n: 2 }]);
  });

  it('signs with the previous secret too while its grace lasts', async () => {
    await store.subscriptions.upsert(webhook('sub_r'));
    await store.subscriptions.upsert(webhook('sub_r', { secret: 'whsec_sub_r_next', previousUntil: Date.now() + HOUR }));
    await store.triggers.commit(triggerId, { events: [ev('1')] });
    expect((await claimAll())[0]!.subscription!.secrets).toEqual(['whsec_sub_r_next', 'whsec_sub_r_first_secret']);
    await store.subscriptions.upsert(webhook('sub_r', { secret: 'whsec_sub_r_third', previousUntil: Date.now() - 1 }));
    await store.triggers.commit(triggerId, { events: [ev('2')] });
    expect((await claimAll())[0]!.subscription!.secrets).toEqual(['whsec_sub_r_third']);
  });

  it('gives up, rather than hands out, deliveries of lapsed, suspended or removed subscriptions; removing cancels at once', async () => {
    await store.subscriptions.upsert(webhook('sub_lapse'));
    await store.subscriptions.upsert(webhook('sub_gone'));
    await store.subscriptions.upsert(webhook('sub_stays'));
    await store.triggers.commit(triggerId, { events: [ev('1')] });
    await store.subscriptions.upsert(webhook('sub_lapse', { refreshBefore: Date.now() - 1 }));
    expect((await store.subscriptions.expired(Date.now())).map((s) => s.id)).toEqual(['sub_lapse']);
    const removed = await store.subscriptions.remove('sub_gone');
    expect(removed?.id).toBe('sub_gone');
    expect(await store.subscriptions.remove('sub_gone')).toBeUndefined();
    expect(await deliveriesOf('sub_gone')).toEqual([[1, 'cancelled']]);
    expect(await raw('SELECT subscriptions FROM triggers WHERE id = ?', triggerId)).toEqual([{ subscriptions: 2 }]);

    expect((await claimAll()).map((d) => d.subscription!.id)).toEqual(['sub_stays']);
    expect(await deliveriesOf('sub_lapse')).toEqual([[1, 'expired']]);
  });

  it('counts the pending deliveries as due now or waiting for a later attempt, for the backlog gauge', async () => {
    await store.subscriptions.upsert(webhook('sub_b1'));
    await store.subscriptions.upsert(webhook('sub_b2'));
    expect(await store.work.deliveryBacklog()).toEqual({ due: 0, waiting: 0 });
    await store.triggers.commit(triggerId, { events: [ev('1')] });
    expect(await store.work.deliveryBacklog()).toEqual({ due: 2, waiting: 0 });
    const [first, second] = await claimAll();
    await store.events.recordAttempt(first!.id, { status: 503, durationMs: 1, nextAttemptAt: Date.now() + HOUR, delivered: false });
    expect(await store.work.deliveryBacklog()).toEqual({ due: 1, waiting: 1 });
    await store.events.recordAttempt(second!.id, { status: 204, durationMs: 1, nextAttemptAt: null, delivered: true });
    expect(await store.work.deliveryBacklog()).toEqual({ due: 0, waiting: 1 });
  });

  it('suspends a subscription after a long run of failures, enqueues nothing for it then, and revives it on refresh', async () => {
    await store.subscriptions.upsert(webhook('sub_f'));
    const start = Date.now() - 2 * SUSPEND_AFTER_MS;
    for (let i = 0; i < SUSPEND_AFTER_FAILURES - 1; i++) await store.subscriptions.recordOutcome('sub_f', { error: 'http_5xx', at: start + i });
    expect(await store.subscriptions.get('sub_f')).toMatchObject({ status: 'active', lastError: 'http_5xx', failedSince: start });
    await store.subscriptions.recordOutcome('sub_f', { error: 'timeout', at: Date.now() });
    expect(await store.subscriptions.get('sub_f')).toMatchObject({ status: 'suspended', lastError: 'timeout' });
    await store.triggers.commit(triggerId, { events: [ev('1')] });
    expect(await deliveriesOf('sub_f')).toEqual([]);

    await store.subscriptions.upsert(webhook('sub_f'));
    expect(await store.subscriptions.get('sub_f')).toMatchObject({ status: 'active', failedSince: null });

    // A delivered attempt records the success with it: failures cleared, and the time, written at most once a second.
    await store.subscriptions.recordOutcome('sub_f', { error: 'http_5xx', at: Date.now() });
    await store.triggers.commit(triggerId, { events: [ev('2'), ev('3')] });
    const [first, second] = (await claimAll()).filter((d) => d.subscription!.id === 'sub_f');
    const before = Date.now();
    await store.events.recordAttempt(first!.id, { status: 204, durationMs: 1, nextAttemptAt: null, delivered: true });
    const recorded = (await store.subscriptions.get('sub_f'))!;
    expect(recorded).toMatchObject({ failedSince: null, lastError: 'http_5xx' });
    expect(recorded.lastDeliveryAt).toBeGreaterThanOrEqual(before);
    await adapter.raw(location, "UPDATE event_subscriptions SET last_delivery_at = last_delivery_at - 500 WHERE id = 'sub_f'");
    await store.events.recordAttempt(second!.id, { status: 204, durationMs: 1, nextAttemptAt: null, delivered: true });
    expect((await store.subscriptions.get('sub_f'))!.lastDeliveryAt).toBe(recorded.lastDeliveryAt! - 500);
    await adapter.raw(location, "UPDATE event_subscriptions SET last_delivery_at = last_delivery_at - 1000 WHERE id = 'sub_f'");
    await store.events.recordAttempt(second!.id, { status: 204, durationMs: 1, nextAttemptAt: null, delivered: true });
    expect((await store.subscriptions.get('sub_f'))!.lastDeliveryAt).toBeGreaterThanOrEqual(before);
  });

  it('keeps the watermark below the oldest event not yet delivered or given up, and moves it on in quiet times', async () => {
    const other = await store.triggers.create({ kind: 'github.new_issue', accountId, config: { repo: 'octo/other' } });
    await store.subscriptions.upsert(webhook('sub_w'));
    expect(await store.subscriptions.watermark('sub_w')).toBe(0);
    const [e1, e2] = await store.triggers.commit(triggerId, { events: [ev('1'), ev('2')] });
    expect(await store.subscriptions.watermark('sub_w')).toBe(e1!.id - 1);
    const [first] = (await claimAll()).filter((d) => d.event.id === e1!.id);
    await store.events.recordAttempt(first!.id, { status: 204, durationMs: 1, nextAttemptAt: null, delivered: true });
    expect(await store.subscriptions.watermark('sub_w')).toBe(e1!.id);
    const [e3] = await store.triggers.commit(other.id, { events: [ev('3')] });
    expect(await store.subscriptions.watermark('sub_w')).toBe(e1!.id);
    // Given up counts as done: the cursor moves past it (only a replay sends it again).
    await adapter.raw(location, 'UPDATE deliveries SET claimed_until = 1');
    const second = (await claimAll()).find((d) => d.event.id === e2!.id)!;
    await store.events.recordAttempt(second.id, { status: 500, durationMs: 1, nextAttemptAt: null, delivered: false });
    expect(await store.subscriptions.watermark('sub_w')).toBe(e3!.id);
    expect(await store.subscriptions.watermark('sub_unknown')).toBe(0);
  });

  it('replays what was missed once, sends a given-up event again under its own delivery, and says when events are gone', async () => {
    await store.subscriptions.upsert(webhook('sub_p'));
    const [e1] = await store.triggers.commit(triggerId, { events: [ev('1')] });
    await deliver();
    // A lapse: events arrive while the subscription takes none.
    await store.subscriptions.upsert(webhook('sub_p', { refreshBefore: Date.now() - 1 }));
    const [e2, e3] = await store.triggers.commit(triggerId, { events: [ev('2'), ev('3')] });
    await store.subscriptions.upsert(webhook('sub_p'));

    expect(await store.subscriptions.replay('sub_p', { after: 0 })).toEqual({ enqueued: 2, truncated: false });
    expect(await store.subscriptions.replay('sub_p', { after: 0 })).toEqual({ enqueued: 0, truncated: false });
    expect(await deliveriesOf('sub_p')).toEqual([
      [e1!.id, 'delivered'],
      [e2!.id, 'pending'],
      [e3!.id, 'pending'],
    ]);
    const due = await claimAll();
    expect(due.map((d) => d.event.id)).toEqual([e2!.id, e3!.id]);
    await store.events.recordAttempt(due[0]!.id, { status: 410, durationMs: 1, nextAttemptAt: null, delivered: false });
    const again = await store.subscriptions.replay('sub_p', { after: e1!.id });
    expect(again).toEqual({ enqueued: 1, truncated: false });
    await adapter.raw(location, 'UPDATE deliveries SET claimed_until = 1');
    const resent = (await claimAll()).find((d) => d.event.id === e2!.id)!;
    expect(resent).toMatchObject({ id: due[0]!.id, attempts: 0 });

    // notBefore cuts older events, and says so.
    await adapter.raw(location, 'UPDATE events SET received_at = ? WHERE id = ?', '2020-01-01T00:00:00.000Z', e2!.id);
    expect(await store.subscriptions.replay('sub_p', { after: e1!.id, notBefore: '2021-01-01T00:00:00.000Z' })).toMatchObject({ truncated: true });
    expect(await store.subscriptions.replay('sub_p', { after: e2!.id, notBefore: '2021-01-01T00:00:00.000Z' })).toMatchObject({ truncated: false });
    await expect(store.subscriptions.replay('sub_nope', { after: 0 })).rejects.toThrow(/No subscription sub_nope/);
  });

  it('reports a cursor from before the trigger existed, or behind what retention removed, as truncated', async () => {
    const older = await store.triggers.create({ kind: 'github.new_issue', accountId, config: { repo: 'octo/older' } });
    const [o1] = await store.triggers.commit(older.id, { events: [ev('o1')] });
    await adapter.raw(location, 'UPDATE events SET received_at = ?', '2020-01-01T00:00:00.000Z');
    await store.subscriptions.upsert(webhook('sub_t'));
    expect((await store.subscriptions.replay('sub_t', { after: 0 })).truncated).toBe(true);
    expect((await store.subscriptions.replay('sub_t', { after: o1!.id })).truncated).toBe(false);

    expect(await store.events.prune('2021-01-01T00:00:00.000Z')).toBe(1);
    expect(await store.events.prunedThrough()).toBe(o1!.id);
    const [e] = await store.triggers.commit(triggerId, { events: [ev('new')] });
    expect((await store.subscriptions.replay('sub_t', { after: o1!.id - 1 })).truncated).toBe(true);
    expect((await store.subscriptions.replay('sub_t', { after: o1!.id })).truncated).toBe(false);
    expect(e!.id).toBeGreaterThan(o1!.id);
  });

  it('prunes old events with their finished deliveries and attempts, keeping those still owed a delivery or a retry', async () => {
    const forwarded = await store.triggers.create({ kind: 'github.new_issue', accountId, config: { repo: 'octo/fwd' }, forwardUrl: 'http://127.0.0.1:9/x' });
    await store.subscriptions.upsert(webhook('sub_k'));
    const [done] = await store.triggers.commit(forwarded.id, { events: [ev('done')] });
    await deliver();
    const [owed, failedTail, fresh] = [
      ...(await store.triggers.commit(triggerId, { events: [ev('owed')] })),
      ...(await store.triggers.commit(forwarded.id, { events: [ev('tail-failed')] })),
      ...(await store.triggers.commit(forwarded.id, { events: [ev('fresh')] })),
    ];
    for (const d of await store.work.claimDeliveries('test', 100, 60_000)) {
      if (d.event.id === failedTail!.id) await store.events.recordAttempt(d.id, { status: 500, durationMs: 1, nextAttemptAt: null, delivered: false });
    }
    await store.events.recordFailure('cli:a', failedTail!.id, { attempts: 3, error: 'exit code 1' });
    await adapter.raw(location, 'UPDATE events SET received_at = ? WHERE id <> ?', '2020-01-01T00:00:00.000Z', fresh!.id);

    expect(await store.events.prune('2021-01-01T00:00:00.000Z')).toBe(1);
    expect((await store.events.after(0, { limit: 10 })).map((e) => e.id)).toEqual([owed!.id, failedTail!.id, fresh!.id]);
    expect(await store.events.attempts(done!.id)).toEqual([]);
    expect(await raw('SELECT count(*) AS n FROM deliveries WHERE event_id = ?', done!.id)).toEqual([{ n: 0 }]);
    expect(await raw('SELECT count(*) AS n FROM delivery_attempts')).toEqual([{ n: 1 }]);
    expect(await store.events.prunedThrough()).toBe(done!.id);
    expect(await store.events.prune('2021-01-01T00:00:00.000Z')).toBe(0);
  });

  it('keeps callback verifications per owner and URL until they end, and counts subscriptions per owner', async () => {
    const url = 'https://agent.example/hook?mcp_event_subscription=x';
    expect(await store.subscriptions.verifiedCallback('', url)).toBeUndefined();
    const until = Date.now() + HOUR;
    await store.subscriptions.rememberCallback('', url, until);
    expect(await store.subscriptions.verifiedCallback('', url)).toBe(until);
    expect(await store.subscriptions.verifiedCallback('usr_other', url)).toBeUndefined();
    expect(await store.subscriptions.verifiedCallback('', url, until + 1)).toBeUndefined();
    await store.subscriptions.upsert(webhook('sub_c1'));
    await store.subscriptions.upsert(webhook('sub_c2'));
    expect(await store.subscriptions.countByOwner('')).toBe(2);
    expect(await store.subscriptions.countByOwner('usr_other')).toBe(0);
    const stranger = store.ownedBy('usr_other').subscriptions;
    expect(await stranger.get('sub_c1')).toBeUndefined();
    expect(await stranger.list()).toEqual([]);
    expect(await stranger.remove('sub_c1')).toBeUndefined();
    expect(await stranger.secrets('sub_c1')).toBeUndefined();
    await expect(stranger.replay('sub_c1', { after: 0 })).rejects.toThrow(/No subscription/);
    await expect(stranger.upsert(webhook('sub_c3'))).rejects.toThrow(/No trigger/);
    expect(await store.ownedBy('').subscriptions.list()).toHaveLength(2);
  });

  it('removes a trigger\'s subscriptions with it', async () => {
    await store.subscriptions.upsert(webhook('sub_x'));
    await store.triggers.commit(triggerId, { events: [ev('1')] });
    await store.triggers.remove(triggerId);
    expect(await store.subscriptions.get('sub_x')).toBeUndefined();
    expect(await deliveriesOf('sub_x')).toEqual([[1, 'cancelled']]);
  });
});
