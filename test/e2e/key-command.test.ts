import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { exited, runCli, startHttpServe, type CliResult } from './cli.js';

const KEY = randomBytes(32).toString('hex');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-keycmd-'));
  dirs.push(dir);
  return dir;
}

function expectRefused(r: CliResult, pattern: RegExp): void {
  expect(r.code, r.stdout).toBe(2);
  expect(r.stderr).toMatch(/^switchboard: SWITCHBOARD_SECRET_KEY_COMMAND [^\n]+\n$/);
  expect(r.stderr).toMatch(pattern);
  expect(r.stdout + r.stderr).not.toContain(KEY);
}

describe('SWITCHBOARD_SECRET_KEY_COMMAND', () => {
  it('takes the key from what the command prints: the same key on every run, no key file written, the key nowhere in the output', async () => {
    const dataDir = tempDir();
    const env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_SECRET_KEY_COMMAND: `printf '%s\\n' ${KEY}` };
    const added = await runCli(['accounts', 'add', 'github', '--token-stdin', '--label', 'ci', '--sandbox'], { env, stdin: 'sbx-github-token-0001' });
    expect(added.code, added.stderr).toBe(0);
    // A second process, as another instance would be: the same command, the same key.
    const list = await runCli(['accounts', 'list', '--sandbox'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/github +ci/);
    expect(added.stdout + added.stderr + list.stdout + list.stderr).not.toContain(KEY);
    expect(existsSync(join(dataDir, 'sandbox', 'secret.key'))).toBe(false);
    // serve runs the command too: its tools read the account the CLI added.
    const { child, url, stderr } = await startHttpServe(['--sandbox'], env);
    try {
      const client = new Client({ name: 'key-command-e2e', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const r = await client.callTool({ name: 'accounts_list', arguments: { provider: 'github' } });
      expect((r.structuredContent as { accounts: Array<{ label: string }> }).accounts.map((a) => a.label)).toContain('ci');
      await client.close();
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
    expect(stderr()).not.toContain(KEY);
    const store = await openStore({ dataDir: join(dataDir, 'sandbox'), secretKey: KEY });
    try {
      expect((await store.accounts.resolve('github', 'ci')).secret.token).toBe('sbx-github-token-0001');
    } finally {
      await store.close();
    }
    // A command printing another key opens nothing, and says where the key should come from.
    const other = await runCli(['accounts', 'list', '--sandbox'], { env: { ...env, SWITCHBOARD_SECRET_KEY_COMMAND: `echo ${randomBytes(32).toString('hex')}` } });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/secret key does not match .*have SWITCHBOARD_SECRET_KEY_COMMAND print it/);
  });

  it('a failing, hanging or silent command is refused with the variable, the exit code and its last line of stderr; never its output', async () => {
    const env = { SWITCHBOARD_DATA_DIR: tempDir() };
    const failing = await runCli(['accounts', 'list'], {
      env: { ...env, SWITCHBOARD_SECRET_KEY_COMMAND: `printf '%s\\n' ${KEY}; echo 'warming up' >&2; echo "vault: permission denied for ${KEY}" >&2; exit 3` },
    });
    expectRefused(failing, /SWITCHBOARD_SECRET_KEY_COMMAND failed with exit code 3; its last line of standard error: vault: permission denied for \[redacted\]\. It must print the key alone/);

    const started = Date.now();
    const hanging = await runCli(['accounts', 'list'], { env: { ...env, SWITCHBOARD_SECRET_KEY_COMMAND: 'sleep 30; echo late', SWITCHBOARD_SECRET_KEY_COMMAND_TIMEOUT: '1' } });
    expectRefused(hanging, /SWITCHBOARD_SECRET_KEY_COMMAND did not finish within 1 s and was stopped \(raise SWITCHBOARD_SECRET_KEY_COMMAND_TIMEOUT/);
    expect(Date.now() - started).toBeLessThan(10_000);

    expectRefused(await runCli(['accounts', 'list'], { env: { ...env, SWITCHBOARD_SECRET_KEY_COMMAND: 'true' } }), /exited 0 but printed nothing on standard output/);
    expectRefused(await runCli(['accounts', 'list'], { env: { ...env, SWITCHBOARD_SECRET_KEY_COMMAND: `printf 'key: %s\\nversion: 3\\n' ${KEY}` } }), /printed 2 lines; it must print the key alone, on one line/);
    expectRefused(await runCli(['accounts', 'list'], { env: { ...env, SWITCHBOARD_SECRET_KEY_COMMAND: 'no-such-secrets-cli read key' } }), /failed with exit code 127; its last line of standard error: .*no-such-secrets-cli.*not found/);
  });

  it('is refused beside SWITCHBOARD_SECRET_KEY, and a bad timeout names its variable', async () => {
    const env = { SWITCHBOARD_DATA_DIR: tempDir(), SWITCHBOARD_SECRET_KEY_COMMAND: `echo ${KEY}` };
    const both = await runCli(['accounts', 'list'], { env: { ...env, SWITCHBOARD_SECRET_KEY: KEY } });
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('switchboard: SWITCHBOARD_SECRET_KEY and SWITCHBOARD_SECRET_KEY_COMMAND are both set: keep one of the two (unset SWITCHBOARD_SECRET_KEY to take the key from the command).\n');
    const timeout = await runCli(['accounts', 'list'], { env: { ...env, SWITCHBOARD_SECRET_KEY_COMMAND_TIMEOUT: 'soon' } });
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toMatch(/SWITCHBOARD_SECRET_KEY_COMMAND_TIMEOUT must be a number of seconds above 0 and at most 600, not "soon"/);
  });
});
