import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { surfaceOf } from '../../src/mcp/server.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { MANUAL_SETUP_FIELDS } from '../../src/events/types.js';
import { startHttpHarness, type Harness } from '../harness.js';
import { postModern } from '../mcp/sse.js';

/**
 * The Events extension as clients see it on the wire: advertised in server/discover (2026-07-28) and initialize
 * (2025-11-25) under both keys, and events/list answering one type per trigger kind in both revisions.
 */

let h: Harness;
let endpoint: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ h, endpoint, close } = await startHttpHarness());
});
afterAll(() => close());

const MODERN = '2026-07-28';
const EXTENSION = 'io.modelcontextprotocol/events';
/** One 2026-07-28 request to this test's endpoint. */
const modern = (method: string, params: Record<string, unknown> = {}) => postModern(endpoint, method, params);

/** A raw 2025-11-25 initialize, its answer read from JSON or from the SSE frame that carries it. */
async function initialize(): Promise<any> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  const text = await res.text();
  return JSON.parse(/^data: (.+)$/m.exec(text)?.[1] ?? text);
}

const EventTypeShape = z.object({
  name: z.string(),
  description: z.string(),
  delivery: z.array(z.enum(['webhook', 'poll', 'push'])).min(1),
  inputSchema: z.record(z.string(), z.unknown()),
  payloadSchema: z.record(z.string(), z.unknown()),
});
const ListResult = z.looseObject({ events: z.array(EventTypeShape), nextCursor: z.string().optional() });

