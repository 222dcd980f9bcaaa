import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_META_KEY, EVENT_NOTIFICATION, surfaceOf, type EventNote } from '../../src/mcp/server.js';
import { startHarness, type Harness } from '../harness.js';
import { until } from '../support/wait.js';

let h: Harness;
let triggerId: string;
let uri: string;

beforeAll(async () => {
  h = await startHarness();
  triggerId = ((await h.ok('triggers_create', { kind: 'outlook.new_email', config: { filter: 'subject:listen' } })) as { trigger: { id: string } }).trigger.id;
  uri = `switchboard://triggers/${triggerId}/events`;
});
afterAll(() => h.close());

let seq = 0;
async function commitEvent(): Promise<string> {
  seq++;
  const [event] = await h.store.triggers.commit(triggerId, {
    events: [{ dedupeKey: `listen-${seq}`, occurredAt: new Date().toISOString(), summary: `Email ${seq}: listen`, payload: { n: seq } }],
  });
  await h.deps.triggers!.log.poke();
  return String(event!.id);
}

/** A 2026-07-28 client connected the way stdio serves it, recording every notification it is sent. */
async function connectModern() {
  const surface = surfaceOf(h.deps);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const served = serveStdio(({ era }) => surface.create(era, { events: true }), { transport: serverSide });
  const client = new Client({ name: 'listen', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const notes: EventNote[] = [];
  const methods: string[] = [];
  client.fallbackNotificationHandler = async (n) => void methods.push(n.method);
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    methods.push(n.method);
    const note = n.params._meta?.[EVENT_META_KEY] as EventNote | undefined;
    if (n.params.uri === uri && note) notes.push(note);
  });
  await client.connect(clientSide);
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  return { client, notes, methods, close: async () => (await client.close(), await served.close()) };
}

describe('events for a 2026-07-28 client', () => {
  it('arrive on its listen stream as resource updates carrying the event, and nothing it did not ask for', async () => {
    const { client, notes, methods, close } = await connectModern();
    const other = await commitEvent();
    const subscription = await client.listen({ resourceSubscriptions: [uri] });
    expect(subscription.honoredFilter.resourceSubscriptions).toEqual([uri]);
    const eventId = await commitEvent();
    await until(() => notes.length === 1, 'the event on the listen stream');
    expect(notes[0]).toMatchObject({ eventId, triggerId, kind: 'outlook.new_email', summary: expect.stringMatching(/listen/) });
    expect(notes.map((n) => n.eventId)).not.toContain(other);
    expect(methods).not.toContain(EVENT_NOTIFICATION);
    await subscription.close();
    await close();
  });

  it('missed while no stream was open are replayed from the log by cursor, the last event id', async () => {
    const { client, notes, close } = await connectModern();
    const subscription = await client.listen({ resourceSubscriptions: [uri] });
    const seen = await commitEvent();
    await until(() => notes.length === 1, 'the first event');
    await subscription.close();
    const missed = [await commitEvent(), await commitEvent()];
    const replay = await client.callTool({ name: 'events_next', arguments: { cursor: seen, triggers: [triggerId] } });
    expect((replay.structuredContent as { events: Array<{ id: string }> }).events.map((e) => e.id)).toEqual(missed);
    expect(notes).toHaveLength(1);

    const again = await client.listen({ resourceSubscriptions: [uri] });
    const next = await commitEvent();
    await until(() => notes.length === 2, 'the event after listening again');
    expect(notes[1]!.eventId).toBe(next);
    await again.close();
    await close();
  });
});
