import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Provider } from '../../src/store/types.js';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterEach(() => {
  for (const server of Object.values(h.sandbox.servers)) server.reset();
});
afterAll(() => h.close());

describe('a provider answer of an unexpected shape', () => {
  it.each<[string, Record<string, unknown>, Provider, string, RegExp]>([
    [
      'github_get_commit',
      { owner: 'sbx-octocat', repo: 'hello-world', ref: 'main' },
      'github',
      'GET /repos/:owner/:repo/commits/*ref',
      /^GitHub's answer to GET \/repos\/sbx-octocat\/hello-world\/commits\/main lacked the object holding "message"\..*github_api_call/,
    ],
    [
      'github_create_branch',
      { owner: 'sbx-octocat', repo: 'hello-world', branch: 'shape-check', from: 'main' },
      'github',
      'POST /repos/:owner/:repo/git/refs',
      /^GitHub's answer to POST \/repos\/sbx-octocat\/hello-world\/git\/refs lacked the object holding "sha"\./,
    ],
  ])('%s names the provider call and what it lacked', async (tool, args, provider, route, message) => {
    h.sandbox.servers[provider].once(route, { status: 200, body: {} });
    const text = await h.fails(tool, args);
    expect(text).toMatch(message);
    expect(text).not.toMatch(/Internal error|Cannot read properties/);
  });

  it('a trigger whose first poll reads an odd answer is refused naming that call, and nothing is stored', async () => {
    const before = (await h.ok('triggers_list', {})).triggers.length;
    h.sandbox.servers.github.once('GET /repos/:owner/:repo/issues', { status: 200, body: [null] });
    const text = await h.fails('triggers_create', { kind: 'github.new_issue', config: { repo: 'sbx-octocat/hello-world', mode: 'poll' } });
    expect(text).toMatch(/^GitHub's answer to GET \/repos\/sbx-octocat\/hello-world\/issues lacked the object holding "number"\./);
    expect(text).not.toMatch(/Internal error|Cannot read properties/);
    expect((await h.ok('triggers_list', {})).triggers.length).toBe(before);
  });

  it('the same call with a well-shaped answer still succeeds', async () => {
    const commit = await h.ok('github_get_commit', { owner: 'sbx-octocat', repo: 'hello-world', ref: 'main' });
    expect(commit.sha).toMatch(/^[0-9a-f]{40}$/);
  });
});
