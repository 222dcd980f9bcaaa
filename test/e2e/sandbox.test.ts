import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, exited, runCli, startHttpServe } from './cli.js';
import { watchMisses } from '../support/misses.js';

let dataDir: string;
/** A directory of its own to run in: not one that holds the clone, where the banner would name the CLI by a relative path. */
let cwd: string;
let env: Record<string, string>;
const TEMPORARY = /No serve --sandbox is running/;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-sandbox-'));
  cwd = mkdtempSync(join(tmpdir(), 'switchboard-e2e-cwd-'));
  // Real hosts are unreachable here: a command that left the sandbox would fail.
  env = { SWITCHBOARD_DATA_DIR: dataDir };
});

afterEach(() => {
  for (const dir of [dataDir, cwd]) rmSync(dir, { recursive: true, force: true });
});

describe('--sandbox without a running server', () => {
  it('uses stand-ins of its own and the sandbox store, never the real one', { timeout: 60_000 }, async () => {
    const list = await runCli(['accounts', 'list', '--sandbox', '--json'], { env });
    expect(list.code).toBe(0);
    expect(list.stderr).toMatch(TEMPORARY);
    const accounts = JSON.parse(list.stdout) as Array<{ provider: string; label: string; identity: string | null }>;
    expect(accounts.map((a) => `${a.provider}:${a.label}`).sort()).toEqual(['github:sandbox', 'outlook:sandbox', 'sales:sandbox', 'vercel:sandbox']);

    const added = await runCli(['accounts', 'add', 'github', '--sandbox', '--token-stdin', '--label', 'second'], { env, stdin: 'sbx-github-token-0001' });
    expect(added.stderr + added.stdout).toMatch(/Connected github account "second" \(sbx-octocat\)/);
    const trigger = await runCli(['triggers', 'add', 'outlook.new_email', '--sandbox', '--interval', '10'], { env });
    expect(trigger.code, trigger.stderr).toBe(0);
    expect((await runCli(['triggers', 'list', '--sandbox'], { env })).stdout).toMatch(/outlook\.new_email\s+sandbox\s+active/);

    const real = await runCli(['accounts', 'list'], { env });
    expect(real.stdout).toMatch(/No accounts connected/);
    expect((await runCli(['triggers', 'list'], { env })).stdout).toMatch(/No triggers/);
  });
});

