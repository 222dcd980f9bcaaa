import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startHttpListener, type HttpListener } from '../../src/mcp/http.js';
import { surfaceOf, type ServerDeps } from '../../src/mcp/server.js';
import { Redactor } from '../../src/redact.js';
import { serverTools } from '../../src/registry.js';
import { RawSession } from './sse.js';

// Session mechanics only: tools are listed, never called, so the store is never touched.
const deps = {
  store: undefined,
  baseUrls: {},
  redactor: new Redactor(),
  readOnly: true,
  logger: createLogger({ level: 'error' }),
  version: 'test',
  tools: serverTools({ readOnly: true, toolsets: ['sales'], toolMode: 'all' }),
} as unknown as ServerDeps;

let listener: HttpListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

const listen = async (extra: { maxSessions?: number; sessionIdleMs?: number } = {}) =>
  (listener = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: surfaceOf(deps), logger: deps.logger, version: 't', ...extra }));

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 't', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

describe('HTTP sessions at the cap', () => {
  it('1,000 connect/listTools/close cycles (no DELETE) leave room for the next client', async () => {
    const { url } = await listen({ maxSessions: 5 });
    const probe = await connect(url);
    const expected = (await probe.listTools()).tools.map((t) => t.name);
    await probe.close();
    expect(expected.length).toBeGreaterThan(0);
    for (let i = 0; i < 1_000; i++) {
      const client = await connect(url);
      expect((await client.listTools()).tools).toHaveLength(expected.length);
      await client.close();
      expect(listener!.sessionCount()).toBeLessThanOrEqual(5);
    }
    const next = await connect(url);
    expect((await next.listTools()).tools.map((t) => t.name)).toEqual(expected);
    expect(listener!.sessionCount()).toBe(5);
    await next.close();
  }, 180_000);

  it('evicts the least recently active idle session, which then gets 404', async () => {
    const { url } = await listen({ maxSessions: 2 });
    const first = await RawSession.open(`${url}/mcp`);
    const second = await RawSession.open(`${url}/mcp`);
    await first.request('ping');
    const third = await RawSession.open(`${url}/mcp`);
    expect(listener!.sessionCount()).toBe(2);
    expect((await second.post({ jsonrpc: '2.0', id: 9, method: 'ping' })).status).toBe(404);
    await expect(first.request('ping')).resolves.toEqual({});
    await expect(third.request('tools/list')).resolves.toHaveProperty('tools');
  });

  it('answers 503 with Retry-After only when every session is busy, and admits a client once one is idle', async () => {
    const { url } = await listen({ maxSessions: 2 });
    const streams = [new AbortController(), new AbortController()];
    const sessions = [await RawSession.open(`${url}/mcp`), await RawSession.open(`${url}/mcp`)];
    // Each session holds its GET stream open: it is listening, so it is busy.
    for (const [i, s] of sessions.entries()) expect((await s.listen(undefined, streams[i]!.signal)).status).toBe(200);

    const refused = await RawSession.open(`${url}/mcp`).catch((e: Error) => e);
    expect(String(refused)).toMatch(/initialize answered 503: .*Session limit \(2\) reached and every session is busy; retry in 10 s/);
    const raw = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    expect(raw.status).toBe(503);
    expect(raw.headers.get('retry-after')).toBe('10');
    expect(listener!.sessionCount()).toBe(2);

    // Once the first stream closes that session is idle, and the next client takes its place.
    streams[0]!.abort();
    let admitted: RawSession | undefined;
    for (const end = Date.now() + 10_000; !admitted && Date.now() < end; ) {
      admitted = await RawSession.open(`${url}/mcp`).catch(() => undefined);
      if (!admitted) await new Promise((r) => setTimeout(r, 20));
    }
    expect(admitted).toBeDefined();
    expect((await sessions[0]!.post({ jsonrpc: '2.0', id: 9, method: 'ping' })).status).toBe(404);
    await expect(sessions[1]!.request('ping')).resolves.toEqual({});
    streams[1]!.abort();
  });
});
