import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpListener } from '../../src/mcp/http.js';
import { startHttpHarness } from '../harness.js';
import { postModern, RawSession } from './sse.js';

let listener: HttpListener;
let endpoint: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ listener, endpoint, close } = await startHttpHarness());
});
afterAll(() => close());

const MODERN = '2026-07-28';
/** One 2026-07-28 request to this test's endpoint. */
const modern = (method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) => postModern(endpoint, method, params, headers);

describe('one endpoint for both revisions', () => {
  it('answers server/discover with 2026-07-28 and the capabilities, holding no session', async () => {
    const answer = await modern('server/discover');
    expect(answer.status).toBe(200);
    expect(answer.session).toBeNull();
    expect(answer.body.result.supportedVersions).toContain(MODERN);
    expect(answer.body.result.capabilities).toMatchObject({ tools: {}, resources: { subscribe: true } });
    expect(answer.body.result.instructions).toMatch(/Switchboard connects/);
    expect(listener.sessionCount()).toBe(0);
  });

  it('serves a 2026 tool call without a session, the same result a 2025 session gets', async () => {
    const answer = await modern('tools/call', { name: 'triggers_list', arguments: {} });
    expect(answer.status).toBe(200);
    expect(answer.session).toBeNull();
    expect(answer.body.result.structuredContent).toEqual({ triggers: [] });
    const legacy = await RawSession.open(endpoint);
    const res = await legacy.post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'triggers_list', arguments: {} } });
    const text = await res.text();
    expect(JSON.parse(/^data: (.+)$/m.exec(text)?.[1] ?? text).result.structuredContent).toEqual(answer.body.result.structuredContent);
  });

  it('refuses a request whose headers disagree with its _meta, naming both', async () => {
    const version = await modern('tools/list', {}, { 'mcp-protocol-version': '2025-11-25' });
    expect(version.status).toBe(400);
    expect(version.body.error).toMatchObject({ code: -32020, message: expect.stringMatching(/2026-07-28 but the MCP-Protocol-Version header names 2025-11-25/) });
    const name = await modern('tools/call', { name: 'triggers_list', arguments: {} }, { 'mcp-name': 'accounts_list' });
    expect(name.status).toBe(400);
    expect(name.body.error?.code).toBe(-32020);
  });

  it('refuses a request that claims 2026-07-28 by header alone, without the _meta envelope', async () => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-method': 'tools/list', 'mcp-protocol-version': MODERN },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number; message: string } }).error).toMatchObject({ code: -32602, message: expect.stringMatching(/_meta/) });
  });

  it('keeps 2025 clients in sessions with their GET stream and DELETE', async () => {
    const legacy = await RawSession.open(endpoint);
    expect(legacy.id).toMatch(/^[\x21-\x7e]+$/);
    const stream = await fetch(endpoint, { headers: { accept: 'text/event-stream', 'mcp-session-id': legacy.id, 'mcp-protocol-version': '2025-11-25' } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);
    await stream.body?.cancel();
    const ended = await fetch(endpoint, { method: 'DELETE', headers: { 'mcp-session-id': legacy.id, 'mcp-protocol-version': '2025-11-25' } });
    expect(ended.status).toBe(200);
    expect((await legacy.post({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).status).toBe(404);
  });
});
