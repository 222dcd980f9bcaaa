import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/events/cursor.js';
import { Drain } from '../../src/drain.js';
import { RawSession, sseEvents } from '../mcp/sse.js';
import { freshDatabase } from '../pg.js';
import { until } from '../support/wait.js';
import { startSubscriber, type Subscriber } from './subscriber.js';

/**
 * events/stream with the SDK's clients over Streamable HTTP, in both revisions: active first, each new event as a
 * notification related to the request, heartbeats in quiet times, replay from a cursor, truncated under maxAgeMs; a
 * cancel ends it and releases the trigger made for it; a shutdown or an ended subscription ends it with terminated.
 */

let s: Subscriber;
const NAME = 'outlook.new_email';
const HEARTBEAT_MS = 300;
// The 2026 client lifts resultType off a result before checking it; the raw frames show it (the shutdown test).
const Result = z.looseObject({});

interface Note {
  method: string;
  params: Record<string, any>;
}

type AnyClient = { request: (...args: any[]) => Promise<unknown>; close(): Promise<void>; fallbackNotificationHandler?: (n: any) => Promise<void> };

async function connect(era: '2026-07-28' | '2025-11-25', endpoint = s.endpoint): Promise<AnyClient> {
  if (era === '2026-07-28') {
    const client = new ModernClient({ name: 'stream-2026', version: '1' }, { versionNegotiation: { mode: { pin: era } } });
    await client.connect(new ModernHttp(new URL(endpoint)));
    return client as unknown as AnyClient;
  }
  const client = new LegacyClient({ name: 'stream-2025', version: '1' });
  await client.connect(new LegacyHttp(new URL(endpoint)));
  return client as unknown as AnyClient;
}

