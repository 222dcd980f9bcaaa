import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoveryTools } from '../../src/mcp/discovery.js';
import { createServer } from '../../src/mcp/server.js';
import { buildTools } from '../../src/registry.js';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
let client: Client;

beforeAll(async () => {
  h = await startHarness();
  const server = createServer({ ...h.deps, tools: discoveryTools(buildTools({ readOnly: false })) });
  client = new Client({ name: 'discovery', version: '1' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  await client.connect(a);
});
afterAll(async () => {
  await client.close();
  await h.close();
});

const structured = async (name: string, args: Record<string, unknown>) => {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(JSON.stringify(r.content));
  return r.structuredContent as any;
};

describe('discovery mode', () => {
  it('lists three tools in at most 1,500 tokens', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['tools_search', 'tools_describe', 'tools_call']);
    expect(countTokens(JSON.stringify({ tools }))).toBeLessThanOrEqual(1500);
  });

  it('finds, describes and calls a tool', async () => {
    const found = await structured('tools_search', { query: 'create issue' });
    expect(found.tools[0].name).toBe('github_create_issue');
    const { tool } = await structured('tools_describe', { name: 'github_create_issue' });
    expect(tool.inputSchema.required).toEqual(expect.arrayContaining(['owner', 'repo', 'title']));
    const { result } = await structured('tools_call', { name: 'github_create_issue', arguments: { owner: 'sbx-octocat', repo: 'hello-world', title: 'Via discovery' } });
    expect(result.number).toBeGreaterThan(0);
    expect(h.sandbox.servers.github.requests.at(-1)!.body).toMatchObject({ title: 'Via discovery' });
  });

  it('reaches every tool', async () => {
    for (const t of buildTools({ readOnly: false })) {
      const { tool } = await structured('tools_describe', { name: t.name });
      expect(tool.name).toBe(t.name);
    }
  });

  it('passes a tool\'s own errors through and names unknown tools', async () => {
    const bad = await client.callTool({ name: 'tools_call', arguments: { name: 'github_create_issue', arguments: { owner: 'x' } } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/repo/);
    const unknown = await client.callTool({ name: 'tools_describe', arguments: { name: 'nope' } });
    expect((unknown.content as Array<{ text: string }>)[0]!.text).toMatch(/No tool "nope"; tools_search/);
  });
});
