import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EventStoreLimits } from '../../src/mcp/event-store.js';
import { startHttpListener, type HttpListener } from '../../src/mcp/http.js';
import { surfaceOf, EVENT_NOTIFICATION } from '../../src/mcp/server.js';
import { startHarness, type Harness } from '../harness.js';
import { RawSession, sseEvents, type SseEvent } from './sse.js';
import { until } from '../support/wait.js';

const EventNotification = z.object({
  method: z.literal(EVENT_NOTIFICATION),
  params: z.object({ eventId: z.string(), triggerId: z.string(), summary: z.string() }).passthrough(),
});

let h: Harness;
let triggerId: string;
let listener: HttpListener | undefined;

beforeAll(async () => {
  h = await startHarness();
  triggerId = (await h.ok('triggers_create', { kind: 'outlook.new_email', config: { filter: 'subject:report' } })).trigger.id;
});
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});
afterAll(() => h.close());

const listen = async (sessionIdleMs: number, eventStore?: EventStoreLimits) =>
  (listener = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: surfaceOf(h.deps), logger: h.deps.logger, version: 't', sessionIdleMs, eventStore }));

let seq = 0;
/** Commits one event to the trigger's log and has this process deliver it; returns its id as notifications carry it. */
async function commitEvent(): Promise<string> {
  seq++;
  const [event] = await h.store.triggers.commit(triggerId, {
    events: [{ dedupeKey: `listen-${seq}`, occurredAt: new Date().toISOString(), summary: `Email ${seq}: report`, payload: { subject: 'report', n: seq } }],
  });
  await h.deps.triggers!.log.poke();
  return String(event!.id);
}

/** Reads a stream up to its `count`-th trigger-event notification: those (with their SSE ids) and every method seen. */
async function nextTriggerEvents(events: AsyncGenerator<SseEvent>, count: number) {
  const found: Array<{ sseId: string; eventId: string }> = [];
  const methods: string[] = [];
  while (found.length < count) {
    const { value, done } = await events.next();
    if (done) throw new Error('the stream ended');
    if (!value.data) continue;
    const message = JSON.parse(value.data);
    methods.push(message.method);
    if (message.method === EVENT_NOTIFICATION && message.params.triggerId === triggerId) found.push({ sseId: value.id!, eventId: message.params.eventId });
  }
  return Object.assign(found, { methods });
}