/** Opens a stream; its notifications are collected, and `done` settles with the request. */
function open(client: AnyClient, params: Record<string, unknown>) {
  const notes: Note[] = [];
  client.fallbackNotificationHandler = async (n: Note) => void (n.method.startsWith('notifications/events/') && notes.push(n));
  const abort = new AbortController();
  const done = client.request({ method: 'events/stream', params: { name: NAME, cursor: null, ...params } }, Result, { signal: abort.signal, timeout: 120_000 });
  done.catch(() => undefined);
  const of = (kind: string) => notes.filter((n) => n.method === `notifications/events/${kind}`);
  return { notes, of, done, cancel: () => abort.abort('done') };
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const streamRows = async () => (await s.h.store.subscriptions.list()).filter((r) => r.mode === 'stream');

beforeAll(async () => {
  s = await startSubscriber({ eventsTiming: { heartbeatMs: HEARTBEAT_MS } });
});
afterAll(() => s.close());

describe.each(['2026-07-28', '2025-11-25'] as const)('events/stream over HTTP, %s', (era) => {
  it('sends active, then each new event and heartbeats, all naming the request; a cancel ends it and releases the trigger', { timeout: 30_000 }, async () => {
    const client = await connect(era);
    try {
      const args = { filter: `subject:${era}` };
      const stream = open(client, { arguments: args });
      await until(() => stream.of('active').length === 1, 'active');
      expect(stream.of('active')[0]!.params).toMatchObject({ truncated: false });
      expect(stream.of('active')[0]!.params.cursor).toEqual(expect.any(String));
      const [row] = await streamRows();
      expect(row).toMatchObject({ mode: 'stream', url: null, name: NAME, arguments: args });
      expect((await s.h.store.triggers.get(row!.triggerId))!.origin).toBe('events');

      const event = await s.commit(row!.triggerId, 'streamed');
      await until(() => stream.of('event').length === 1, 'the event notification');
      const note = stream.of('event')[0]!.params;
      expect(note).toMatchObject({ eventId: `evt_${event.id}`, name: NAME, data: { subject: 'streamed' }, cursor: encodeCursor(event.id) });
      await until(() => stream.of('heartbeat').length >= 2, 'heartbeats', 5_000);
      const ids = new Set(stream.notes.map((n) => JSON.stringify(n.params._meta?.['io.modelcontextprotocol/subscriptionId'])));
      expect(ids.size).toBe(1);
      expect([...ids][0]).not.toBe(undefined);

      stream.cancel();
      await expect(stream.done).rejects.toThrow();
      await until(async () => (await streamRows()).length === 0, 'the stream row removed', 5_000);
      await until(async () => (await s.h.store.triggers.get(row!.triggerId)) === undefined, 'the trigger released', 5_000);
    } finally {
      await client.close();
    }
  });

  it('replays from a cursor before live events, and says truncated when maxAgeMs cuts the replay', { timeout: 30_000 }, async () => {
    const client = await connect(era);
    try {
      const args = { filter: `subject:replay-${era}` };
      const first = open(client, { arguments: args });
      await until(() => first.of('active').length === 1, 'active');
      const cursor = first.of('active')[0]!.params.cursor as string;
      const [row] = await streamRows();
      const missed = await s.commit(row!.triggerId, 'missed');
      await until(() => first.of('event').length === 1, 'the live event');

      const again = open(client, { arguments: args, cursor });
      await until(() => again.of('event').length === 1, 'the replayed event');
      expect(again.notes[0]!.method).toBe('notifications/events/active');
      expect(again.of('event')[0]!.params.eventId).toBe(`evt_${missed.id}`);
      await new Promise((r) => setTimeout(r, 200));
      const cut = open(client, { arguments: args, cursor, maxAgeMs: 50 });
      await until(() => cut.of('active').length === 1, 'active');
      expect(cut.of('active')[0]!.params.truncated).toBe(true);
      await new Promise((r) => setTimeout(r, 100));
      expect(cut.of('event')).toEqual([]);
      for (const st of [first, again, cut]) st.cancel();
      await until(async () => (await streamRows()).length === 0, 'the streams ended', 5_000);
    } finally {
      await client.close();
    }
  });
});

describe('events/stream on PostgreSQL', () => {
  it('hears an event committed on the store through its commit notifications', { timeout: 30_000 }, async () => {
    const database = await freshDatabase();
    const pg = await startSubscriber({ eventsTiming: { heartbeatMs: HEARTBEAT_MS } }, { databaseUrl: database.url });
    try {
      const client = await connect('2026-07-28', pg.endpoint);
      const stream = open(client, { arguments: { filter: 'subject:pg' } });
      await until(() => stream.of('active').length === 1, 'active');
      const [row] = (await pg.h.store.subscriptions.list()).filter((r) => r.mode === 'stream');
      const [event] = await pg.h.store.triggers.commit(row!.triggerId, { events: [{ dedupeKey: 'pg-1', occurredAt: new Date().toISOString(), summary: 'pg', payload: { subject: 'pg' } }] });
      await until(() => stream.of('event').length === 1, 'the event notification');
      expect(stream.of('event')[0]!.params).toMatchObject({ eventId: `evt_${event!.id}`, data: { subject: 'pg' } });
      stream.cancel();
      await until(async () => (await pg.h.store.subscriptions.list()).length === 0, 'the stream row removed', 5_000);
      await client.close();
    } finally {
      await pg.close();
      await database.drop();
    }
  });
});

describe('a stream the server ends', () => {
  it('on shutdown: terminated {reason: shutdown} on the request\'s SSE stream, then the final result', { timeout: 30_000 }, async () => {
    const drain = new Drain();
    const endpoint = await s.listen({ drain, eventsTiming: { heartbeatMs: HEARTBEAT_MS } });
    const answer = fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-method': 'events/stream', 'mcp-protocol-version': '2026-07-28' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'events/stream', params: { _meta: ENVELOPE, name: NAME, arguments: { filter: 'subject:shutdown' }, cursor: null } }),
    });
    await until(async () => (await streamRows()).length === 1, 'the stream open');
    await drain.drain(1_000);
    const frames: any[] = [];
    for await (const event of sseEvents((await answer).body!)) frames.push(JSON.parse(event.data));
    expect(frames[0]).toMatchObject({ method: 'notifications/events/active', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } } });
    expect(frames.at(-2)).toMatchObject({ method: 'notifications/events/terminated', params: { error: { code: -32000, data: { reason: 'shutdown' } } } });
    expect(frames.at(-1)).toMatchObject({ id: 7, result: { resultType: 'complete' } });
    await until(async () => (await streamRows()).length === 0, 'the stream row removed', 5_000);
  });

  it('when its subscription was ended for its person: terminated with Forbidden at the next heartbeat', { timeout: 30_000 }, async () => {
    const client = await connect('2025-11-25');
    try {
      const stream = open(client, { arguments: { filter: 'subject:ended' } });
      await until(() => stream.of('active').length === 1, 'active');
      const [row] = await streamRows();
      await s.h.store.subscriptions.remove(row!.id);
      await expect(stream.done).resolves.toBeDefined();
      expect(stream.of('terminated')[0]!.params.error).toMatchObject({ code: -32012, data: { reason: 'revoked' } });
      await until(async () => (await s.h.store.triggers.get(row!.triggerId)) === undefined, 'the trigger released', 5_000);
    } finally {
      await client.close();
    }
  });

  it('when the client goes away: a 2026 request whose connection drops; a 2025 session that ends (a dropped response there may be resumed)', { timeout: 30_000 }, async () => {
    const post = (headers: Record<string, string>, body: unknown, signal: AbortSignal) =>
      fetch(s.endpoint, { signal, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
    const modern = new AbortController();
    await post({ 'mcp-method': 'events/stream', 'mcp-protocol-version': '2026-07-28' }, { jsonrpc: '2.0', id: 1, method: 'events/stream', params: { _meta: ENVELOPE, name: NAME, arguments: {}, cursor: null } }, modern.signal);
    await until(async () => (await streamRows()).length === 1, 'the 2026 stream open');
    modern.abort();
    await until(async () => (await streamRows()).length === 0, 'the 2026 stream ended', 5_000);

    const session = await RawSession.open(s.endpoint);
    const legacy = new AbortController();
    await post({ 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-11-25' }, { jsonrpc: '2.0', id: 2, method: 'events/stream', params: { name: NAME, arguments: {}, cursor: null } }, legacy.signal);
    await until(async () => (await streamRows()).length === 1, 'the 2025 stream open');
    legacy.abort();
    await new Promise((r) => setTimeout(r, 2 * HEARTBEAT_MS));
    expect(await streamRows()).toHaveLength(1);
    await fetch(s.endpoint, { method: 'DELETE', headers: { 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-11-25' } });
    await until(async () => (await streamRows()).length === 0, 'the 2025 stream ended with its session', 5_000);
  });

  it('refuses as subscribe does, before anything streams', async () => {
    const unknown = await s.call('events/stream', { name: 'outlook.new_fax', arguments: {}, cursor: null });
    expect(unknown.body.error).toMatchObject({ code: -32011, data: { kind: 'event' } });
    const bad = await s.call('events/stream', { name: NAME, arguments: { filter: 'nonsense:(' }, cursor: null });
    expect(bad.body.error).toMatchObject({ code: -32602, data: { field: 'arguments.filter' } });
    const cursor = await s.call('events/stream', { name: NAME, arguments: {}, cursor: 'c_001' });
    expect(cursor.body.error).toMatchObject({ code: -32602, data: { field: 'cursor' } });
    expect(await streamRows()).toEqual([]);
  });
});
