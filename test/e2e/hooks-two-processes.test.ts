import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubRoutes, SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from './cli.js';

let sandbox: Sandbox;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox();
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-hooks-'));
  env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_GITHUB_BASE_URL: sandbox.baseUrls.github, SWITCHBOARD_PUBLIC_URL: 'https://hooks.example.net' };
  expect((await runCli(['accounts', 'add', 'github', '--token-stdin'], { env, stdin: SANDBOX_TOKENS.github })).code).toBe(0);
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('two processes, one repository', () => {
  it('share one webhook when they create triggers on it at once', { timeout: 60_000 }, async () => {
    // A slow hook creation at GitHub keeps the first process inside its critical section while the second arrives.
    const create = githubRoutes(sandbox.states.github)['POST /repos/:owner/:repo/hooks']!;
    sandbox.servers.github.use('POST /repos/:owner/:repo/hooks', async (req) => {
      await delay(1_500);
      return create(req);
    });
    const add = (kind: string) => runCli(['triggers', 'add', kind, '--config', '{"repo":"sbx-octocat/hello-world"}', '--json'], { env, timeoutMs: 40_000 });
    const [a, b] = await Promise.all([add('github.new_issue'), add('github.new_fork')]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const posts = sandbox.servers.github.requests.filter((r) => r.method === 'POST' && r.path === '/repos/sbx-octocat/hello-world/hooks');
    expect(posts).toHaveLength(1);
    const list = JSON.parse((await runCli(['triggers', 'list', '--json'], { env })).stdout) as Array<Record<string, unknown>>;
    expect(list).toHaveLength(2);
    const hooks = await fetch(`${sandbox.baseUrls.github}/repos/sbx-octocat/hello-world/hooks`, { headers: { authorization: `Bearer ${SANDBOX_TOKENS.github}` } });
    const remote = (await hooks.json()) as Array<{ events: string[] }>;
    expect(remote).toHaveLength(1);
    expect(remote[0]!.events).toEqual(expect.arrayContaining(['issues', 'fork']));
  });
});
