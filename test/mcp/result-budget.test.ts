import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/v4';
import { createServer } from '../../src/mcp/server.js';
import { ResultBudget } from '../../src/result-budget.js';
import { defineTool } from '../../src/tool.js';
import { startHarness, type Harness } from '../harness.js';
import { ADAPTERS, cleanUp, openAt } from '../store/adapters.js';

const BUDGET = 1_000;

/** A list tool with 300 records of about 30 tokens each (some 9,000 tokens in all) and its own page cursor. */
const bigList = defineTool({
  name: 'events_big_list',
  title: 'Big list',
  description: 'Three hundred records, for the result budget tests; paged by the tool itself.',
  input: z.object({ cursor: z.string().optional().describe('next_cursor') }).strict(),
  output: z.object({ items: z.array(z.object({ id: z.string(), title: z.string(), body: z.string() })), next_cursor: z.string().nullable() }),
  effect: 'read',
  records: 'items',
  async run({ cursor }) {
    if (cursor) return { items: [{ id: 'page-2-first', title: 'page two', body: '' }], next_cursor: null };
    const items = Array.from({ length: 300 }, (_, i) => ({ id: `rec-${i}`, title: `Record number ${i}`, body: `The body of record ${i}, with a few more words in it.` }));
    return { items, next_cursor: 'page-2' };
  },
});

/** One record far larger than the whole budget. */
const oneHuge = defineTool({
  name: 'events_one_huge',
  title: 'One huge record',
  description: 'One record with a very long text, for the result budget tests.',
  input: z.object({}).strict(),
  output: z.object({ items: z.array(z.object({ id: z.string(), text: z.string() })) }),
  effect: 'read',
  async run() {
    return { items: [{ id: 'huge', text: 'word '.repeat(20_000) }] };
  },
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ maxResultTokens: BUDGET, extraTools: [bigList, oneHuge] });
});
afterAll(() => h.close());

const tokens = (data: unknown) => countTokens(JSON.stringify(data));

