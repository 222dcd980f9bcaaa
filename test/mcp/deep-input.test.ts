import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { discoveryTools } from '../../src/mcp/discovery.js';
import { createServer } from '../../src/mcp/server.js';
import { MAX_INPUT_DEPTH } from '../../src/nesting.js';
import { buildTools } from '../../src/registry.js';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
let discover: Client;

beforeAll(async () => {
  h = await startHarness();
  const server = createServer({ ...h.deps, tools: discoveryTools(buildTools({ readOnly: false })) });
  discover = new Client({ name: 'discover', version: '1' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  await discover.connect(a);
});
afterAll(async () => {
  await discover.close();
  await h.close();
});
beforeEach(() => {
  for (const s of Object.values(h.sandbox.servers)) s.reset();
});

/** `levels` objects, one inside the other, around `leaf`: built in a loop, as no recursion could build the deepest. */
function nested(levels: number, leaf: unknown = 1, key: string | null = 'a'): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = key === null ? [value] : { [key]: value };
  return value;
}

const sent = () => Object.values(h.sandbox.servers).reduce((n, s) => n + s.requests.length, 0);
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const ACCEPT = { accept: 'application/vnd.github+json' };
/** What the error says of a field whose value nests 2,000 levels: the path to level 65, cut in the middle. */
const refusal = (field: string, key = 'a') => `"${field}.${key}.${key}.${key}.…(59 more).${key}.${key}" is nested more than 64 levels deep`;

describe('arguments nested deeper than MAX_INPUT_DEPTH', () => {
  it('is 64 levels', () => {
    expect(MAX_INPUT_DEPTH).toBe(64);
  });

  it('every tool refuses 2,000 levels in any of its fields by naming the path and the fix, and nothing reaches a provider', async () => {
    const { tools } = await h.client.listTools();
    const wrong: string[] = [];
    let checked = 0;
    for (const tool of tools) {
      for (const field of Object.keys(tool.inputSchema.properties ?? {})) {
        checked++;
        const text = await h.fails(tool.name, { [field]: nested(2_000) });
        if (!text.includes(refusal(field)) || !text.includes('send that part flatter') || /Internal error|call stack/.test(text)) {
          wrong.push(`${tool.name}.${field}: ${text.slice(0, 160)}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
    expect(wrong).toEqual([]);
    expect(sent()).toBe(0);
  });

  it('names array levels by index', async () => {
    const text = await h.fails('github_get_repository', { owner: nested(2_000, 'x', null), repo: 'hello-world' });
    expect(text).toContain('"owner.0.0.0.…(59 more).0.0" is nested more than 64 levels deep');
    expect(sent()).toBe(0);
  });

  it('refuses before the account is resolved: an unknown account is not what the error is about', async () => {
    const text = await h.fails('github_api_call', { method: 'POST', endpoint: '/repos/sbx-octocat/hello-world/issues', headers: ACCEPT, body: nested(2_000), account: 'nobody' });
    expect(text).toContain(refusal('body'));
    expect(text).not.toMatch(/nobody/);
  });

  it('holds at any depth: the check itself is iterative (200,000 levels)', async () => {
    const text = await h.fails('github_api_call', { method: 'POST', endpoint: '/repos/sbx-octocat/hello-world/issues', headers: ACCEPT, body: nested(200_000) });
    expect(text).toContain(refusal('body'));
    expect(sent()).toBe(0);
  });

  it('takes a body whose deepest value sits at level 64, and sends it whole; one level more is refused', async () => {
    h.sandbox.servers.github.once('POST /repos/:owner/:repo/issues', { status: 201, body: { number: 1 } });
    const body = { title: 'deep', meta: nested(MAX_INPUT_DEPTH - 2, 'leaf') };
    const result = await h.ok('github_api_call', { method: 'POST', endpoint: '/repos/sbx-octocat/hello-world/issues', headers: ACCEPT, body });
    expect(result.status).toBe(201);
    expect(h.sandbox.servers.github.requests[0]!.body).toEqual(body);

    const deeper = { title: 'deep', meta: nested(MAX_INPUT_DEPTH - 1, 'leaf') };
    const text = await h.fails('github_api_call', { method: 'POST', endpoint: '/repos/sbx-octocat/hello-world/issues', headers: ACCEPT, body: deeper });
    expect(text).toContain('"body.meta.a.a.…(59 more).a.a" is nested more than 64 levels deep');
    expect(h.sandbox.servers.github.requests).toHaveLength(1);
  });

  it('names a trigger config path and creates nothing', async () => {
    const text = await h.fails('triggers_create', { kind: 'outlook.new_email', config: nested(2_000) });
    expect(text).toContain(refusal('config'));
    expect(await h.ok('triggers_list')).toEqual({ triggers: [] });
  });
});

describe('through tools_call (discover mode)', () => {
  const call = (args: Record<string, unknown>) => discover.callTool({ name: 'tools_call', arguments: args }) as Promise<CallToolResult>;

  it("names the path inside the called tool's arguments, and nothing reaches a provider", async () => {
    const result = await call({ name: 'github_api_call', arguments: { method: 'POST', endpoint: '/repos/sbx-octocat/hello-world/issues', headers: ACCEPT, body: nested(2_000) } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('"arguments.body.a.a.…(60 more).a.a" is nested more than 64 levels deep');
    expect(sent()).toBe(0);
  });

  it("counts the levels from the called tool's arguments, as a direct call does", async () => {
    h.sandbox.servers.github.once('POST /repos/:owner/:repo/issues', { status: 201, body: { number: 2 } });
    const body = { title: 'deep', meta: nested(MAX_INPUT_DEPTH - 2, 'leaf') };
    const result = await call({ name: 'github_api_call', arguments: { method: 'POST', endpoint: '/repos/sbx-octocat/hello-world/issues', headers: ACCEPT, body } });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(h.sandbox.servers.github.requests[0]!.body).toEqual(body);
  });
});
