import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGithubState, githubEnterpriseRoutes, OUTLOOK_PERSONAL_TOKEN, SANDBOX_API_KEYS, SANDBOX_OAUTH_CLIENTS, SANDBOX_TOKENS, startSandbox, startSandboxServer, type Sandbox, type SandboxServer } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/index.js';
import { freePort } from '../pg-global.js';
import { http } from '../sandbox/http.js';
import { watchMisses } from '../support/misses.js';
import { commandLines, docSection, shellBlocks, SWITCHBOARD } from './markdown.js';

/**
 * The command blocks of README.md and docs/ that need no server of their own, run as written through bash against the
 * sandbox's stand-ins: only what stands for the reader's own (tokens, hosts, ports, the data directory) is put in,
 * through the environment.
 */

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

let sandbox: Sandbox;
let env: Record<string, string>;
const dirs: string[] = [];
const stops: Array<() => void> = [];

const tempDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `switchboard-docs-${name}-`));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  sandbox = await startSandbox();
  sandbox.oauth.outlook.deviceIntervalSeconds = 1;
  sandbox.oauth.github.deviceIntervalSeconds = 1;
  const s = sandbox.oauthSettings;
  env = {
    PATH: process.env.PATH ?? '',
    SWITCHBOARD_OUTLOOK_BASE_URL: sandbox.baseUrls.outlook,
    SWITCHBOARD_GITHUB_BASE_URL: sandbox.baseUrls.github,
    SWITCHBOARD_VERCEL_BASE_URL: sandbox.baseUrls.vercel,
    SWITCHBOARD_SALES_BASE_URL: sandbox.baseUrls.sales,
    SWITCHBOARD_OUTLOOK_OAUTH_URL: s.outlook.url,
    SWITCHBOARD_OUTLOOK_CLIENT_ID: s.outlook.clientId!,
    SWITCHBOARD_GITHUB_OAUTH_URL: s.github.url,
    SWITCHBOARD_GITHUB_CLIENT_ID: s.github.clientId!,
    SWITCHBOARD_GITHUB_CLIENT_SECRET: s.github.clientSecret!,
    GRAPH_TOKEN: SANDBOX_TOKENS.outlook,
    GITHUB_TOKEN: SANDBOX_TOKENS.github,
    VERCEL_TOKEN: SANDBOX_TOKENS.vercel,
    SALES_KEY: SANDBOX_API_KEYS.sales,
  };
});

afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

