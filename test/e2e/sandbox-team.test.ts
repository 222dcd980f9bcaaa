import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, signIn, startCallbackServer, TestOAuthClient } from '../team/team.js';
import { launchBrowser } from '../support/browser.js';
import { CLI, exited } from './cli.js';
import { watchMisses } from '../support/misses.js';

/**
 * `switchboard serve --sandbox --http --team`, the one command, run as a newcomer runs it (a free port and a data
 * directory of the test's own given through the environment), and its banner's instructions followed as written.
 */
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let callback: Awaited<ReturnType<typeof startCallbackServer>>;
let dataDir: string;
let server: ChildProcess | undefined;
const clients: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  [browser, callback] = await Promise.all([launchBrowser(), startCallbackServer()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), callback?.close()]);
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  if (server && server.exitCode === null) server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the command from a directory of its own (so the banner names the CLI by its absolute path) until it listens. */
function startTeamSandbox(env: Record<string, string>): Promise<{ child: ChildProcess; stderr: () => string; url: string }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--sandbox', '--http', '--team'], { cwd: dataDir, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  server = child;
  watchMisses(child.stderr!);
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start within 20 s:\n${stderr}`)), 20_000);
    child.stderr!.on('data', (d) => {
      stderr += d;
      const listening = /"msg":"listening","mcp":"(http:\/\/127\.0\.0\.1:\d+)\/mcp"/.exec(stderr);
      if (listening) {
        clearTimeout(timer);
        resolve({ child, stderr: () => stderr, url: listening[1]! });
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}:\n${stderr}`)));
  });
}

describe('serve --sandbox --http --team', () => {
  it('starts with no more flags, without a warning, and its banner says how to connect a client: both ways work', { timeout: 90_000 }, async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-sandbox-team-'));
    const env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_PORT: '0' };
    const { child, stderr, url } = await startTeamSandbox(env);
    const banner = stderr();

    expect(banner).not.toMatch(/warning|"level":"warn"/i);
    expect(banner).toContain(`"issuer":"${url}"`);
    expect(banner).toMatch(/Team mode: .*sign in at the sandbox's GitHub or Microsoft/);
    expect(banner.replace(/\s+/g, ' ')).toContain("Who may sign in: the sandbox's people, sbx-octocat (GitHub) and avery@contoso.example (Microsoft), and no one else");
    // Nothing printed calls the MCP endpoint without a token: that would be refused.
    expect(banner).not.toContain('inspector-cli');
    expect((await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);

    // b. The token and the client command, run as printed; `claude` is a stand-in that records the arguments it gets.
    const lines = banner.split('\n').map((l) => l.trim());
    const tokenLine = lines.find((l) => l.startsWith('TOKEN=$('))!;
    const clientLine = lines.find((l) => l.startsWith('claude mcp add'))!;
    expect(tokenLine).toBe(`TOKEN=$(node ${CLI} tokens create --user sbx-octocat --sandbox --data-dir ${dataDir} --name sandbox-client)`);
    const recorder = `claude() { printf '%s\\n' "$@"; }`;
    const run = spawnSync('bash', ['-c', `${recorder}\n${tokenLine}\n${clientLine}`], { cwd: tmpdir(), env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 20_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/Created pat_[0-9a-f]+ \("sandbox-client"\) for sbx-octocat/);
    const args = run.stdout.trimEnd().split('\n');
    expect(args.slice(0, 5)).toEqual(['mcp', 'add', '--transport', 'http', 'switchboard-sandbox']);
    expect(args[5]).toBe(`${url}/mcp`);
    expect(args[6]).toBe('--header');
    const [name, value] = args[7]!.split(': ');
    expect(name).toBe('Authorization');
    expect(value).toMatch(/^Bearer sbp_\S+$/);

    const withToken = new Client({ name: 'sandbox-team-e2e', version: '1' });
    await withToken.connect(new StreamableHTTPClientTransport(new URL(args[5]!), { requestInit: { headers: { [name!]: value! } } }));
    clients.push(withToken);
    const repo = await withToken.callTool({ name: 'github_get_repository', arguments: { owner: 'sbx-octocat', repo: 'hello-world' } });
    expect(repo.isError, JSON.stringify(repo.content)).toBeFalsy();
    expect(repo.structuredContent).toMatchObject({ full_name: 'sbx-octocat/hello-world' });

    // a. A client that signs in by itself: the OAuth flow, the person choosing GitHub on the sandbox's pages.
    const oauth = await signIn(browser.context, url, 'GitHub', new TestOAuthClient(callback.url));
    const signedIn = await connect(url, oauth);
    clients.push(signedIn);
    const accounts = await signedIn.callTool({ name: 'accounts_list', arguments: {} });
    const listed = (accounts.structuredContent as { accounts: Array<{ provider: string; label: string }> }).accounts;
    expect(listed.map((a) => `${a.provider}:${a.label}`).sort()).toEqual(['github:sandbox', 'outlook:sandbox', 'sales:sandbox', 'vercel:sandbox']);

    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });
});
