import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LATEST_PROTOCOL_VERSION, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/mcp/server.js';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
let triggerId: string;

beforeAll(async () => {
  h = await startHarness();
  triggerId = (await h.ok('triggers_create', { kind: 'outlook.new_email' })).trigger.id;
});
afterAll(() => h.close());

/** What the SDK client rejects with: the JSON-RPC code and message. */
async function rejection(request: Promise<unknown>): Promise<McpError> {
  const error = await request.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the request should have failed').toBeInstanceOf(McpError);
  return error as McpError;
}

type RpcError = { code: number; message: string; data?: unknown };

/** A session driven by raw JSON-RPC messages, for requests the SDK client would not send. */
async function rawSession() {
  const server = createServer(h.deps);
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const pending = new Map<number, (m: { result?: unknown; error?: RpcError }) => void>();
  client.onmessage = (m: JSONRPCMessage) => {
    if ('id' in m && ('result' in m || 'error' in m)) pending.get(Number(m.id))?.(m as { result?: unknown; error?: RpcError });
  };
  await server.connect(serverSide);
  await client.start();
  let id = 0;
  const send = (method: string, params?: unknown) =>
    new Promise<{ result?: unknown; error?: RpcError }>((resolve) => {
      pending.set(++id, resolve);
      void client.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
    });
  const init = await send('initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  expect(init.error).toBeUndefined();
  await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { send, close: () => server.close() };
}

describe('MCP protocol errors', () => {
  it('carry the "MCP error <code>" prefix once', async () => {
    const error = await rejection(h.client.callTool({ name: 'nope_tool', arguments: {} }));
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^MCP error -32602: Unknown tool "nope_tool"/);
    expect(error.message).not.toMatch(/MCP error -32602: MCP error/);
  });

  it('answer an unknown resource with -32602 (the 2026-07-28 code, sent to 2025 clients too), the URI in data', async () => {
    for (const uri of ['switchboard://nope', 'switchboard://triggers/trg_missing/events']) {
      const error = await rejection(h.client.readResource({ uri }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain(`Resource ${uri} not found`);
      expect(error.data).toEqual({ uri });
    }
  });

  it('refuse a cursor on lists this server does not paginate, naming the field', async () => {
    for (const list of [() => h.client.listTools({ cursor: 'bogus' }), () => h.client.listResources({ cursor: 'bogus' }), () => h.client.listResourceTemplates({ cursor: 'bogus' })]) {
      const error = await rejection(list());
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(/"cursor" "bogus" was not given by this server.*omit cursor/);
    }
    expect((await h.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("subscribe only to this server's trigger event URIs", async () => {
    const foreign = await rejection(h.client.subscribeResource({ uri: 'https://evil.example/x' }));
    expect(foreign.code).toBe(-32602);
    expect(foreign.message).toMatch(/"uri" "https:\/\/evil.example\/x" cannot be subscribed to: only switchboard:\/\/triggers\/\{id\}\/events/);
    expect((await rejection(h.client.subscribeResource({ uri: 'switchboard://accounts' }))).code).toBe(-32602);
    const missing = await rejection(h.client.subscribeResource({ uri: 'switchboard://triggers/trg_missing/events' }));
    expect(missing.code).toBe(-32602);
    await h.client.subscribeResource({ uri: `switchboard://triggers/${triggerId}/events` });
    await h.client.unsubscribeResource({ uri: `switchboard://triggers/${triggerId}/events` });
  });

  it('hold at most 1000 subscriptions a session', async () => {
    const account = (await h.store.accounts.list()).find((a) => a.provider === 'outlook')!;
    const ids: string[] = [];
    for (let i = 0; i < 1001; i++) {
      ids.push((await h.store.triggers.create({ kind: 'outlook.new_email', accountId: account.id, config: {}, forwardUrl: null, state: {} })).id);
    }
    const session = await rawSession();
    try {
      for (const id of ids.slice(0, 1000)) expect((await session.send('resources/subscribe', { uri: `switchboard://triggers/${id}/events` })).error).toBeUndefined();
      const over = await session.send('resources/subscribe', { uri: `switchboard://triggers/${ids[1000]}/events` });
      expect(over.error?.code).toBe(-32602);
      expect(over.error?.message).toMatch(/A session may hold 1000 subscriptions; unsubscribe from one/);
      expect((await session.send('resources/unsubscribe', { uri: `switchboard://triggers/${ids[0]}/events` })).error).toBeUndefined();
      expect((await session.send('resources/subscribe', { uri: `switchboard://triggers/${ids[1000]}/events` })).error).toBeUndefined();
    } finally {
      await session.close();
      for (const id of ids) await h.store.triggers.remove(id);
    }
  });

  it('answer non-object tool arguments with -32602 naming "arguments", the message without the prefix', async () => {
    const session = await rawSession();
    try {
      for (const args of ['x', [1], 3]) {
        const answer = await session.send('tools/call', { name: 'accounts_list', arguments: args });
        expect(answer.error?.code).toBe(-32602);
        expect(answer.error?.message).toMatch(/^Invalid tools\/call request: "arguments" expected object, received /);
      }
      const unknown = await session.send('tools/call', { name: 'nope_tool' });
      expect(unknown.error?.message).toMatch(/^Unknown tool "nope_tool"/);
      const ok = await session.send('tools/call', { name: 'accounts_list', arguments: {} });
      expect(ok.error).toBeUndefined();
    } finally {
      await session.close();
    }
  });
});
