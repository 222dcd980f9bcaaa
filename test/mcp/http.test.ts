import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startHttpListener, type HttpListener } from '../../src/mcp/http.js';
import { createServer, type ServerDeps } from '../../src/mcp/server.js';
import { Redactor } from '../../src/redact.js';

// Session mechanics only: no tool is called, so the store is never touched.
const deps = {
  store: undefined,
  baseUrls: {},
  redactor: new Redactor(),
  readOnly: false,
  logger: createLogger({ level: 'error' }),
  version: 'test',
  tools: [],
} as unknown as ServerDeps;

let listener: HttpListener | undefined;
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 't', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

describe('HTTP listener sessions', () => {
  it('caps the number of sessions with a clear answer', async () => {
    listener = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: () => createServer(deps), logger: deps.logger, version: 't', maxSessions: 2 });
    const a = await connect(listener.url);
    const b = await connect(listener.url);
    expect(listener.sessionCount()).toBe(2);
    await expect(connect(listener.url)).rejects.toThrow(/Session limit \(2\)/);
    await a.close();
    await b.close();
  });

  it('ends idle sessions, after which the client gets 404', async () => {
    listener = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: () => createServer(deps), logger: deps.logger, version: 't', sessionIdleMs: 100 });
    const client = await connect(listener.url);
    expect(listener.sessionCount()).toBe(1);
    for (const end = Date.now() + 10_000; listener.sessionCount() > 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
    expect(listener.sessionCount()).toBe(0);
    await expect(client.listTools()).rejects.toThrow(/404|Session not found/);
    await client.close();
  });

  it('asks for initialize first and answers unknown sessions with 404', async () => {
    listener = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: () => createServer(deps), logger: deps.logger, version: 't' });
    const post = (headers: Record<string, string>) =>
      fetch(`${listener!.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await post({})).status).toBe(400);
    expect((await post({ 'mcp-session-id': 'unknown' })).status).toBe(404);
    const bad = await fetch(`${listener.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(bad.status).toBe(400);
  });

  it('refuses a body over 4 MiB', async () => {
    listener = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: () => createServer(deps), logger: deps.logger, version: 't' });
    const res = await fetch(`${listener.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(5 * 1024 * 1024) });
    expect(res.status).toBe(413);
  });
});
