import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { startHarness, type Harness } from '../harness.js';

/** A harness for the issue, pull request and workflow tools. */
export function startWorkHarness(): Promise<Harness> {
  return startHarness();
}

export const REPO_PATH = '/repos/sbx-octocat/hello-world';

export interface Sent {
  method: string;
  path: string;
  query: Record<string, string>;
  body: any;
}

/** What the GitHub sandbox received since the last reset. */
export function sent(h: Harness, method?: string): Sent[] {
  return h.sandbox.servers.github.requests
    .filter((r) => !method || r.method === method)
    .map((r) => ({ method: r.method, path: r.path, query: Object.fromEntries(r.query), body: r.body }));
}

export const lines = (h: Harness) => sent(h).map((r) => `${r.method} ${r.path}`);

export const helloWorld = (h: Harness) => h.sandbox.states.github.repos.find((r) => r.name === 'hello-world')!;

/** Each tool's tools/list entry: size (printed for the report) within a bound, short description, every input described. */
export async function checkSizes(h: Harness, names: string[], max: number): Promise<Map<string, McpTool>> {
  const listed = new Map((await h.client.listTools()).tools.map((t) => [t.name, t]));
  // What a model is handed of each tool: name, description and input schema.
  const visible = (t: McpTool | undefined) => JSON.stringify(t ? { name: t.name, description: t.description, inputSchema: t.inputSchema } : null);
  const sizes = Object.fromEntries(names.map((n) => [n, visible(listed.get(n)).length]));
  for (const n of names) {
    expect(listed.has(n), n).toBe(true);
    expect(sizes[n], n).toBeLessThanOrEqual(max);
    // The registry's rules (test/registry.test.ts), checked here too while the tools are not wired in.
    const description = listed.get(n)!.description!;
    expect(description.length, n).toBeLessThanOrEqual(300);
    expect(description.split(/[.!?](?:\s+|$)/).filter((x) => x.trim()).length, n).toBeLessThanOrEqual(2);
  }
  return listed;
}