describe('sessions that only listen', () => {
  it('a session with an open stream outlives the idle limit and keeps receiving notifications', async () => {
    const { url } = await listen(1_000);
    const client = new Client({ name: 'listener', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    const received: string[] = [];
    const updated: string[] = [];
    client.setNotificationHandler(EventNotification, (n) => void received.push(n.params.eventId));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
    await client.subscribeResource({ uri: `switchboard://triggers/${triggerId}/events` });
    const first = await commitEvent();
    await until(() => received.includes(first), 'the first notification');

    // A session opened after the listener's last request, without a stream, is ended once it is idle past the limit:
    // by then the listener has made no request for longer than that too.
    const quiet = await RawSession.open(`${url}/mcp`);
    expect(listener!.sessionCount()).toBe(2);
    await until(() => listener!.sessionCount() === 1, 'the quiet session to be ended', 15_000);
    expect((await quiet.post({ jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(404);

    const later = await Promise.all([commitEvent(), commitEvent()]);
    await until(() => later.every((id) => received.includes(id)), 'notifications after the idle limit');
    expect(updated.filter((u) => u.endsWith(`/${triggerId}/events`)).length).toBeGreaterThanOrEqual(3);
    expect(listener!.sessionCount()).toBe(1);
    await expect(client.listTools()).resolves.toHaveProperty('tools');
    await client.close();
  }, 30_000);

  it('a dropped stream resumed with Last-Event-ID receives every event committed while it was away', async () => {
    const { url } = await listen(60_000);
    const session = await RawSession.open(`${url}/mcp`);
    await session.request('resources/subscribe', { uri: `switchboard://triggers/${triggerId}/events` });

    // The stream opens with a priming event: an id to resume from and the retry interval, before any notification.
    const drop1 = new AbortController();
    const opened = await session.listen(undefined, drop1.signal);
    expect(opened.status).toBe(200);
    const stream1 = sseEvents(opened.body!);
    const priming = (await stream1.next()).value as SseEvent;
    expect(priming).toMatchObject({ data: '', retry: 1000 });
    expect(priming.id).toMatch(/\S/);
    drop1.abort();

    const away1 = [await commitEvent(), await commitEvent()];
    const drop2 = new AbortController();
    const resumed = await session.listen(priming.id, drop2.signal);
    expect(resumed.status).toBe(200);
    const stream2 = sseEvents(resumed.body!);
    const replayed = await nextTriggerEvents(stream2, 2);
    expect(replayed.map((e) => e.eventId)).toEqual(away1);

    // Live delivery goes on on the resumed stream, and a second drop resumes after the last event seen.
    const live = await commitEvent();
    const [seen] = await nextTriggerEvents(stream2, 1);
    expect(seen!.eventId).toBe(live);
    drop2.abort();
    const away2 = [await commitEvent(), await commitEvent(), await commitEvent()];
    const drop3 = new AbortController();
    const again = await session.listen(seen!.sseId, drop3.signal);
    const stream3 = sseEvents(again.body!);
    const replayedAgain = await nextTriggerEvents(stream3, 3);
    expect(replayedAgain.map((e) => e.eventId)).toEqual(away2);
    // The subscription's resources/updated, sent right after each event's notification, was kept and replayed too.
    expect(replayedAgain.methods.filter((m) => m === 'notifications/resources/updated').length).toBeGreaterThanOrEqual(2);
    drop3.abort();
  }, 30_000);

  it('a resumed stream has everything replayed before anything sent live, each event once and in order', async () => {
    const away = 3_000;
    const { url } = await listen(60_000, { maxEvents: 10 * away, maxBytes: 64 * 1024 * 1024, maxAgeMs: 60_000 });
    const session = await RawSession.open(`${url}/mcp`);
    await session.request('resources/subscribe', { uri: `switchboard://triggers/${triggerId}/events` });
    const drop1 = new AbortController();
    const stream1 = sseEvents((await session.listen(undefined, drop1.signal)).body!);
    const priming = (await stream1.next()).value as SseEvent;
    drop1.abort();

    // More to replay than the sockets hold while the client reads nothing: the replay waits to drain, live events
    // arrive meanwhile, and must follow it.
    seq++;
    const missed = await h.store.triggers.commit(triggerId, {
      events: Array.from({ length: away }, (_, i) => ({ dedupeKey: `replay-${seq}-${i}`, occurredAt: new Date().toISOString(), summary: `Email ${i}: report ${'x'.repeat(1000)}`, payload: { i } })),
    });
    await h.deps.triggers!.log.poke();
    const drop2 = new AbortController();
    const resumed = await session.listen(priming.id, drop2.signal);
    const live: string[] = [];
    for (let i = 0; i < 20; i++) live.push(await commitEvent());
    const received = await nextTriggerEvents(sseEvents(resumed.body!), away + live.length);
    expect(received.map((e) => e.eventId)).toEqual([...missed.map((e) => String(e.id)), ...live]);
    const seqs = received.map((e) => Number(e.sseId.split('_')[0]));
    expect(seqs.every((n, i) => i === 0 || n > seqs[i - 1]!)).toBe(true);
    drop2.abort();
  }, 30_000);

  it('does not prime the stream of a client before 2025-11-25, which cannot take an event with empty data', async () => {
    const { url } = await listen(60_000);
    const session = await RawSession.open(`${url}/mcp`);
    const drop = new AbortController();
    const res = await fetch(`${url}/mcp`, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-06-18' },
      signal: drop.signal,
    });
    expect(res.status).toBe(200);
    const committed = await commitEvent();
    const first = (await sseEvents(res.body!).next()).value as SseEvent;
    expect(JSON.parse(first.data)).toMatchObject({ method: EVENT_NOTIFICATION, params: { eventId: committed } });
    drop.abort();
  });
});
