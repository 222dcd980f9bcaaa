import { readdirSync } from 'node:fs';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

// Written on a local run, compared in CI (vitest does not write snapshots when CI is set): `npm run test:update` accepts a change.
let h: Harness;
let tools: Tool[];
beforeAll(async () => {
  h = await startHarness();
  tools = (await h.client.listTools()).tools;
});
afterAll(() => h.close());

describe('schemas/', () => {
  it('holds exactly what tools/list returns for each tool', async () => {
    for (const tool of tools) {
      await expect(JSON.stringify(tool, null, 2) + '\n').toMatchFileSnapshot(`../schemas/${tool.name}.json`);
    }
  });

  it('has no file for a tool that no longer exists', () => {
    const files = readdirSync(new URL('../schemas/', import.meta.url)).filter((f) => f.endsWith('.json'));
    const names = new Set(tools.map((t) => `${t.name}.json`));
    expect(files.filter((f) => !names.has(f))).toEqual([]);
  });
});
