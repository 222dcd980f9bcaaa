import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { runCli } from './cli.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-secrets-'));
  const store = await openStore({ dataDir });
  await store.accounts.add({ provider: 'github', label: 'pat', secret: { kind: 'token', token: 'ghp_e2e_rotation_secret' } });
  await store.close();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('switchboard secrets rotate', () => {
  it('refuses a wrong key with a clear message and changes nothing', async () => {
    const before = readFileSync(join(dataDir, 'secret.key'), 'utf8');
    const r = await runCli(['secrets', 'rotate'], { env: { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_SECRET_KEY: 'not-the-key', SWITCHBOARD_NEW_SECRET_KEY: 'x'.repeat(20) } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/switchboard: The secret key does not match .* Nothing was changed\./);
    expect(readFileSync(join(dataDir, 'secret.key'), 'utf8')).toBe(before);
  });

  it('writes a new key file; every secret still reads with it', async () => {
    const before = readFileSync(join(dataDir, 'secret.key'), 'utf8');
    const r = await runCli(['secrets', 'rotate'], { env: { SWITCHBOARD_DATA_DIR: dataDir } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Re-encrypted 1 account, 0 trigger and 0 webhook secret\(s\) under a new key/);
    expect(r.stdout + r.stderr).not.toContain('ghp_e2e_rotation_secret');
    const after = readFileSync(join(dataDir, 'secret.key'), 'utf8');
    expect(after).not.toBe(before);
    expect(r.stdout + r.stderr).not.toContain(after.trim());
    const list = await runCli(['accounts', 'list', '--json'], { env: { SWITCHBOARD_DATA_DIR: dataDir } });
    expect(list.code).toBe(0);
    const store = await openStore({ dataDir });
    try {
      expect((await store.accounts.resolve('github', 'pat')).secret.token).toBe('ghp_e2e_rotation_secret');
    } finally {
      await store.close();
    }
  });
});
