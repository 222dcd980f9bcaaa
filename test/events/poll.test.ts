import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/events/cursor.js';
import { deliverEmail } from '../../src/sandbox/index.js';
import { freshDatabase, type TestDatabase } from '../pg.js';
import { until } from '../support/wait.js';
import { startSubscriber, type Subscriber } from './subscriber.js';

/**
 * events/poll over raw 2026-07-28 JSON-RPC on HTTP: from now, then a sandbox email after the cursor; paging with
 * maxEvents and hasMore; truncated when maxAgeMs cuts; a poll keeps a trigger alive as a subscription of mode 'poll'
 * that the sweep removes with the trigger once polls stop; and every refusal, in the order subscribe checks.
 */

let s: Subscriber;
const NAME = 'outlook.new_email';

type PollAnswer = { events: Array<Record<string, any>>; cursor: string; truncated: boolean; hasMore: boolean; nextPollMs: number; resultType: string };

async function poll(params: Record<string, unknown>, at?: string): Promise<PollAnswer> {
  const { body } = await s.call('events/poll', { name: NAME, ...params }, at);
  if (!body.result) throw new Error(JSON.stringify(body.error));
  return body.result as PollAnswer;
}
const pollRows = async () => (await s.h.store.subscriptions.list()).filter((r) => r.mode === 'poll');

describe.each(['SQLite', 'PostgreSQL'])('events/poll on %s', (adapter) => {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = adapter === 'PostgreSQL' ? await freshDatabase() : undefined;
    s = await startSubscriber({ eventsTiming: { minTtlMs: 600 } }, { databaseUrl: database?.url });
  });
  afterAll(async () => {
    await s.close();
    await database?.drop();
  });

  it('starts from now on a null cursor, then returns a sandbox email that arrived after it', { timeout: 30_000 }, async () => {
    const args = { filter: 'subject:poll' };
    const first = await poll({ arguments: args, cursor: null });
    expect(first).toMatchObject({ resultType: 'complete', events: [], truncated: false, hasMore: false });
    expect(first.nextPollMs).toBeGreaterThanOrEqual(5_000);
    const [row] = await pollRows();
    expect(row).toMatchObject({ mode: 'poll', url: null, name: NAME, arguments: args });
    const trigger = (await s.h.store.triggers.get(row!.triggerId))!;
    expect(trigger.origin).toBe('events');
    // The first poll of the source sets its baseline; an email after it is an event.
    await until(async () => Object.keys((await s.h.store.triggers.get(trigger.id))!.state).length > 0, 'the baseline poll');
    deliverEmail(s.h.sandbox.states.outlook, { subject: 'poll me', from: { name: 'A', address: 'a@acme.com' } });
    deliverEmail(s.h.sandbox.states.outlook, { subject: 'not this one', from: { name: 'A', address: 'a@acme.com' } });
    s.runner.pollSoon(trigger.id);
    await until(async () => (await s.h.store.events.latest(trigger.id, 1)).length > 0, 'the email in the log');

    const next = await poll({ arguments: args, cursor: first.cursor });
    expect(next.events).toHaveLength(1);
    const [occurrence] = next.events;
    expect(occurrence).toMatchObject({ name: NAME, data: { subject: 'poll me' } });
    expect(occurrence!.eventId).toMatch(/^evt_\d+$/);
    expect(occurrence!.timestamp).toMatch(/Z$/);
    expect(next).toMatchObject({ truncated: false, hasMore: false });
    expect(next.cursor).not.toBe(first.cursor);
    // The same poll again with the new cursor: nothing new. The same key found the same row, its life pushed ahead.
    expect((await poll({ arguments: args, cursor: next.cursor })).events).toEqual([]);
    expect(await pollRows()).toHaveLength(1);
    expect((await pollRows())[0]!.refreshBefore).toBeGreaterThan(row!.refreshBefore!);
    await s.h.store.subscriptions.remove(row!.id);
  });

  it('pages with maxEvents and hasMore, and says truncated when maxAgeMs cuts the events asked for', async () => {
    const args = { filter: 'subject:pages' };
    const start = await poll({ arguments: args, cursor: null });
    const [row] = (await pollRows()).filter((r) => r.arguments.filter === 'subject:pages');
    const committed = [];
    for (const n of [1, 2, 3]) committed.push(await s.commit(row!.triggerId, `page ${n}`));
    const page = await poll({ arguments: args, cursor: start.cursor, maxEvents: 2 });
    expect(page.events.map((e) => e.data.subject)).toEqual(['page 1', 'page 2']);
    expect(page).toMatchObject({ hasMore: true, nextPollMs: 0 });
    expect(page.cursor).toBe(encodeCursor(committed[1]!.id));
    const rest = await poll({ arguments: args, cursor: page.cursor, maxEvents: 2 });
    expect(rest.events.map((e) => e.data.subject)).toEqual(['page 3']);
    expect(rest.hasMore).toBe(false);

    await new Promise((r) => setTimeout(r, 300));
    const cut = await poll({ arguments: args, cursor: start.cursor, maxAgeMs: 100 });
    expect(cut).toMatchObject({ events: [], truncated: true });
    const early = await poll({ arguments: args, cursor: encodeCursor(0) });
    expect(early.truncated).toBe(true);
    await s.h.store.subscriptions.remove(row!.id);
  });

  it("keeps its trigger alive while polls come; once they stop, the sweep removes the row and the trigger made for it", async () => {
    await poll({ arguments: { filter: 'subject:lapse' }, cursor: null });
    const [row] = (await pollRows()).filter((r) => r.arguments.filter === 'subject:lapse');
    // As if the last poll were over an hour ago.
    await s.h.store.subscriptions.upsert({ ...row!, refreshBefore: Date.now() - 1 });
    await until(async () => (await s.h.store.subscriptions.get(row!.id)) === undefined, 'the sweep', 5_000);
    await until(async () => (await s.h.store.triggers.get(row!.triggerId)) === undefined, 'the trigger released', 5_000);
  });
});

