import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import * as z from 'zod/v4';
import { describe, expect, it, vi } from 'vitest';
import { Drain } from '../../src/drain.js';
import { createLogger } from '../../src/log.js';
import { createServer, createSurface, type ServerDeps } from '../../src/mcp/server.js';
import { Redactor } from '../../src/redact.js';
import { toMcpTool } from '../../src/mcp/tools.js';
import { defineTool } from '../../src/tool.js';

const ping = defineTool({
  name: 'ping_now',
  title: 'Ping',
  description: 'Answers pong. A tool for this test only.',
  input: z.object({}).strict(),
  output: z.object({ pong: z.boolean() }),
  effect: 'read',
  run: async () => ({ pong: true }),
});

describe('a server whose tools and store are still loading', () => {
  it('answers tools/list from its list alone, and loads the rest for the first call', async () => {
    let loads = 0;
    let loaded!: (deps: ServerDeps) => void;
    const deps = new Promise<ServerDeps>((resolve) => (loaded = resolve));
    const server = createSurface({ version: 't', listed: [toMcpTool(ping)], deps, load: () => void loads++ }).create('legacy');
    const client = new Client({ name: 'lazy', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    await client.connect(a);

    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['ping_now']);
    expect(loads).toBe(0);

    const call = client.callTool({ name: 'ping_now', arguments: {} });
    await vi.waitFor(() => expect(loads).toBe(1));
    loaded({ tools: [ping], store: {} as never, baseUrls: {} as never, redactor: new Redactor(), readOnly: false, logger: createLogger({ level: 'error' }), version: 't' });
    expect((await call).structuredContent).toEqual({ pong: true });
    await client.close();
  });
});

describe('a server shutting down', () => {
  it('answers a new call with an error result that says so, and runs nothing', async () => {
    let runs = 0;
    const counted = { ...ping, call: async () => (runs++, { pong: true }) };
    const drain = new Drain();
    await drain.drain(0);
    const logger = createLogger({ level: 'error' });
    const server = createServer({ tools: [counted], store: {} as never, baseUrls: {} as never, redactor: new Redactor(), readOnly: false, logger, version: 't', drain });
    const client = new Client({ name: 'stopping', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    await client.connect(a);

    const result = await client.callTool({ name: 'ping_now', arguments: {} });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]!.text).toBe('Switchboard is shutting down and takes no new tool calls: call again once it is back.');
    expect(runs).toBe(0);
    await client.close();
  });
});
