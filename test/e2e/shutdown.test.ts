import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubRoutes, SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { CLI, exited, runCli, startHttpServe } from './cli.js';
import { until } from '../support/wait.js';

let sandbox: Sandbox;
let dataDir: string;
let env: Record<string, string>;
const SLOW_MS = 3_000;

beforeAll(async () => {
  sandbox = await startSandbox();
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-shutdown-'));
  env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_GITHUB_BASE_URL: sandbox.baseUrls.github };
  expect((await runCli(['accounts', 'add', 'github', '--token-stdin'], { env, stdin: SANDBOX_TOKENS.github })).code).toBe(0);
  // A provider call that takes 3 s: shutdown must wait for it.
  const get = githubRoutes(sandbox.states.github)['GET /repos/:owner/:repo']!;
  sandbox.servers.github.use('GET /repos/:owner/:repo', async (req) => {
    await delay(SLOW_MS);
    return get(req);
  });
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const repoRequests = () => sandbox.servers.github.requests.filter((r) => r.path === '/repos/sbx-octocat/hello-world').length;

describe('SIGTERM', () => {
  it('over HTTP: a provider call in flight gets its answer, a long poll answers with what it has, and serve exits 0', { timeout: 60_000 }, async () => {
    const { child, url } = await startHttpServe([], env);
    const caller = new Client({ name: 'caller', version: '1' });
    await caller.connect(new StreamableHTTPClientTransport(new URL(url)));
    const poller = new Client({ name: 'poller', version: '1' });
    await poller.connect(new StreamableHTTPClientTransport(new URL(url)));
    const seen = repoRequests();
    const call = caller.callTool({ name: 'github_get_repository', arguments: { owner: 'sbx-octocat', repo: 'hello-world' } });
    const poll = poller.callTool({ name: 'events_next', arguments: { wait_seconds: 50 } }, undefined, { timeout: 60_000 });
    await until(() => repoRequests() > seen, 'the provider call to start', 20_000);
    const signalledAt = Date.now();
    child.kill('SIGTERM');
    const [result, polled] = await Promise.all([call, poll]);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect((result.structuredContent as { full_name: string }).full_name).toBe('sbx-octocat/hello-world');
    expect(polled.isError).toBeFalsy();
    expect((polled.structuredContent as { events: unknown[] }).events).toEqual([]);
    expect(await exited(child)).toBe(0);
    // The long poll was given 50 s; it answered when the process stopped, not when its wait ran out.
    expect(Date.now() - signalledAt).toBeLessThan(40_000);
  });

  it('over stdio: the call in flight is answered before the process exits', { timeout: 60_000 }, async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--port', '0'], env, stderr: 'pipe' });
    const client = new Client({ name: 'desktop', version: '1' });
    await client.connect(transport);
    await client.callTool({ name: 'accounts_list', arguments: {} });
    const seen = repoRequests();
    const call = client.callTool({ name: 'github_get_repository', arguments: { owner: 'sbx-octocat', repo: 'hello-world' } });
    await until(() => repoRequests() > seen, 'the provider call to start', 20_000);
    const pid = transport.pid!;
    process.kill(pid, 'SIGTERM');
    const result = await call;
    expect((result.structuredContent as { full_name: string }).full_name).toBe('sbx-octocat/hello-world');
    await until(() => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    }, 'the process to exit', 20_000);
  });
});
