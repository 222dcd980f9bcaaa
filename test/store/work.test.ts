import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { ADAPTERS, cleanUp, openAt, type StoreLocation } from './adapters.js';

afterEach(cleanUp);

const POLLED = ['outlook.new_email'];

/** Claimed work on every adapter, seen from two stores opened on one place, as two instances would. */
describe.each(ADAPTERS)('claimed work on $name', (adapter) => {
  let location: StoreLocation;
  let a: Store;
  let b: Store;
  let accountId: string;

  beforeEach(async () => {
    location = await adapter.location();
    a = await openAt(location, { secretKey: 'work key' });
    b = await openAt(location, { secretKey: 'work key' });
    accountId = (await a.accounts.add({ provider: 'outlook', secret: { kind: 'token', token: 'token-work-1' } })).id;
  });

  const polled = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await a.triggers.create({ kind: 'outlook.new_email', accountId, config: {} })).id);
    return ids;
  };

  it('gives each due poll to one holder, of the kinds asked for only, until it is finished', async () => {
    const ids = await polled(3);
    await a.triggers.create({ kind: 'github.push', accountId, config: {} });
    const first = await a.work.claimPolls('a', POLLED, 2, 60_000);
    const second = await b.work.claimPolls('b', POLLED, 5, 60_000);
    expect(first).toHaveLength(2);
    expect([...first, ...second].map((t) => t.id).sort()).toEqual([...ids].sort());
    expect(first[0]).toMatchObject({ kind: 'outlook.new_email', accountId });
    expect(await b.work.claimPolls('b', POLLED, 5, 60_000)).toEqual([]);

    await a.work.finishPoll(first[0]!.id, 'a', 60_000);
    await a.work.finishPoll(first[1]!.id, 'a', 0);
    // Someone else's claim is not theirs to finish.
    await a.work.finishPoll(second[0]!.id, 'a', 0);
    expect((await b.work.claimPolls('b', POLLED, 5, 60_000)).map((t) => t.id)).toEqual([first[1]!.id]);
  });

  it('frees the work of a holder that stops renewing, and keeps the work of one that renews', async () => {
    const [id] = await polled(1);
    expect(await a.work.claimPolls('a', POLLED, 5, 300)).toHaveLength(1);
    await a.work.renewClaims('a', 60_000);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await b.work.claimPolls('b', POLLED, 5, 60_000)).toEqual([]);
    await adapter.raw(location, 'UPDATE triggers SET claimed_until = 1 WHERE id = ?', id);
    expect((await b.work.claimPolls('b', POLLED, 5, 60_000)).map((t) => t.id)).toEqual([id]);
    // The old holder's late renewal and finish leave the new claim alone.
    await a.work.renewClaims('a', 60_000);
    await a.work.finishPoll(id!, 'a', 0);
    expect(await a.work.claimPolls('a', POLLED, 5, 60_000)).toEqual([]);
  });

  it('runs a poll asked for during one right after it, and one asked for between polls at once', async () => {
    const [id] = await polled(1);
    await a.work.claimPolls('a', POLLED, 1, 60_000);
    await b.work.pollSoon(id!);
    await a.work.finishPoll(id!, 'a', 60_000);
    expect((await b.work.claimPolls('b', POLLED, 1, 60_000)).map((t) => t.id)).toEqual([id]);
    await b.work.finishPoll(id!, 'b', 60_000);
    expect(await a.work.claimPolls('a', POLLED, 1, 60_000)).toEqual([]);
    await b.work.pollSoon(id!);
    expect((await a.work.claimPolls('a', POLLED, 1, 60_000)).map((t) => t.id)).toEqual([id]);
    // That request was answered by this claim: finishing schedules the interval, not another poll.
    await a.work.finishPoll(id!, 'a', 60_000);
    expect(await b.work.claimPolls('b', POLLED, 1, 60_000)).toEqual([]);
  });

  it('shares due polls among claimers racing for them, none twice', async () => {
    const ids = await polled(40);
    const stores = [a, b, await openAt(location, { secretKey: 'work key' }), await openAt(location, { secretKey: 'work key' })];
    const claimed = await Promise.all(
      stores.map(async (store, i) => {
        const mine: string[] = [];
        for (;;) {
          const got = await store.work.claimPolls(`h${i}`, POLLED, 3, 60_000);
          if (got.length === 0) return mine;
          mine.push(...got.map((t) => t.id));
        }
      }),
    );
    const all = claimed.flat();
    expect(all.sort()).toEqual([...ids].sort());
  });

  it('claims due forwards once, frees them with their attempt, and after a dead holder\'s claim expires', async () => {
    const trigger = await a.triggers.create({ kind: 'outlook.new_email', accountId, config: {}, forwardUrl: 'http://127.0.0.1:9/x', secrets: { forward: 'forward-secret-9' } });
    const [e1, e2] = await a.triggers.commit(trigger.id, {
      events: ['1', '2'].map((k) => ({ dedupeKey: k, occurredAt: '2026-11-22T10:00:00Z', summary: k, payload: {} })),
    });
    const mine = await a.work.claimDeliveries('a', 1, 60_000);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ url: 'http://127.0.0.1:9/x', attempts: 0, secret: 'forward-secret-9' });
    expect(mine[0]!.event.id).toBe(e1!.id);
    const theirs = await b.work.claimDeliveries('b', 5, 60_000);
    expect(theirs.map((d) => d.event.id)).toEqual([e2!.id]);
    expect(await b.work.claimDeliveries('b', 5, 60_000)).toEqual([]);

    await a.events.recordAttempt(mine[0]!.id, { status: 503, error: 'receiver answered 503', durationMs: 2, delivered: false, nextAttemptAt: Date.now() - 1 });
    expect((await b.work.claimDeliveries('b', 5, 60_000)).map((d) => ({ id: d.event.id, attempts: d.attempts }))).toEqual([{ id: e1!.id, attempts: 1 }]);
    await adapter.raw(location, 'UPDATE deliveries SET claimed_until = 1');
    expect((await a.work.claimDeliveries('a', 5, 60_000)).map((d) => d.event.id).sort()).toEqual([e1!.id, e2!.id]);
  });

  it('hands a subscription delivery to one holder, and the same delivery to another once a dead holder\'s claim expires', async () => {
    const trigger = await a.triggers.create({ kind: 'github.new_issue', accountId, config: {}, origin: 'events' });
    const url = 'https://agent.example/hook?mcp_event_subscription=1';
    await a.subscriptions.upsert({ id: 'sub_w', mode: 'webhook', name: 'github.new_issue', arguments: {}, url, triggerId: trigger.id, secret: 'whsec_work', refreshBefore: null });
    const [event] = await b.triggers.commit(trigger.id, { events: [{ dedupeKey: 'i1', occurredAt: '2026-11-22T10:00:00Z', summary: 'i1', payload: {} }] });
    const [mine] = await a.work.claimDeliveries('a', 5, 60_000);
    expect(mine).toMatchObject({ url, event: { id: event!.id }, subscription: { id: 'sub_w', secrets: ['whsec_work'] } });
    expect(await b.work.claimDeliveries('b', 5, 60_000)).toEqual([]);
    // a is killed mid-send: its claim runs out and b sends the very same delivery, so the same event id.
    await adapter.raw(location, 'UPDATE deliveries SET claimed_until = 1');
    const [theirs] = await b.work.claimDeliveries('b', 5, 60_000);
    expect(theirs).toMatchObject({ id: mine!.id, event: { id: event!.id }, subscription: { id: 'sub_w' } });
    await b.events.recordAttempt(theirs!.id, { status: 204, durationMs: 1, nextAttemptAt: null, delivered: true });
    await a.events.recordAttempt(mine!.id, { status: 204, durationMs: 1, nextAttemptAt: null, delivered: true });
    expect(await adapter.raw(location, 'SELECT count(*) AS n FROM deliveries')).toEqual([{ n: 1 }]);
    expect(await a.subscriptions.watermark('sub_w')).toBe(event!.id);
  });

  it('tells a listener of commits by another store when the store can push them', async () => {
    let heard = 0;
    const stop = await b.events.watchCommits(() => heard++);
    if (adapter.name === 'sqlite') {
      expect(stop).toBeUndefined();
      return;
    }
    // Once on listening: what was committed before it is read then.
    expect(heard).toBe(1);
    const trigger = await a.triggers.create({ kind: 'github.push', accountId, config: {} });
    await a.triggers.commit(trigger.id, { events: [{ dedupeKey: 'n', occurredAt: '2026-11-22T10:00:00Z', summary: 'n', payload: {} }] });
    const deadline = Date.now() + 5_000;
    while (heard < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(heard).toBe(2);
    await stop!();
  });
});
