import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { surfaceOf } from '../../src/mcp/server.js';
import { serveStdio } from '../../src/mcp/stdio.js';
import { findNestingProblem, MAX_MESSAGE_DEPTH } from '../../src/nesting.js';
import { startHttpHarness, type Harness } from '../harness.js';
import { RawSession } from './sse.js';

let h: Harness;
let endpoint: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ h, endpoint, close } = await startHttpHarness());
});
afterAll(() => close());
beforeEach(() => {
  for (const s of Object.values(h.sandbox.servers)) s.reset();
});

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const ACCEPT = { accept: 'application/vnd.github+json' };
const sent = () => Object.values(h.sandbox.servers).reduce((n, s) => n + s.requests.length, 0);

/** JSON text of `levels` nested objects (or arrays) around 1, written as text: no value of that depth is ever built. */
const deepJson = (levels: number, array = false) => (array ? '['.repeat(levels) + '1' + ']'.repeat(levels) : '{"a":'.repeat(levels) + '1' + '}'.repeat(levels));

/** A tools/call of github_api_call as raw JSON text, its body `body`. */
const callText = (id: number, body: string, meta = '') =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{${meta}"name":"github_api_call","arguments":` +
  `{"method":"POST","endpoint":"/repos/sbx-octocat/hello-world/issues","headers":${JSON.stringify(ACCEPT)},"body":${body}}}}`;

async function postModern(text: string) {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-method': 'tools/call', 'mcp-name': 'github_api_call', 'mcp-protocol-version': MODERN },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as { id?: unknown; result?: any; error?: { code: number; message: string } } };
}

async function postLegacy(session: RawSession, text: string) {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-11-25' },
    body: text,
  });
  const raw = await res.text();
  return { status: res.status, body: JSON.parse(/^data: (.+)$/m.exec(raw)?.[1] ?? raw) as { id?: unknown; result?: any; error?: { code: number; message: string } } };
}

describe('nesting at the transports', () => {
  it('finds the depth of a value deeper than any stack without recursing', () => {
    let value: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) value = [value];
    expect(findNestingProblem(value, { limit: MAX_MESSAGE_DEPTH })?.path).toHaveLength(MAX_MESSAGE_DEPTH + 1);
  });

  it('over HTTP in both revisions, a tool argument past 64 levels comes back as the tool error naming the field', async () => {
    const modern = await postModern(callText(1, deepJson(100), `"_meta":${JSON.stringify(ENVELOPE)},`));
    expect(modern.status).toBe(200);
    expect(modern.body.result.isError).toBe(true);
    expect(modern.body.result.content[0].text).toContain('"body.a.a.a.…(59 more).a.a" is nested more than 64 levels deep');
    const legacy = await postLegacy(await RawSession.open(endpoint), callText(2, deepJson(100)));
    expect(legacy.body.result.content[0].text).toBe(modern.body.result.content[0].text);
    expect(sent()).toBe(0);
  });

  it.each([2_000, 100_000])('over HTTP in both revisions, a message %i levels deep is refused as an invalid request naming where, and the server serves on', async (levels) => {
    for (const array of [false, true]) {
      const modern = await postModern(callText(3, deepJson(levels, array), `"_meta":${JSON.stringify(ENVELOPE)},`));
      expect(modern.status).toBe(400);
      expect(modern.body.id).toBe(3);
      expect(modern.body.error?.code).toBe(-32600);
      const step = array ? '0' : 'a';
      expect(modern.body.error?.message).toContain(`"params.arguments.body.${step}.…(${MAX_MESSAGE_DEPTH - 5} more).${step}.${step}" is nested more than ${MAX_MESSAGE_DEPTH} levels deep`);
      expect(modern.body.error?.message).toMatch(/a tool's arguments at most 64: send it flatter/);
      const session = await RawSession.open(endpoint);
      const legacy = await postLegacy(session, callText(4, deepJson(levels, array)));
      expect(legacy.status).toBe(400);
      expect(legacy.body).toMatchObject({ id: 4, error: { code: -32600, message: modern.body.error!.message } });
      const after = await postLegacy(session, JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'triggers_list', arguments: {} } }));
      expect(after.body.result.structuredContent).toEqual({ triggers: [] });
    }
    expect(sent()).toBe(0);
    expect(h.logs.join('')).not.toMatch(/call stack|http request failed/);
  });

  it('over stdio, a message 100,000 levels deep is answered with the same error, and the connection serves on', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const errors: Error[] = [];
    const served = serveStdio(surfaceOf(h.deps), stdin, stdout, (error) => errors.push(error));
    const lines: Array<Record<string, any>> = [];
    let buffer = '';
    stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        lines.push(JSON.parse(buffer.slice(0, end)));
        buffer = buffer.slice(end + 1);
      }
    });
    const answer = async (id: number) => {
      for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 10))) {
        const line = lines.find((l) => l.id === id);
        if (line) return line;
      }
      throw new Error(`no answer to ${id}`);
    };
    try {
      stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) + '\n');
      await answer(1);
      stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
      stdin.write(callText(2, deepJson(100_000)) + '\n');
      expect(await answer(2)).toMatchObject({ error: { code: -32600, message: expect.stringContaining(`is nested more than ${MAX_MESSAGE_DEPTH} levels deep`) } });
      stdin.write(callText(3, deepJson(100)) + '\n');
      expect((await answer(3)).result.content[0].text).toContain('"body.a.a.a.…(59 more).a.a" is nested more than 64 levels deep');
      expect(errors).toEqual([]);
      expect(sent()).toBe(0);
    } finally {
      await served.close();
    }
  });
});