afterAll(async () => {
  await sandbox?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts a line that runs until stopped, in a process group of its own (so the CLI under bash stops with it). */
function start(line: string, extra: Record<string, string>): { output: () => string } {
  const child = spawn('bash', ['-c', `${SWITCHBOARD}\n${line}`], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  watchMisses(child.stderr);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  stops.push(() => child.exitCode === null && child.signalCode === null && process.kill(-child.pid!, 'SIGKILL'));
  return { output: () => output };
}

/** Runs one line of a block through bash; `onStderr` sees everything written to stderr so far, as it comes. */
function run(line: string, extra: Record<string, string>, onStderr?: (text: string) => void | Promise<void>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `${SWITCHBOARD}\n${line}`], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    watchMisses(child.stderr);
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      if (onStderr) Promise.resolve(onStderr(stderr)).catch(reject);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function runAll(lines: string[], extra: Record<string, string>): Promise<Run[]> {
  const runs: Run[] = [];
  for (const line of lines) {
    const r = await run(line, extra);
    expect(r.code, `${line}\n${r.stderr}`).toBe(0);
    runs.push(r);
  }
  return runs;
}

async function accounts(dataDir: string): Promise<Array<Record<string, unknown>>> {
  const r = await run('switchboard accounts list --json', { SWITCHBOARD_DATA_DIR: dataDir });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Array<Record<string, unknown>>;
}

describe('README: Try the sandbox', () => {
  it("gives every stand-in's credential as the sandbox defines it", () => {
    const section = docSection('README.md', '### Try the sandbox');
    const clients = Object.values(SANDBOX_OAUTH_CLIENTS).flatMap((c) => [c.id, c.secret ?? c.id]);
    for (const credential of [...Object.values(SANDBOX_TOKENS), OUTLOOK_PERSONAL_TOKEN, ...Object.values(SANDBOX_API_KEYS), ...clients]) expect(section).toContain(`\`${credential}\``);
  });
});

describe('README: Connect your first real account', () => {
  it('adds a GitHub account from a token, then one account at each other provider, as written', async () => {
    const [first, others] = shellBlocks('README.md', '## Connect your first real account');
    const dataDir = tempDir('first');
    const [, list] = await runAll(commandLines(first!), { SWITCHBOARD_DATA_DIR: dataDir });
    expect(list!.stdout).toMatch(/github\s+sbx-octocat \(default\)/);
    await runAll(commandLines(others!), { SWITCHBOARD_DATA_DIR: dataDir });
    const byProvider = (await accounts(dataDir)).map((a) => [a.provider, a.is_default]).sort();
    expect(byProvider).toEqual([
      ['github', true],
      ['outlook', true],
      ['sales', true],
      ['vercel', true],
    ]);
  });
});

describe('docs/accounts.md', () => {
  it('Connecting accounts with a token or key: four accounts, listed, and the one labelled work removed', async () => {
    const lines = shellBlocks('docs/accounts.md', '## Connecting accounts with a token or key').flatMap(commandLines);
    expect(lines).toHaveLength(6);
    const dataDir = tempDir('accounts');
    // `my-team` stands for the reader's own Vercel team; the stand-in's is sbx-team.
    const runs = await runAll(lines.map((l) => l.replace('--team my-team', '--team sbx-team')), { SWITCHBOARD_DATA_DIR: dataDir });
    expect(runs[4]!.stdout).toMatch(/outlook\s+work/);
    expect((await accounts(dataDir)).map((a) => a.provider).sort()).toEqual(['github', 'sales', 'vercel']);
  });

  it('Accounts on other hosts: a github.com account beside an Enterprise Server account', async () => {
    const state = createGithubState();
    state.tokens = new Set(['ghes-docs-token-0000enterprise']);
    const ghes: SandboxServer = await startSandboxServer('github-enterprise', githubEnterpriseRoutes(state));
    stops.push(() => void ghes.close());
    const lines = shellBlocks('docs/accounts.md', '## Accounts on other hosts (GitHub Enterprise Server, national clouds)').flatMap(commandLines);
    expect(lines[0]).toMatch(/^export GHES_API=/);
    const dataDir = tempDir('hosts');
    const runs = await runAll(lines.slice(1), { SWITCHBOARD_DATA_DIR: dataDir, GHES_API: `${ghes.url}/api/v3`, GHES_TOKEN: 'ghes-docs-token-0000enterprise' });
    expect(runs[2]!.stdout).toContain(`${ghes.url}/api/v3`);
    expect((await accounts(dataDir)).map((a) => [a.label, a.base_url ?? null])).toEqual([
      ['dotcom', null],
      ['work', `${ghes.url}/api/v3`],
    ]);
  });

  it('Signing in with OAuth: two device sign-ins and a browser sign-in, against the stand-ins\' authorization servers', async () => {
    const lines = shellBlocks('docs/accounts.md', '## Signing in with OAuth (Outlook, GitHub, Vercel)').flatMap(commandLines);
    expect(lines).toHaveLength(3);
    const dataDir = tempDir('sign-in');
    for (const line of lines) {
      let answered = false;
      const r = await run(line, { SWITCHBOARD_DATA_DIR: dataDir }, async (text) => {
        if (answered) return;
        const device = /enter the code (\S+) /.exec(text);
        const browser = /^\s+(http:\/\/\S+)$/m.exec(text);
        if (device) {
          answered = true;
          const server = line.includes('outlook') ? sandbox.servers.outlook : sandbox.servers.github;
          expect((await http('POST', `${server.url}/_sandbox/oauth/approve`, { body: { user_code: device[1] } })).status).toBe(200);
        } else if (browser) {
          answered = true;
          const page = await http('GET', browser[1]!);
          const request = /name="request" value="([^"]+)"/.exec(page.body)![1]!;
          const answer = await http('POST', browser[1]!.split('?')[0]!, {
            body: new URLSearchParams({ request, decision: 'allow' }).toString(),
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          });
          expect((await http('GET', answer.headers.location!)).status).toBe(200);
        }
      });
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
    }
    expect((await accounts(dataDir)).map((a) => `${a.provider} ${a.label}`).sort()).toEqual(['github sbx-octocat', 'outlook home', 'outlook work']);
  });

  it('Rotating the secret key: every secret re-encrypted, the accounts still work', async () => {
    const [line, ...rest] = shellBlocks('docs/accounts.md', '## Rotating the secret key').flatMap(commandLines);
    expect(rest).toEqual([]);
    const dataDir = tempDir('rotate');
    await runAll(['printf %s "$GITHUB_TOKEN" | switchboard accounts add github --token-stdin'], { SWITCHBOARD_DATA_DIR: dataDir });
    const keyBefore = readFileSync(join(dataDir, 'secret.key'));
    const [rotated] = await runAll([line!], { SWITCHBOARD_DATA_DIR: dataDir });
    expect(rotated!.stdout + rotated!.stderr).toMatch(/Re-encrypted 1 account/);
    expect(readFileSync(join(dataDir, 'secret.key')).equals(keyBefore)).toBe(false);
    const store = await openStore({ dataDir });
    try {
      expect((await store.accounts.resolve('github')).secret).toMatchObject({ token: SANDBOX_TOKENS.github });
    } finally {
      await store.close();
    }
  });
});

describe('docs/http.md: Serving over HTTP', () => {
  it('starts as written (another free port for 8765) and answers /healthz', async () => {
    const [line, ...rest] = shellBlocks('docs/http.md', '## Serving over HTTP').flatMap(commandLines);
    expect(rest).toEqual([]);
    const port = await freePort();
    const server = start(line!.replace('8765', String(port)), { SWITCHBOARD_DATA_DIR: tempDir('http') });
    await expect.poll(server.output, { timeout: 20_000 }).toMatch(/"msg":"listening"/);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
  });
});

describe('docs/triggers.md: How events are delivered', () => {
  it('adds a trigger, runs my-agent once per event with the event on its stdin, and lists and retries failures', async () => {
    const lines = shellBlocks('docs/triggers.md', '## How events are delivered').flatMap(commandLines);
    expect(lines.map((l) => l.split(' ').slice(0, 3).join(' '))).toEqual([
      'switchboard triggers add',
      'switchboard triggers list',
      'switchboard events tail',
      'switchboard events failed',
      'switchboard events retry',
    ]);
    const dataDir = tempDir('triggers');
    const bin = tempDir('bin');
    const received = join(bin, 'received.ndjson');
    writeFileSync(join(bin, 'my-agent'), `#!/bin/sh\ncat >> "${received}"\necho >> "${received}"\n`);
    chmodSync(join(bin, 'my-agent'), 0o755);
    const extra = { SWITCHBOARD_DATA_DIR: dataDir, PATH: `${bin}:${env.PATH}` };
    await runAll(['printf %s "$GRAPH_TOKEN" | switchboard accounts add outlook --token-stdin --label work'], extra);
    const [added, listed] = await runAll(lines.slice(0, 2), extra);
    const triggerId = /Created trigger (trg_[0-9a-f]+)/.exec(added!.stdout)![1]!;
    expect(listed!.stdout).toContain(triggerId);

    const tail = start(lines[2]!, extra);
    await expect.poll(tail.output, { timeout: 20_000 }).toMatch(/Waiting for events/);
    const store = await openStore({ dataDir });
    try {
      await store.triggers.commit(triggerId, {
        events: [{ dedupeKey: 'docs-email-1', occurredAt: new Date().toISOString(), summary: 'Email from dana@acme.com: invoice 42', payload: { subject: 'invoice 42' } }],
      });
    } finally {
      await store.close();
    }
    await expect.poll(() => readFileSync(received, 'utf8'), { timeout: 20_000 }).toContain('invoice 42');
    const [failed, retried] = await runAll(lines.slice(3), extra);
    expect(failed!.stdout + failed!.stderr).toMatch(/no failed events/i);
    expect(retried!.stdout + retried!.stderr).toMatch(/No failed events to retry/);
  });
});
