import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runCli } from './cli.js';

let sandbox: Sandbox;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox();
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-team-'));
  env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_VERCEL_BASE_URL: sandbox.baseUrls.vercel };
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('switchboard accounts add vercel --team', () => {
  it('refuses the README example team_abc123 (no such team), names the teams to choose from, and stores nothing', async () => {
    const r = await runCli(['accounts', 'add', 'vercel', '--token-stdin', '--team', 'team_abc123'], { env, stdin: SANDBOX_TOKENS.vercel });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('team_sbx (slug sbx-team, "Sandbox Team")');
    expect(r.stderr).toContain('--team on the command line');
    expect(r.stderr + r.stdout).not.toContain(SANDBOX_TOKENS.vercel);
    const list = await runCli(['accounts', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout)).toEqual([]);
  });

  it('takes a slug, stores the team id, and lists the team in the table and the JSON', async () => {
    const r = await runCli(['accounts', 'add', 'vercel', '--token-stdin', '--team', 'sbx-team', '--label', 'work'], { env, stdin: SANDBOX_TOKENS.vercel });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const table = await runCli(['accounts', 'list'], { env });
    expect(table.stdout).toMatch(/^PROVIDER\s+LABEL\s+IDENTITY\s+TEAM\s+STATUS\s+ID$/m);
    expect(table.stdout).toMatch(/^vercel\s+work \(default\)\s+sbx-vercel\s+sbx-team\s+active\s/m);
    const [account] = JSON.parse((await runCli(['accounts', 'list', '--json'], { env })).stdout);
    expect(account.team).toEqual({ id: 'team_sbx', slug: 'sbx-team', name: 'Sandbox Team' });
  });
});