describe('result budget', () => {
  it('cuts a long list at a record boundary and hands out the rest, in order, through next_cursor', async () => {
    const seen: string[] = [];
    let page = await h.ok('events_big_list');
    let cuts = 0;
    while (page.next_cursor?.startsWith('cut_')) {
      expect(tokens(page)).toBeLessThanOrEqual(BUDGET);
      expect(page.note).toMatch(/^Cut to stay within 1000 tokens: records \d+-\d+ of 300 of "items"\. Call this tool again with \{"cursor":"cut_/);
      seen.push(...page.items.map((r: { id: string }) => r.id));
      page = await h.ok('events_big_list', { cursor: page.next_cursor });
      cuts++;
    }
    seen.push(...page.items.map((r: { id: string }) => r.id));
    expect(cuts).toBeGreaterThan(5);
    expect(seen).toEqual(Array.from({ length: 300 }, (_, i) => `rec-${i}`));
    // The last slice gives back the tool's own cursor, which then pages as before.
    expect(page.next_cursor).toBe('page-2');
    expect(page.note).toBeUndefined();
    expect((await h.ok('events_big_list', { cursor: 'page-2' })).items[0].id).toBe('page-2-first');
  });

  it('fewer fields mean fewer cuts', async () => {
    const full = await h.ok('events_big_list');
    const lean = await h.ok('events_big_list', { fields: ['title'] });
    expect(Object.keys(lean.items[0])).toEqual(['id', 'title']);
    expect(lean.items.length).toBeGreaterThan(full.items.length);
  });

  it('refuses a cursor it does not know, or one from another tool, naming the field', async () => {
    expect(await h.fails('events_big_list', { cursor: 'cut_nothing-here' })).toMatch(/"cursor": "cut_nothing-here" is not a cursor of events_big_list's cut results, or it expired/);
    const cut = (await h.ok('events_big_list')).next_cursor;
    expect(await h.fails('events_one_huge', { cursor: cut })).toMatch(/is not a cursor of events_one_huge's cut results/);
    // The refused cursor is still good for its own tool.
    expect((await h.ok('events_big_list', { cursor: cut })).items[0].id).not.toBe('rec-0');
  });

  it('a single record larger than the budget is sent with its longest text cut short', async () => {
    const r = await h.ok('events_one_huge');
    expect(tokens(r)).toBeLessThanOrEqual(BUDGET);
    expect(r.items[0].id).toBe('huge');
    expect(r.items[0].text).toMatch(/^(word )+\[cut\]$/);
  });

  it('cuts a long file at a line break, and the pieces join up to the file', async () => {
    const lines = Array.from({ length: 1_500 }, (_, i) => `line ${i}: ${'x'.repeat(i % 40)}`);
    const content = lines.join('\n') + '\n';
    await h.ok('github_create_or_update_file', { owner: 'sbx-octocat', repo: 'hello-world', path: 'big.txt', message: 'big', branch: 'main', content });
    let page = await h.ok('github_get_repository_content', { owner: 'sbx-octocat', repo: 'hello-world', path: 'big.txt' });
    let joined = '';
    while (page.next_cursor) {
      expect(tokens(page)).toBeLessThanOrEqual(BUDGET);
      expect(page.content.endsWith('\n')).toBe(true);
      joined += page.content;
      page = await h.ok('github_get_repository_content', { owner: 'sbx-octocat', repo: 'hello-world', cursor: page.next_cursor });
    }
    joined += page.content;
    expect(joined).toBe(content);
  });
});

describe('cut results waiting for their cursor', () => {
  afterEach(cleanUp);

  it('the 64 newest wait, 15 minutes each', async () => {
    const store = await openAt(await ADAPTERS[0]!.location(), { secretKey: 'waiting' });
    let clock = Date.now();
    const budget = new ResultBudget({ maxTokens: BUDGET, store: store.continuations, clock: () => clock });
    const ctx = { deps: h.deps, signal: new AbortController().signal, progress: async () => undefined };
    const cut = async () => (await budget.call(bigList, {}, ctx)).next_cursor as string;
    const cursors: string[] = [];
    for (let i = 0; i < 65; i++) cursors.push(await cut());
    await expect(budget.call(bigList, { cursor: cursors[0] }, ctx)).rejects.toThrow(/is not a cursor of events_big_list's cut results, or it expired \(they are kept 15 minutes\)/);
    await expect(budget.call(bigList, { cursor: cursors[1] }, ctx)).resolves.toHaveProperty('items');
    clock += 15 * 60_000 - 1;
    await expect(budget.call(bigList, { cursor: cursors[2] }, ctx)).resolves.toHaveProperty('items');
    clock += 1;
    await expect(budget.call(bigList, { cursor: cursors[3] }, ctx)).rejects.toThrow(/or it expired/);
  });
});

describe.each(ADAPTERS)('a cut result on two instances of one $name store', (adapter) => {
  afterEach(cleanUp);

  /** A server of its own over its own store on `location`, as another instance would run: its tool calls through a real client. */
  async function instance(location: Awaited<ReturnType<typeof adapter.location>>) {
    const store = await openAt(location, { secretKey: 'two instances' });
    const server = createServer({ ...h.deps, store, results: new ResultBudget({ maxTokens: BUDGET, store: store.continuations }) });
    const client = new Client({ name: 'instance-client', version: '1.0.0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
    const call = async (args: Record<string, unknown> = {}) => (await client.callTool({ name: 'events_big_list', arguments: args })) as CallToolResult;
    return { call, close: () => client.close() };
  }

  it('is cut by one instance and its rest read from the other, each piece once', async () => {
    const location = await adapter.location();
    const [one, two] = [await instance(location), await instance(location)];
    try {
      const seen: string[] = [];
      let page = (await one.call()).structuredContent as { items: Array<{ id: string }>; next_cursor: string | null };
      const used: string[] = [];
      for (let turn = 1; page.next_cursor?.startsWith('cut_'); turn++) {
        seen.push(...page.items.map((r) => r.id));
        used.push(page.next_cursor);
        page = (await [one, two][turn % 2]!.call({ cursor: page.next_cursor })).structuredContent as typeof page;
      }
      seen.push(...page.items.map((r) => r.id));
      expect(used.length).toBeGreaterThan(5);
      expect(seen).toEqual(Array.from({ length: 300 }, (_, i) => `rec-${i}`));
      // A cursor served by one instance is spent on both.
      for (const client of [one, two]) {
        const again = await client.call({ cursor: used[1] });
        expect(again.isError).toBe(true);
        expect((again.content[0] as { text: string }).text).toMatch(/is not a cursor of events_big_list's cut results, or it expired/);
      }
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe('fields', () => {
  it('returns only the asked fields of each record, and the record id', async () => {
    const r = await h.ok('outlook_find_email', { fields: ['subject', 'isRead'], limit: 3 });
    expect(r.messages).toHaveLength(3);
    for (const m of r.messages) expect(Object.keys(m).sort()).toEqual(['id', 'isRead', 'subject']);
    expect(r.next_cursor).toBeTruthy();
  });

  it('refuses an unknown field with the valid ones, before any request is sent', async () => {
    const before = h.sandbox.servers.outlook.requests.length;
    const text = await h.fails('outlook_find_email', { fields: ['subject', 'sender'] });
    expect(text).toMatch(/"fields": "sender" is not a field of these records; choose from id, subject, from, receivedDateTime/);
    expect(h.sandbox.servers.outlook.requests.length).toBe(before);
  });

  it('is offered by every list tool', async () => {
    const { tools } = await h.client.listTools();
    const lists = ['outlook_find_email', 'outlook_list_events', 'github_search_issues_and_pull_requests', 'sales_search_companies', 'vercel_list_deployments', 'triggers_list', 'events_next'];
    for (const name of lists) expect((tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, unknown>).fields, name).toBeDefined();
  });
});
