import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceSignIn } from '../../src/accounts/device.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/index.js';
import { http } from '../sandbox/http.js';
import { CLI, runCli, type CliResult } from './cli.js';
import { watchMisses } from '../support/misses.js';

let sandbox: Sandbox;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox();
  sandbox.oauth.outlook.deviceIntervalSeconds = 1;
  sandbox.oauth.github.deviceIntervalSeconds = 1;
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-signin-'));
  const s = sandbox.oauthSettings;
  env = {
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_OUTLOOK_BASE_URL: sandbox.baseUrls.outlook,
    SWITCHBOARD_GITHUB_BASE_URL: sandbox.baseUrls.github,
    SWITCHBOARD_VERCEL_BASE_URL: sandbox.baseUrls.vercel,
    SWITCHBOARD_OUTLOOK_OAUTH_URL: s.outlook.url,
    SWITCHBOARD_OUTLOOK_CLIENT_ID: s.outlook.clientId!,
    SWITCHBOARD_GITHUB_OAUTH_URL: s.github.url,
    SWITCHBOARD_GITHUB_CLIENT_ID: s.github.clientId!,
    SWITCHBOARD_GITHUB_CLIENT_SECRET: s.github.clientSecret!,
  };
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the CLI and calls `onStderr` with everything written to stderr so far, until it exits. */
function runInteractive(args: string[], onStderr: (text: string) => void | Promise<void>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' });
    watchMisses(child.stderr);
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      Promise.resolve(onStderr(stderr)).catch(reject);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end();
  });
}

/** Every token the sandbox issued: none may appear in any output. */
function issuedSecrets(): string[] {
  return Object.values(sandbox.oauth).flatMap((o) => [...o.tokens.expiry.keys(), ...o.refreshTokens.keys(), o.client.secret ?? '']).filter(Boolean);
}

describe('switchboard accounts add --device', () => {
  it('Outlook: prints the code and the address, waits, and stores the account with its groups', async () => {
    let approved = false;
    const r = await runInteractive(['accounts', 'add', 'outlook', '--device', '--groups', 'mail,calendar', '--label', 'work'], async (text) => {
      const m = /open (\S+) in a browser and enter the code (\S+) /.exec(text);
      if (!m || approved) return;
      approved = true;
      expect(m[1]).toBe(`${sandbox.servers.outlook.url}/devicelogin`);
      // The person approves the code on the verification page (the sandbox's control route does the same).
      const res = await http('POST', `${sandbox.servers.outlook.url}/_sandbox/oauth/approve`, { body: { user_code: m[2] } });
      expect(res.status).toBe(200);
    });
    expect(r.stderr).toMatch(/Waiting for the sign-in to finish/);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Connected outlook account "work" \(avery@contoso\.example\) as acc_\w+ with mail, calendar, the default\./);
    const list = JSON.parse((await runCli(['accounts', 'list', '--json'], { env })).stdout);
    expect(list).toEqual([expect.objectContaining({ provider: 'outlook', label: 'work', groups: ['mail', 'calendar'], status: 'active' })]);
    expect(list[0].scopes).toEqual(expect.arrayContaining(['offline_access', 'User.Read', 'Mail.Send']));
    for (const s of issuedSecrets()) expect(r.stdout + r.stderr).not.toContain(s);
  });

  it('GitHub: the same through its device endpoints', async () => {
    let approved = false;
    const r = await runInteractive(['accounts', 'add', 'github', '--device'], async (text) => {
      const m = /enter the code ([A-Z]{4}-[A-Z]{4}) /.exec(text);
      if (!m || approved) return;
      approved = true;
      expect(text).toContain(`${sandbox.servers.github.url}/login/device`);
      expect(sandbox.oauth.github.approve(m[1]!)).toBe(true);
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Connected github account "sbx-octocat" \(sbx-octocat\)/);
    for (const s of issuedSecrets()) expect(r.stdout + r.stderr).not.toContain(s);
  });

  it('says what to configure without a client id, and refuses mixing --device with --token-stdin', async () => {
    const noClient = await runCli(['accounts', 'add', 'outlook', '--device'], { env: { ...env, SWITCHBOARD_OUTLOOK_CLIENT_ID: '' } });
    expect(noClient.code).toBe(2);
    expect(noClient.stderr).toMatch(/Set SWITCHBOARD_OUTLOOK_CLIENT_ID/);
    const mixed = await runCli(['accounts', 'add', 'github', '--device', '--token-stdin'], { env, stdin: 'x' });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/do not read a token/);
  });
});

describe('switchboard accounts add --browser', () => {
  it('prints the address, receives the redirect on 127.0.0.1, and stores the account', async () => {
    let driven = false;
    const r = await runInteractive(['accounts', 'add', 'github', '--browser', '--label', 'laptop'], async (text) => {
      const m = /^\s+(http:\/\/\S+)$/m.exec(text);
      if (!m || driven) return;
      driven = true;
      const authorize = m[1]!;
      const page = await http('GET', authorize);
      const request = /name="request" value="([^"]+)"/.exec(page.body)![1]!;
      const answer = await http('POST', authorize.split('?')[0]!, {
        body: new URLSearchParams({ request, decision: 'allow' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      const landing = await http('GET', answer.headers.location!);
      expect(landing.status).toBe(200);
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Connected github account "laptop" \(sbx-octocat\)/);
    for (const s of issuedSecrets()) expect(r.stdout + r.stderr).not.toContain(s);
  });
});

describe('two server processes sharing a data dir', () => {
  it('refresh an expiring token once between them; both calls succeed with the new token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-refresh-'));
    const shared = { ...env, SWITCHBOARD_DATA_DIR: dir, SWITCHBOARD_SECRET_KEY: 'two-process-refresh-key' };
    sandbox.oauth.outlook.accessTokenTtlSeconds = 60; // under the 2-minute margin: every caller wants a refresh
    const store = await openStore({ dataDir: dir, secretKey: shared.SWITCHBOARD_SECRET_KEY });
    try {
      await deviceSignIn({ store, baseUrls: sandbox.baseUrls, oauth: sandbox.oauthSettings }, 'outlook', {
        label: 'shared',
        prompt: (p) => sandbox.oauth.outlook.approve(p.userCode),
        sleep: async () => undefined,
      });
    } finally {
      await store.close();
    }
    const clients = await Promise.all(
      [1, 2].map(async (n) => {
        const client = new Client({ name: `refresh-${n}`, version: '1' });
        await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--port', '0'], env: shared, stderr: 'pipe' }));
        return client;
      }),
    );
    try {
      // Each server loads its tools and store with its first call: do that first, so the two calls below overlap.
      await Promise.all(clients.map((c) => c.callTool({ name: 'accounts_list', arguments: {} })));
      const before = sandbox.oauth.outlook.grants.refresh_token;
      sandbox.oauth.outlook.tokenLatencyMs = 1_000;
      const results = await Promise.all(clients.map((c) => c.callTool({ name: 'outlook_api_call', arguments: { account: 'shared', method: 'GET', endpoint: '/me' } })));
      for (const r of results) expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      expect(sandbox.oauth.outlook.grants.refresh_token - before).toBe(1);
      const auths = sandbox.servers.outlook.requests.filter((r) => r.path === '/v1.0/me').slice(-2).map((r) => r.headers.authorization);
      expect(auths[0]).toBe(auths[1]);
    } finally {
      sandbox.oauth.outlook.tokenLatencyMs = 0;
      sandbox.oauth.outlook.accessTokenTtlSeconds = 3599;
      await Promise.all(clients.map((c) => c.close()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