describe('events/poll refuses', () => {
  let sep: string;
  let readOnly: string;
  let limited: string;
  beforeAll(async () => {
    s = await startSubscriber();
    sep = await s.listen({ eventsErrorCodes: 'sep' });
    readOnly = await s.listen({ readOnly: true });
    const { eventsLimits } = await import('../../src/events/limits.js');
    // A clock that stands still: every poll of the test falls in one minute.
    limited = await s.listen({ eventsLimits: eventsLimits({ pollsPerMinute: 2 }, () => 1_000) });
  });
  afterAll(() => s.close());

  const refused = async (params: Record<string, unknown>, at?: string) => {
    const { body } = await s.call('events/poll', { name: NAME, arguments: {}, cursor: null, ...params }, at);
    expect(body.result, JSON.stringify(body.result)).toBeUndefined();
    return body.error!;
  };

  it('an unknown name, a read-only caller, an account not connected and bad arguments, as subscribe does', async () => {
    expect(await refused({ name: 'outlook.new_fax' })).toMatchObject({ code: -32011, data: { kind: 'event' } });
    expect(await refused({ name: 'outlook.new_fax' }, sep)).toMatchObject({ code: -32023, data: { kind: 'event' } });
    const ro = await refused({}, readOnly);
    expect(ro).toMatchObject({ code: -32012, data: { reason: 'read_only' } });
    expect(ro.message).toMatch(/events\/poll .*may change nothing/);
    expect(await refused({ arguments: { account: 'nobody' } })).toMatchObject({ code: -32012, data: { reason: 'no_account' } });
    expect(await refused({ arguments: { colour: 'red' } })).toMatchObject({ code: -32602 });
    expect(await refused({ arguments: { filter: 'nonsense:(' } })).toMatchObject({ code: -32602, data: { field: 'arguments.filter' } });
  });

  it('a cursor it did not give, a maxAgeMs or maxEvents out of range, each naming the field', async () => {
    expect(await refused({ cursor: 'c_001' })).toMatchObject({ code: -32602, data: { field: 'cursor' } });
    expect(await refused({ maxAgeMs: 0 })).toMatchObject({ code: -32602, data: { field: 'maxAgeMs' } });
    const many = await refused({ maxEvents: 101 });
    expect(many).toMatchObject({ code: -32602, data: { field: 'maxEvents' } });
    expect(many.message).toMatch(/from 1 to 100/);
    expect(await s.h.store.subscriptions.list()).toEqual([]);
  });

  it('a person past the poll rate with ResourceExhausted {limit: polls_per_minute, max}', async () => {
    const args = { filter: 'subject:rate' };
    for (const _ of [1, 2]) expect((await s.call('events/poll', { name: NAME, arguments: args, cursor: null }, limited)).body.result).toBeDefined();
    const over = await refused({ arguments: args }, limited);
    expect(over).toMatchObject({ code: -32013, data: { limit: 'polls_per_minute', max: 2 } });
    expect(over.message).toMatch(/again in 59 s.*SWITCHBOARD_EVENTS_MAX_POLLS_PER_MINUTE/);
  });
});
