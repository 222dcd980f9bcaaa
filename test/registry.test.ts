import { readFileSync } from 'node:fs';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoveryTools } from '../src/mcp/discovery.js';
import { buildTools, toolTable, withToolTable } from '../src/registry.js';
import { toMcpTool } from '../src/mcp/tools.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
let tools: Tool[];
beforeAll(async () => {
  h = await startHarness();
  tools = (await h.client.listTools()).tools;
});
afterAll(() => h.close());

const PREFIXES = ['outlook_', 'sales_', 'github_', 'vercel_', 'accounts_', 'triggers_', 'events_'];

function sentences(text: string): number {
  return text.split(/[.!?](?:\s+|$)/).filter((s) => s.trim().length > 0).length;
}

/** Fields the server's instructions describe once for every tool that takes them. */
const EXPLAINED_ONCE = ['account', 'mailbox', 'cursor', 'fields'];
/** GitHub's own names for a repository's coordinates, as in its REST paths. */
const GITHUB_WORDS = ['owner', 'repo'];

function undescribed(schema: any, path = ''): string[] {
  const out: string[] = [];
  for (const [name, prop] of Object.entries<any>(schema.properties ?? {})) {
    if (!prop.description) out.push(path + name);
    if (prop.type === 'object' && prop.properties) out.push(...undescribed(prop, `${path}${name}.`));
    if (prop.type === 'array' && prop.items?.properties) out.push(...undescribed(prop.items, `${path}${name}[].`));
  }
  return out;
}

describe('tool registry', () => {
  it('lists every tool once', () => {
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['outlook_api_call', 'sales_api_call', 'github_api_call', 'vercel_api_call', 'accounts_list']));
  });

  it('names are lower snake case, at most 46 characters, with a known prefix', () => {
    for (const t of tools) {
      expect(t.name).toMatch(/^[a-z0-9_]{1,46}$/);
      expect(PREFIXES.some((p) => t.name.startsWith(p)), t.name).toBe(true);
    }
  });

  it('every tool has a title and a description of at most two sentences and about 300 characters', () => {
    for (const t of tools) {
      expect(t.title, t.name).toBeTruthy();
      expect(t.description!.length, t.name).toBeGreaterThan(40);
      expect(t.description!.length, t.name).toBeLessThanOrEqual(320);
      expect(sentences(t.description!), t.name).toBeLessThanOrEqual(2);
    }
  });

  it('every input field is described, in its tool or once in the server instructions; a description that only repeats the name is left out', async () => {
    const instructions = h.client.getInstructions() ?? '';
    for (const name of EXPLAINED_ONCE) expect(instructions, name).toContain(`"${name}"`);
    for (const tool of buildTools({ readOnly: false })) {
      const written = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any', reused: 'inline' });
      expect(undescribed(written).filter((f) => !EXPLAINED_ONCE.includes(f) && !GITHUB_WORDS.includes(f)), tool.name).toEqual([]);
    }
    const listed = new Map(tools.map((t) => [t.name, t]));
    expect((listed.get('outlook_create_contact')!.inputSchema.properties as any).jobTitle).toEqual({ type: 'string' });
    expect((listed.get('outlook_create_contact')!.inputSchema.properties as any).birthday.description).toBe('YYYY-MM-DD');
  });

  it('inputs are closed objects with no top-level combinators', () => {
    for (const t of tools) {
      const s = t.inputSchema as Record<string, unknown>;
      expect(s.type).toBe('object');
      expect(s.additionalProperties, t.name).toBe(false);
      for (const k of ['anyOf', 'oneOf', 'allOf', '$ref', '$schema']) expect(s[k], `${t.name} ${k}`).toBeUndefined();
    }
  });

  it('every tool has a typed output schema, and annotations derived from its effect', () => {
    for (const t of tools) {
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect(Object.keys(t.outputSchema?.properties ?? {}).length, t.name).toBeGreaterThan(0);
      // Hints equal to the MCP defaults are left out: readOnlyHint false, idempotentHint false, openWorldHint true.
      const a = t.annotations!;
      if (a.readOnlyHint !== true) expect(typeof a.destructiveHint, t.name).toBe('boolean');
      expect(a.readOnlyHint === false || a.idempotentHint === false || a.openWorldHint === true, t.name).toBe(false);
      expect(a.openWorldHint ?? true, t.name).toBe(!/^(accounts|triggers|events)_/.test(t.name));
    }
  });

  it('what a model is handed of every tool (name, description, input schema) stays within 10,000 tokens (o200k_base), the whole tools/list within 20,000, the discovery surface within 1,500', async () => {
    const visible = tools.reduce((n, t) => n + countTokens(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })), 0);
    expect(visible).toBeLessThanOrEqual(10_000);
    expect(countTokens(JSON.stringify({ tools }))).toBeLessThanOrEqual(20_000);
    const discovery = discoveryTools(buildTools({ readOnly: false })).map(toMcpTool);
    expect(discovery.map((t) => t.name).sort()).toEqual(['tools_call', 'tools_describe', 'tools_search']);
    expect(countTokens(JSON.stringify({ tools: discovery }))).toBeLessThanOrEqual(1_500);
  });

  it('the API Call tools are marked destructive, accounts_list read-only', () => {
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('github_api_call')!.annotations).toEqual({ destructiveHint: true });
    expect(byName.get('accounts_list')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('every connector tool takes an optional account', () => {
    for (const t of tools.filter((t) => !/^(accounts|triggers|events)_/.test(t.name))) {
      expect((t.inputSchema.properties as any).account?.type, t.name).toBe('string');
      expect(t.inputSchema.required ?? [], t.name).not.toContain('account');
    }
  });

  it("docs/tools.md's table of tools is the registry's, every tool in tools/list order (npm run docs rewrites it)", () => {
    const page = readFileSync(new URL('../docs/tools.md', import.meta.url), 'utf8');
    const rows = [...toolTable().matchAll(/^\| `(\w+)` \| .+ \|$/gm)].map((m) => m[1]);
    expect(rows).toEqual(tools.map((t) => t.name));
    expect(withToolTable(page), 'docs/tools.md is out of date: run npm run docs').toBe(page);
  });
});
