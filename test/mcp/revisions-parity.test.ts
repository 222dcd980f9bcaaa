import { Client as ModernClient, ProtocolError } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport as LegacyTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { surfaceOf } from '../../src/mcp/server.js';
import { startHarness, type Harness } from '../harness.js';

/**
 * The same surface answers a 2026-07-28 client and a 2025-11-25 client alike: each connects through the SDK's stdio
 * entry (which picks the revision from the client's opening), over an in-memory pair instead of pipes.
 */
let h: Harness;
let modern: ModernClient;
let legacy: LegacyClient;
const closers: Array<() => Promise<void>> = [];

function servedPair() {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const surface = surfaceOf(h.deps);
  const served = serveStdio(({ era }) => surface.create(era, { events: true }), { transport: serverSide });
  closers.push(() => served.close());
  return clientSide;
}

beforeAll(async () => {
  h = await startHarness();
  await h.ok('triggers_create', { kind: 'outlook.new_email', config: { filter: 'subject:parity' } });
  modern = new ModernClient({ name: 'parity-2026', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await modern.connect(servedPair());
  legacy = new LegacyClient({ name: 'parity-2025', version: '1' });
  await legacy.connect(servedPair() as unknown as LegacyTransport);
});
afterAll(async () => {
  await modern?.close();
  await legacy?.close();
  for (const close of closers) await close();
  await h.close();
});

/**
 * A result as the revision-independent part of the answer: without `_meta` (2026 results carry the server's identity
 * there) and the 2026 cache hints (`ttlMs`, `cacheScope`), which are asserted on their own.
 */
function common(result: Record<string, unknown>): Record<string, unknown> {
  const { _meta, ttlMs, cacheScope, ...rest } = result;
  return rest;
}

/** What each client rejects with, as code, message (without the client's "MCP error <code>: " prefix) and data. */
async function rejection(request: Promise<unknown>) {
  const error = await request.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error instanceof McpError || error instanceof ProtocolError, `expected a protocol error, got ${String(error)}`).toBe(true);
  const { code, message, data } = error as { code: number; message: string; data?: unknown };
  return { code, message: message.replace(/^MCP error -?\d+: /, ''), data };
}

/** The same request from each client, in turn: the 2026 answer first. (The two SDKs type their answers apart.) */
const both = async (ask: (client: any) => Promise<any>) => [await ask(modern), await ask(legacy)];

describe('one surface, two revisions', () => {
  it('the clients speak the revisions they are meant to', () => {
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(modern.getProtocolEra()).toBe('modern');
    expect(legacy.getServerVersion()?.name).toBe('switchboard');
  });

  it('tools/list: the same tools, schemas and annotations', async () => {
    const [m, l] = await both((c) => c.listTools());
    expect(m.tools.length).toBe(h.deps.tools.length);
    expect(m.tools).toEqual(l.tools);
    expect(common(m)).toEqual(common(l));
  });

  it('a successful call: the same content and structured content', async () => {
    const [m, l] = await both((c) => c.callTool({ name: 'accounts_list', arguments: { provider: 'github' } }));
    expect(m.isError).toBeFalsy();
    expect((m.structuredContent as { accounts: Array<{ label: string }> }).accounts.map((a) => a.label)).toEqual(['sample', 'canary']);
    expect(common(m)).toEqual(common(l));
  });

  it("a failed call: the same isError text, for an account error and for the provider's error", async () => {
    const [account, accountLegacy] = await both((c) => c.callTool({ name: 'github_list_gists', arguments: { account: 'nobody' } }));
    expect(account.isError).toBe(true);
    expect(JSON.stringify(account.content)).toMatch(/nobody/);
    expect(common(account)).toEqual(common(accountLegacy));
    const [provider, providerLegacy] = await both((c) => c.callTool({ name: 'github_get_repository', arguments: { owner: 'sbx-octocat', repo: 'no-such-repo' } }));
    expect(provider.isError).toBe(true);
    expect(JSON.stringify(provider.content)).toMatch(/404/);
    expect(common(provider)).toEqual(common(providerLegacy));
  });

  it('malformed arguments: the same isError text naming the field', async () => {
    const [m, l] = await both((c) => c.callTool({ name: 'events_next', arguments: { wait_seconds: 'soon', extra: 1 } }));
    expect(m.isError).toBe(true);
    expect(JSON.stringify(m.content)).toMatch(/wait_seconds/);
    expect(common(m)).toEqual(common(l));
  });

  it('arguments that are not an object: the same -32602 naming "arguments"', async () => {
    const result = z.object({}).passthrough();
    const [m, l] = await both((c) => rejection(c.request({ method: 'tools/call', params: { name: 'accounts_list', arguments: 'x' } }, result)));
    expect(m).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid tools\/call request: "arguments" expected object/) });
    expect(m).toEqual(l);
  });

  it('an unknown tool: the same protocol error', async () => {
    const [m, l] = await both((c) => rejection(c.callTool({ name: 'nope_tool', arguments: {} })));
    expect(m).toMatchObject({ code: -32602, message: expect.stringMatching(/^Unknown tool "nope_tool"; tools\/list shows the \d+ tools\.$/) });
    expect(m).toEqual(l);
  });

  it('an unknown resource: the same code, message and data', async () => {
    for (const uri of ['switchboard://nope', 'switchboard://triggers/trg_missing/events']) {
      const [m, l] = await both((c) => rejection(c.readResource({ uri })));
      expect(m).toEqual({ code: -32602, message: `Resource ${uri} not found; resources/list shows what exists.`, data: { uri } });
      expect(m).toEqual(l);
    }
  });

  it('resources/list and resources/templates/list: the same entries; 2026 answers say how long each may be kept', async () => {
    const [m, l] = await both((c) => c.listResources());
    expect(m.resources.map((r: { uri: string }) => r.uri)).toEqual(['switchboard://accounts', expect.stringMatching(/^switchboard:\/\/triggers\/trg_\w+\/events$/)]);
    expect(common(m)).toEqual(common(l));
    expect(m).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    const [mt, lt] = await both((c) => c.listResourceTemplates());
    expect(mt.resourceTemplates).toHaveLength(1);
    expect(common(mt)).toEqual(common(lt));
    expect(mt).toMatchObject({ ttlMs: 300_000, cacheScope: 'private' });
    const [tools] = await both((c) => c.listTools());
    expect(tools).toMatchObject({ ttlMs: 300_000, cacheScope: 'private' });
  });
});
