import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startHttpListener, type HttpListener } from '../../src/mcp/http.js';
import { surfaceOf, type ServerDeps } from '../../src/mcp/server.js';
import { Redactor } from '../../src/redact.js';
import { RawSession } from './sse.js';

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

describe('HTTP listener sessions', () => {
  it('ends a session with no request and no open stream after the idle limit, after which it gets 404', async () => {
    listener = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: surfaceOf(deps), logger: deps.logger, version: 't', sessionIdleMs: 100 });
    const session = await RawSession.open(`${listener.url}/mcp`);
    expect(listener.sessionCount()).toBe(1);
    for (const end = Date.now() + 10_000; listener.sessionCount() > 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
    expect(listener.sessionCount()).toBe(0);
    expect((await session.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(404);
  });

  it('asks for initialize first and answers unknown sessions with 404, echoing the request id', async () => {
    listener = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: surfaceOf(deps), logger: deps.logger, version: 't' });
    const post = (headers: Record<string, string>) =>
      fetch(`${listener!.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const first = await post({});
    expect(first.status).toBe(400);
    expect(await first.json()).toMatchObject({ id: 1, error: { message: expect.stringMatching(/initialize first/) } });
    const unknown = await post({ 'mcp-session-id': 'unknown' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ id: 1, error: { code: -32001 } });
    const bad = await fetch(`${listener.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(bad.status).toBe(400);
  });

  it('refuses a body over 4 MiB', async () => {
    listener = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: surfaceOf(deps), logger: deps.logger, version: 't' });
    const res = await fetch(`${listener.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(5 * 1024 * 1024) });
    expect(res.status).toBe(413);
  });
});
