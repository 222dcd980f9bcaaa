import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';

const LONE = '\uD800';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('text that is not valid Unicode', () => {
  it('every tool refuses a lone surrogate in any of its text inputs by naming the field', async () => {
    const { tools } = await h.client.listTools();
    const wrong: string[] = [];
    let checked = 0;
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown }>;
      for (const [field, schema] of Object.entries(properties)) {
        if (schema.type !== 'string' || schema.enum) continue;
        checked++;
        const text = await h.fails(tool.name, { [field]: `x${LONE}y` });
        if (!text.includes(`"${field}" contains a lone UTF-16 surrogate`) || /malformed/i.test(text)) wrong.push(`${tool.name}.${field}: ${text.slice(0, 120)}`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(wrong).toEqual([]);
  });

  it.each([
    ['github_get_repository', { owner: LONE, repo: 'hello-world' }, 'owner'],
    ['github_get_repository_content', { owner: 'sbx-octocat', repo: 'hello-world', path: `src/${LONE}.ts` }, 'path'],
    ['vercel_list_deployments', { project: `app${LONE}` }, 'project'],
    ['vercel_cancel_deployment', { id: `dpl_${LONE}` }, 'id'],
    ['outlook_delete_event', { id: '\uDC00AAMk' }, 'id'],
  ])('%s names the field and sends nothing', async (tool, args, field) => {
    const sent = () => Object.values(h.sandbox.servers).reduce((n, s) => n + s.requests.length, 0);
    const before = sent();
    const text = await h.fails(tool, args);
    expect(text).toMatch(new RegExp(`"${field}" contains a lone UTF-16 surrogate`));
    expect(text).not.toMatch(/URI malformed|Internal error/);
    expect(sent()).toBe(before);
  });

  it('names nested fields by their path', async () => {
    const text = await h.fails('triggers_create', { kind: 'outlook.new_email', config: { folder: `In${LONE}box` } });
    expect(text).toMatch(/"config\.folder" contains a lone UTF-16 surrogate/);
  });

  it('keeps whole characters, emoji included', async () => {
    expect(await h.fails('github_get_repository', { owner: 'sbx-octocat', repo: 'hello-\u{1F600}' })).toMatch(/GitHub answered 404/);
  });
});
