import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpListener, type HttpListener } from '../../src/mcp/http.js';
import { surfaceOf } from '../../src/mcp/server.js';
import { openStore, type Store } from '../../src/store/index.js';
import { startHarness, type Harness } from '../harness.js';
import { RawSession } from './sse.js';

let h: Harness;
let otherStore: Store;
let one: HttpListener;
let two: HttpListener;

// Two instances on one store: the second has a store of its own on the same data dir, as a second process would.
beforeAll(async () => {
  h = await startHarness();
  otherStore = await openStore({ dataDir: h.dataDir, secretKey: 'test-secret-key' });
  one = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: surfaceOf(h.deps), logger: h.deps.logger, version: 't' });
  two = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: surfaceOf({ ...h.deps, store: otherStore }), logger: h.deps.logger, version: 't' });
});
afterAll(async () => {
  await one?.close();
  await two?.close();
  await otherStore?.close();
  await h?.close();
});

/** Answered within 5 s, or the test fails naming the request: a request that hangs is the failure this guards against. */
const promptly = (what: string) => ({ signal: AbortSignal.timeout(5_000), what });

async function send(url: string, init: RequestInit, o: { signal: AbortSignal; what: string }): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: o.signal });
  } catch (error) {
    throw new Error(`${o.what}: no answer (${(error as Error).message})`);
  }
}

describe('a 2025-11-25 session used on an instance that did not create it', () => {
  it('is answered 404 with "initialize again" for every kind of request, at once; the session still works where it lives', async () => {
    const session = await RawSession.open(`${one.url}/mcp`);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-11-25' };
    const elsewhere = `${two.url}/mcp`;

    const call = await send(elsewhere, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }) }, promptly('tools/list'));
    expect(call.status).toBe(404);
    expect(await call.json()).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found: initialize again.' }, id: 7 });

    const note = await send(elsewhere, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }) }, promptly('a notification'));
    expect(note.status).toBe(404);

    const stream = await send(elsewhere, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-11-25' } }, promptly('the GET stream'));
    expect(stream.status).toBe(404);
    expect(stream.headers.get('content-type')).toBe('application/json');
    expect((await stream.json()).error.code).toBe(-32001);

    const end = await send(elsewhere, { method: 'DELETE', headers: { 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-11-25' } }, promptly('DELETE'));
    expect(end.status).toBe(404);

    const legacy = await send(`${two.url}/messages?sessionId=${session.id}`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' }) }, promptly('the legacy /messages'));
    expect(legacy.status).toBe(404);

    // The DELETE sent to the other instance ended nothing here.
    expect((await session.request('tools/list')).tools.length).toBeGreaterThan(0);
    expect(one.sessionCount()).toBe(1);
    expect(two.sessionCount()).toBe(0);
  });

  it('an SDK client whose requests move to the other instance gets the 404 as an error, and a new session there works', async () => {
    let target = one.url;
    const movable = (input: string | URL | Request, init?: RequestInit) => fetch(String(input).replace(/^http:\/\/127\.0\.0\.1:\d+/, target), init);
    const client = new Client({ name: 'moving', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${one.url}/mcp`), { fetch: movable }));
    await client.listTools();
    target = two.url;
    await expect(client.listTools()).rejects.toThrow(/404|Session not found/);
    await client.close();

    const again = new Client({ name: 'moving', version: '1' });
    await again.connect(new StreamableHTTPClientTransport(new URL(`${two.url}/mcp`)));
    const accounts = await again.callTool({ name: 'accounts_list', arguments: {} });
    expect(accounts.isError).toBeFalsy();
    expect(two.sessionCount()).toBe(1);
    await again.close();
  });
});