describe('--sandbox beside serve --sandbox', () => {
  it('works against the running server\'s stand-ins, announced in its data directory while it runs', { timeout: 60_000 }, async () => {
    const { child, url, stderr } = await startHttpServe(['--sandbox'], env);
    try {
      const announced = join(dataDir, 'sandbox', 'sandbox.json');
      expect(JSON.parse(readFileSync(announced, 'utf8'))).toMatchObject({ pid: child.pid, mcp: url });
      expect(stderr()).toMatch(/Integrations page: http:\/\/127\.0\.0\.1:\d+\//);

      const added = await runCli(['accounts', 'add', 'vercel', '--sandbox', '--token-stdin', '--label', 'cli-added'], { env, stdin: 'sbx-vercel-token-0001' });
      expect(added.code, added.stderr).toBe(0);
      expect(added.stderr).not.toMatch(TEMPORARY);

      // The server sees what the CLI added: one store, one set of stand-ins.
      const client = new Client({ name: 'sandbox-e2e', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const r = await client.callTool({ name: 'accounts_list', arguments: { provider: 'vercel' } });
      expect((r.structuredContent as { accounts: Array<{ label: string }> }).accounts.map((a) => a.label)).toEqual(['sandbox', 'cli-added']);
      await client.close();
    } finally {
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
    }
    expect(existsSync(join(dataDir, 'sandbox', 'sandbox.json'))).toBe(false);
    const after = await runCli(['accounts', 'list', '--sandbox'], { env });
    expect(after.stderr).toMatch(TEMPORARY);
  });
});

describe('--sandbox on the store-only commands', () => {
  it('users, tokens and db act on the sandbox\'s own store and its sample people, never the real one', { timeout: 60_000 }, async () => {
    const users = await runCli(['users', 'list', '--sandbox'], { env });
    expect(users.code, users.stderr).toBe(0);
    expect(users.stderr).not.toMatch(TEMPORARY);
    expect(users.stdout).toMatch(/^sbx-octocat +octocat@sbx\.example +GitHub +admin +active/m);
    expect(users.stdout).toMatch(/^avery@contoso\.example +avery@contoso\.example +Microsoft +member +active/m);
    expect((await runCli(['users', 'list'], { env })).stdout).toMatch(/No one has signed in yet .*The sandbox keeps its own people: switchboard users list --sandbox\./);

    const token = await runCli(['tokens', 'create', '--user', 'sbx-octocat', '--sandbox', '--name', 'e2e'], { env });
    expect(token.code, token.stderr).toBe(0);
    expect(token.stdout).toMatch(/^sbp_\S+\n$/);
    expect((await runCli(['tokens', 'list', '--sandbox'], { env })).stdout).toMatch(/pat_[0-9a-f]+ +e2e +sbx-octocat +switchboard:read +active/);
    expect((await runCli(['tokens', 'list'], { env })).stdout).not.toContain('e2e');

    const migrate = await runCli(['db', 'migrate', '--sandbox'], { env });
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(migrate.stdout).toContain(join(dataDir, 'sandbox', 'switchboard.db'));
    expect(migrate.stdout).toMatch(/already at schema \d+; nothing to do/);
  });
});

describe('the banner of serve --sandbox --data-dir', () => {
  let server: ChildProcess | undefined;
  afterEach(() => {
    if (server?.exitCode === null) server.kill('SIGKILL');
  });

  it('gives every sample credential, and every command it prints carries --data-dir and reaches the same store', { timeout: 60_000 }, async () => {
    // Started from a directory of its own with --data-dir only: the commands must not fall back to another store.
    server = spawn(process.execPath, [CLI, 'serve', '--sandbox', '--http', '--port', '0', '--data-dir', dataDir], { cwd, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'ignore', 'pipe'] });
    watchMisses(server.stderr);
    let banner = '';
    server.stderr!.on('data', (d) => (banner += d));
    await expect.poll(() => banner, { timeout: 20_000 }).toMatch(/"msg":"listening"/);

    for (const [provider, kind, value] of [
      ['outlook', 'token', 'sbx-outlook-token-0001'],
      ['outlook', 'token', 'sbx-outlook-personal-0001'],
      ['github', 'token', 'sbx-github-token-0001'],
      ['vercel', 'token', 'sbx-vercel-token-0001'],
      ['sales', 'API key', 'sbx-sales-key-0001'],
      ['github', 'OAuth app', 'Iv1.sbxgithubclient'],
    ]) {
      expect(banner).toMatch(new RegExp(`^ {4}${provider} +${kind} +${value.replace('.', '\\.')} `, 'm'));
    }
    const commands = banner
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith(`node ${CLI} `) || l.includes(` node ${CLI} `));
    expect(commands.length).toBeGreaterThanOrEqual(3);
    for (const line of commands) expect(line).toContain(`--sandbox --data-dir ${dataDir}`);

    const add = commands.find((l) => l.includes('triggers add'))!;
    const run = spawnSync('bash', ['-c', add], { cwd, env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', timeout: 20_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(TEMPORARY);
    const list = await runCli(['triggers', 'list', '--sandbox', '--data-dir', dataDir]);
    expect(list.stdout).toMatch(/outlook\.new_email\s+sandbox\s+active/);

    const page = await (await fetch(/Integrations page: (http:\S+)/.exec(banner)![1]!)).text();
    expect(page).toContain('id="sandbox-credentials"');
    expect(page).toContain('<code class="credential">sbx-sales-key-0001</code>');
    server.kill('SIGTERM');
    expect(await exited(server)).toBe(0);
  });

  it('the page of a server that is not the sandbox shows no sample credential', { timeout: 60_000 }, async () => {
    const { child, url } = await startHttpServe([], env);
    try {
      const page = await (await fetch(url.replace(/\/mcp$/, '/'))).text();
      expect(page).toContain('Integrations');
      expect(page).not.toContain('sandbox-credentials');
      expect(page).not.toContain('sbx-');
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });
});