describe('the Events extension advertised', () => {
  it('in server/discover under both the extensions key and the top-level events key, with the caching hints', async () => {
    const { status, body } = await modern('server/discover');
    expect(status).toBe(200);
    expect(body.result.resultType).toBe('complete');
    expect(body.result.capabilities.events).toEqual({});
    // Beside the tasks extension, offered in 2026-07-28 only (test/governance/tasks.test.ts).
    expect(body.result.capabilities.extensions).toEqual({ [EXTENSION]: {}, 'io.modelcontextprotocol/tasks': {} });
    expect(body.result.capabilities).toMatchObject({ tools: {}, resources: { subscribe: true } });
    expect(body.result.ttlMs).toBeGreaterThan(0);
    expect(body.result.cacheScope).toBe('private');
  });

  it('in initialize for 2025-11-25 clients too, which clients fall back to', async () => {
    const answer = await initialize();
    expect(answer.result.protocolVersion).toBe('2025-11-25');
    expect(answer.result.capabilities.events).toEqual({});
    expect(answer.result.capabilities.extensions).toEqual({ [EXTENSION]: {} });
  });

  // The SDK clients keep the extensions key only (their capability schema drops a top-level key it does not know), which
  // is why the raw answers above are read too: the AI SDK and ChatGPT read the top-level key.
  it('as the SDK clients of both revisions read it', async () => {
    const modernClient = new ModernClient({ name: 'events-2026', version: '1' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await modernClient.connect(new ModernHttp(new URL(endpoint)));
    const legacyClient = new LegacyClient({ name: 'events-2025', version: '1' });
    await legacyClient.connect(new LegacyHttp(new URL(endpoint)));
    try {
      expect(modernClient.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect((modernClient.getServerCapabilities() as Record<string, any>).extensions).toEqual({ [EXTENSION]: {}, 'io.modelcontextprotocol/tasks': {} });
      expect((legacyClient.getServerCapabilities() as Record<string, any>).extensions).toEqual({ [EXTENSION]: {} });
      const modernList = await modernClient.request({ method: 'events/list', params: {} }, ListResult);
      const legacyList = await legacyClient.request({ method: 'events/list', params: {} }, ListResult);
      expect(modernList.events.map((e) => e.name)).toEqual([...TRIGGER_KINDS.keys()]);
      expect(legacyList.events).toEqual(modernList.events);
    } finally {
      await modernClient.close();
      await legacyClient.close();
    }
  });
});

describe('events/list', () => {
  it('lists one type per trigger kind, all 31, on one page, with resultType and every delivery mode', async () => {
    const { body } = await modern('events/list');
    expect(body.result.resultType).toBe('complete');
    expect(body.result.nextCursor).toBeUndefined();
    const events = ListResult.parse(body.result).events;
    expect(events).toHaveLength(31);
    expect(events.map((e) => e.name)).toEqual([...TRIGGER_KINDS.keys()]);
    for (const event of events) expect(event.delivery, event.name).toEqual(['webhook', 'poll', 'push']);
  });

  it('describes each type for a model: what fires it, what narrows it, what the data holds, and the tool for the rest', async () => {
    const { body } = await modern('events/list');
    const issue = body.result.events.find((e: { name: string }) => e.name === 'github.new_issue');
    expect(issue.description).toContain(TRIGGER_KINDS.get('github.new_issue')!.description);
    expect(issue.description).toMatch(/Arguments narrow it \(\? = optional\): repo\?, org\?, labels\?, mode\?, poll_interval_seconds\?, account\?/);
    expect(issue.description).toMatch(/exactly one of "repo" or "org"/);
    expect(issue.description).toMatch(/github_api_call/);
    const email = body.result.events.find((e: { name: string }) => e.name === 'outlook.new_email');
    expect(email.description).toMatch(/filter\?/);
    expect(email.description).toMatch(/outlook_api_call/);
  });

  it('gives every type a closed input schema (config and account) that a strict 2020-12 validator compiles, with no top-level combinator', async () => {
    const { body } = await modern('events/list');
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    for (const event of body.result.events as Array<{ name: string; inputSchema: Record<string, any>; payloadSchema: Record<string, any> }>) {
      const schema = event.inputSchema;
      expect(schema.type, event.name).toBe('object');
      expect(schema.additionalProperties, event.name).toBe(false);
      for (const combinator of ['anyOf', 'oneOf', 'allOf', 'not']) expect(schema[combinator], `${event.name} ${combinator}`).toBeUndefined();
      const config = Object.keys(TRIGGER_KINDS.get(event.name)!.config.shape).filter((field) => !(MANUAL_SETUP_FIELDS as readonly string[]).includes(field));
      expect(Object.keys(schema.properties), event.name).toEqual([...config, 'account']);
      expect(schema.properties.account).toMatchObject({ type: 'string', description: expect.stringMatching(/accounts_list/) });
      expect(() => ajv.compile(schema), event.name).not.toThrow();
      expect(() => ajv.compile(event.payloadSchema), `${event.name} payload`).not.toThrow();
      expect(event.payloadSchema.type, event.name).toBe('object');
    }
    const validate = ajv.compile(body.result.events.find((e: { name: string }) => e.name === 'github.new_issue').inputSchema);
    expect(validate({ repo: 'octo/hello', account: 'work' })).toBe(true);
    expect(validate({ repo: 'octo/hello', branch: 'main' })).toBe(false);
    // A subscription's arguments are its key, resent on every refresh: a signing secret has no place there.
    const vercel = body.result.events.find((e: { name: string }) => e.name === 'vercel.deployment_failed').inputSchema;
    expect(Object.keys(vercel.properties)).toEqual(['project', 'environment', 'account']);
    expect(ajv.compile(vercel)({ project: 'web', secret: 'whsec-by-hand' })).toBe(false);
  });

  it('answers a cursor it did not give with -32602 naming "cursor", in both revisions', async () => {
    for (const cursor of ['nonsense', 'ev1.', 'ev1.MA', 'ev1.OTk5']) {
      const { body } = await modern('events/list', { cursor });
      expect(body.error, cursor).toMatchObject({ code: -32602, message: expect.stringMatching(/^"cursor" .* omit cursor/), data: { field: 'cursor' } });
    }
    const typed = await modern('events/list', { cursor: 7 });
    expect(typed.body.error).toMatchObject({ code: -32602, message: expect.stringMatching(/"cursor"/) });
    const client = new LegacyClient({ name: 'events-2025', version: '1' });
    await client.connect(new LegacyHttp(new URL(endpoint)));
    try {
      await expect(client.request({ method: 'events/list', params: { cursor: 'nonsense' } }, ListResult)).rejects.toMatchObject({ code: -32602, data: { field: 'cursor' } });
    } finally {
      await client.close();
    }
  });

  it('offers nothing on a read-only server, where no trigger can be created', async () => {
    const server = surfaceOf({ ...h.deps, readOnly: true }).create('legacy');
    const client = new LegacyClient({ name: 'read-only', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    await client.connect(a);
    try {
      expect((client.getServerCapabilities() as Record<string, unknown>).extensions).toEqual({ [EXTENSION]: {} });
      expect(await client.request({ method: 'events/list', params: {} }, ListResult)).toMatchObject({ events: [] });
    } finally {
      await client.close();
      await server.close();
    }
  });
});
