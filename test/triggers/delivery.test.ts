import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { until } from '../support/wait.js';

let h: Harness;
let triggerId: string;

const EventNotification = z.object({
  method: z.literal('notifications/switchboard/event'),
  params: z.object({ eventId: z.string(), triggerId: z.string(), kind: z.string(), occurredAt: z.string(), summary: z.string() }),
});

beforeAll(async () => {
  h = await startHarness();
  const created = await h.ok('triggers_create', { kind: 'outlook.new_email', config: { filter: 'subject:report' } });
  triggerId = created.trigger.id;
});
afterAll(() => h.close());

let seq = 0;
async function commitEvent(summary = 'Email from Dana: report') {
  seq++;
  const [event] = await h.store.triggers.commit(triggerId, {
    events: [{ dedupeKey: `m${seq}`, occurredAt: new Date().toISOString(), summary, payload: { subject: 'report', n: seq } }],
  });
  return event!;
}

describe('event delivery over MCP', () => {
  it('creates a trigger with a baseline and says what happens next', async () => {
    const list = await h.ok('triggers_list');
    const t = list.triggers.find((x: { id: string }) => x.id === triggerId);
    expect(t).toMatchObject({ kind: 'outlook.new_email', account: 'sample', status: 'active', fired: 0, config: { filter: 'subject:report' } });
    const stored = await h.store.triggers.get(triggerId);
    expect(stored!.state.deltaLink).toMatch(/deltatoken/i);
  });

  it('sends the vendor notification and resources/updated to a subscriber', async () => {
    const uri = `switchboard://triggers/${triggerId}/events`;
    const vendor: Array<z.infer<typeof EventNotification>['params']> = [];
    const updated: string[] = [];
    h.client.setNotificationHandler(EventNotification, (n) => void vendor.push(n.params));
    h.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await h.client.subscribeResource({ uri });
    const event = await commitEvent();
    await h.deps.triggers!.log.poke();
    await until(() => vendor.length === 1 && updated.length === 1, 'both notifications');
    expect(vendor).toContainEqual({ eventId: String(event.id), triggerId, kind: 'outlook.new_email', occurredAt: event.occurredAt, summary: 'Email from Dana: report' });
    expect(updated).toContain(uri);
    const read = await h.client.readResource({ uri });
    expect(JSON.parse((read.contents[0] as { text: string }).text).events[0]).toMatchObject({ id: String(event.id), summary: 'Email from Dana: report' });

    await h.client.unsubscribeResource({ uri });
    updated.length = 0;
    await commitEvent();
    await h.deps.triggers!.log.poke();
    await until(() => vendor.length === 2, 'the vendor notification');
    // The server sends resources/updated right after the vendor notification of the same event, so a
    // request answered after that point would follow it on the ordered transport.
    await h.client.ping();
    expect(updated).toEqual([]);
    expect(vendor.length).toBe(2);
  });

  it('lists the trigger as a resource and its template', async () => {
    const { resources } = await h.client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`switchboard://triggers/${triggerId}/events`);
    const { resourceTemplates } = await h.client.listResourceTemplates();
    expect(resourceTemplates[0]!.uriTemplate).toBe('switchboard://triggers/{id}/events');
  });

  it('events_next with a wait returns as soon as an event is committed, well before the wait ends', async () => {
    const start = await h.ok('events_next', { triggers: [triggerId] });
    const log = h.deps.triggers!.log;
    const waitFor = log.waitFor;
    const waiting = new Promise<void>((resolve) => {
      log.waitFor = (...args) => (resolve(), waitFor.apply(log, args));
    });
    const pending = h.ok('events_next', { triggers: [triggerId], cursor: start.next_cursor, wait_seconds: 20 });
    await waiting;
    log.waitFor = waitFor;
    const committedAt = Date.now();
    const event = await commitEvent();
    const result = await pending;
    expect(Date.now() - committedAt).toBeLessThan(10_000);
    expect(result.events.map((e: { id: string }) => e.id)).toEqual([String(event.id)]);
    expect(result.next_cursor).toBe(String(event.id));
  });

  it('events_next without a wait answers at once, and pages with more', async () => {
    const from = await h.ok('events_next', { triggers: [triggerId], cursor: '0', limit: 2 });
    expect(from.events).toHaveLength(2);
    expect(from.more).toBe(true);
    const t0 = Date.now();
    const none = await h.ok('events_next', { triggers: [triggerId] });
    expect(none.events).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(500);
  });

  it('a named consumer gets unacknowledged events again and moves on only when it acknowledges', async () => {
    const first = await h.ok('events_next', { consumer: 'agent-1', triggers: [triggerId], cursor: '0' });
    const again = await h.ok('events_next', { consumer: 'agent-1', triggers: [triggerId] });
    expect(again.events.map((e: { id: string }) => e.id)).toEqual(first.events.map((e: { id: string }) => e.id));
    expect(first.events.length).toBeGreaterThan(0);
    const acked = await h.ok('events_next', { consumer: 'agent-1', triggers: [triggerId], cursor: first.next_cursor });
    expect(acked.events).toEqual([]);
    const event = await commitEvent();
    const next = await h.ok('events_next', { consumer: 'agent-1', triggers: [triggerId] });
    expect(next.events.map((e: { id: string }) => e.id)).toEqual([String(event.id)]);
  });

  it('a new consumer without a cursor starts now, and sees the next event', async () => {
    expect((await h.store.events.after(0, { limit: 1 })).length).toBe(1);
    const start = await h.ok('events_next', { consumer: 'newcomer', triggers: [triggerId] });
    expect(start.events).toEqual([]);
    expect(start.next_cursor).toBe(String(await h.store.events.lastId()));
    const event = await commitEvent();
    const next = await h.ok('events_next', { consumer: 'newcomer', triggers: [triggerId] });
    expect(next.events.map((e: { id: string }) => e.id)).toEqual([String(event.id)]);
    const replay = await h.ok('events_next', { consumer: 'newcomer', triggers: [triggerId], cursor: '0', limit: 1 });
    expect(replay.events[0].id).toBe(String((await h.store.events.after(0, { limit: 1 }))[0]!.id));
  });

  it('refuses a cursor beyond the newest event, naming the field and the head, and keeps the consumer where it was', async () => {
    const head = await h.store.events.lastId();
    const text = await h.fails('events_next', { consumer: 'far-ahead', cursor: '999999' });
    expect(text).toMatch(/"cursor" 999999 is beyond the newest event/);
    expect(text).toContain(`(${head})`);
    expect(await h.fails('events_next', { cursor: String(head + 1) })).toMatch(/"cursor"/);
    expect(await h.store.events.cursor('mcp:far-ahead')).toBeUndefined();
    const event = await commitEvent();
    const next = await h.ok('events_next', { consumer: 'far-ahead', cursor: String(head) });
    expect(next.events.map((e: { id: string }) => e.id)).toEqual([String(event.id)]);
  });

  it('refuses bad arguments by name', async () => {
    expect(await h.fails('events_next', { cursor: 'abc' })).toMatch(/cursor: must be a next_cursor value/);
    expect(await h.fails('events_next', { wait_seconds: 61 })).toMatch(/wait_seconds/);
    expect(await h.fails('triggers_create', { kind: 'outlook.new_email', config: { filter: 'form:x' } })).toMatch(/config.filter: Filter error at position 1/);
    expect(await h.fails('triggers_create', { kind: 'outlook.new_email', config: { poll_interval_seconds: 5 } })).toMatch(/poll_interval_seconds/);
    expect(await h.fails('triggers_create', { kind: 'outlook.new_email', forward_url: 'ftp://x' })).toMatch(/forward_url/);
    expect(await h.fails('triggers_delete', { id: 'trg_nope' })).toMatch(/No trigger "trg_nope"/);
  });

  it('deletes a trigger, after which it is gone from the list', async () => {
    const created = await h.ok('triggers_create', { kind: 'outlook.new_email' });
    const deleted = await h.ok('triggers_delete', { id: created.trigger.id });
    expect(deleted).toEqual({ deleted: true, id: created.trigger.id, kind: 'outlook.new_email' });
    const list = await h.ok('triggers_list');
    expect(list.triggers.map((t: { id: string }) => t.id)).not.toContain(created.trigger.id);
  });
});
