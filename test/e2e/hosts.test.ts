import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGithubState, githubEnterpriseRoutes, SANDBOX_TOKENS, startSandbox, startSandboxServer, type Sandbox, type SandboxServer } from '../../src/sandbox/index.js';
import { runCli } from './cli.js';

/** `switchboard accounts add github --base-url`: one account on GitHub Enterprise Server beside one on the host SWITCHBOARD_GITHUB_BASE_URL names. */

const GHES_TOKEN = 'ghes-cli-token-0000enterprise';

let sandbox: Sandbox;
let ghes: SandboxServer;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox();
  const state = createGithubState();
  state.tokens = new Set([GHES_TOKEN]);
  ghes = await startSandboxServer('github-enterprise', githubEnterpriseRoutes(state));
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-hosts-'));
  env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_GITHUB_BASE_URL: sandbox.baseUrls.github };
});

afterAll(async () => {
  await ghes?.close();
  await sandbox?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const list = async () => JSON.parse((await runCli(['accounts', 'list', '--json'], { env })).stdout) as Array<Record<string, unknown>>;

describe('switchboard accounts add github --base-url', () => {
  it('adds an account on each host and lists the base URL where an account has its own', async () => {
    const dotcom = await runCli(['accounts', 'add', 'github', '--token-stdin', '--label', 'dotcom'], { env, stdin: SANDBOX_TOKENS.github });
    expect(dotcom.code, dotcom.stderr).toBe(0);
    const base = `${ghes.url}/api/v3`;
    const enterprise = await runCli(['accounts', 'add', 'github', '--base-url', `${base}/`, '--token-stdin', '--label', 'work'], { env, stdin: GHES_TOKEN });
    expect(enterprise.code, enterprise.stderr).toBe(0);
    expect(enterprise.stdout).toMatch(new RegExp(`^Connected github account "work" \\(sbx-octocat\\) at ${base} as acc_\\w+\\.$`, 'm'));
    expect(ghes.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v3/user']);

    const table = (await runCli(['accounts', 'list'], { env })).stdout;
    expect(table).toMatch(/^PROVIDER\s+LABEL\s+IDENTITY\s+TEAM\s+BASE URL\s+STATUS\s+ID$/m);
    expect(table).toMatch(new RegExp(`^github\\s+work\\s+sbx-octocat\\s+-\\s+${base}\\s+active\\s`, 'm'));
    expect(table).toMatch(/^github\s+dotcom \(default\)\s+sbx-octocat\s+-\s+-\s+active\s/m);
    const accounts = await list();
    expect(accounts.find((a) => a.label === 'work')).toMatchObject({ base_url: base });
    expect(accounts.find((a) => a.label === 'dotcom')).not.toHaveProperty('base_url');
    expect(table + JSON.stringify(accounts)).not.toContain(GHES_TOKEN);
  });

  it('refuses a token of the other host, and bad base URLs naming --base-url and the fix, storing nothing', async () => {
    const before = await list();
    const wrongHost = await runCli(['accounts', 'add', 'github', '--token-stdin', '--label', 'x'], { env, stdin: GHES_TOKEN });
    expect(wrongHost.code).toBe(1);
    expect(wrongHost.stderr).toMatch(/GitHub answered 401/);

    const plain = await runCli(['accounts', 'add', 'github', '--base-url', 'http://ghe.example.com/api/v3', '--token-stdin'], { env, stdin: GHES_TOKEN });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('--base-url must use https (plain http only on 127.0.0.1, [::1] or localhost): give https://ghe.example.com/api/v3.');
    const bare = await runCli(['accounts', 'add', 'github', '--base-url', 'https://ghe.example.com', '--token-stdin'], { env, stdin: GHES_TOKEN });
    expect(bare.stderr).toContain('--base-url: GitHub Enterprise Server serves its API under /api/v3: give https://ghe.example.com/api/v3.');
    const withPassword = await runCli(['accounts', 'add', 'github', '--base-url', 'https://octo:pw-in-url-0001@ghe.example.com/api/v3', '--token-stdin'], { env, stdin: GHES_TOKEN });
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toContain('--base-url must not hold a user name or password');
    expect(withPassword.stderr + withPassword.stdout).not.toContain('pw-in-url-0001');
    const signIn = await runCli(['accounts', 'add', 'github', '--device', '--base-url', `${ghes.url}/api/v3`], { env });
    expect(signIn.code).toBe(2);
    expect(signIn.stderr).toMatch(/--base-url goes with --token-stdin \(a sign-in reaches only the provider's own host\)/);

    for (const r of [wrongHost, plain, bare, withPassword, signIn]) expect(r.stdout + r.stderr).not.toContain(GHES_TOKEN);
    expect(await list()).toEqual(before);
  });
});
