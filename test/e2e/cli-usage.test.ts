import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { runCli } from './cli.js';

let sandbox: Sandbox;
let dataDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox();
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-usage-'));
  env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_GITHUB_BASE_URL: sandbox.baseUrls.github, SWITCHBOARD_OUTLOOK_BASE_URL: sandbox.baseUrls.outlook };
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const COMMANDS: Array<{ path: string[]; flags: string[] }> = [
  { path: ['serve'], flags: ['--http', '--port', '--public-url', '--team', '--toolsets', '--read-only', '--sandbox'] },
  { path: ['mcp-config'], flags: ['--client', '--name', '--sandbox', '--data-dir'] },
  { path: ['accounts', 'add'], flags: ['--token-stdin', '--api-key-stdin', '--device', '--browser', '--team', '--groups', '--dialect', '--base-url'] },
  { path: ['accounts', 'list'], flags: ['--json', '--sandbox'] },
  { path: ['accounts', 'remove'], flags: ['--sandbox'] },
  { path: ['triggers', 'kinds'], flags: ['--json'] },
  { path: ['triggers', 'list'], flags: ['--json'] },
  { path: ['triggers', 'add'], flags: ['--account', '--filter', '--folder', '--interval', '--backstop', '--forward-url', '--config'] },
  { path: ['triggers', 'remove'], flags: ['--sandbox'] },
  { path: ['triggers', 'secret'], flags: ['--secret-stdin'] },
  { path: ['events', 'tail'], flags: ['--trigger', '--json', '--exec', '--consumer', '--max-attempts'] },
  { path: ['events', 'failed'], flags: ['--consumer', '--json'] },
  { path: ['events', 'retry'], flags: ['--all', '--consumer'] },
  { path: ['secrets', 'rotate'], flags: ['--force'] },
  { path: ['db', 'migrate'], flags: ['--data-dir', '--database-url'] },
  { path: ['db', 'copy'], flags: ['--to', '--data-dir'] },
  { path: ['users', 'list'], flags: ['--json', '--data-dir', '--database-url'] },
  { path: ['users', 'disable'], flags: ['--data-dir', '--database-url'] },
  { path: ['users', 'enable'], flags: ['--data-dir', '--database-url'] },
  { path: ['users', 'remove'], flags: ['--data-dir', '--database-url'] },
];

describe('help', () => {
  it('each command prints its own usage, flags and an example, not the global text', async () => {
    const seen = new Set<string>();
    for (const { path, flags } of COMMANDS) {
      const r = await runCli([...path, '--help'], { env });
      expect(r.code, path.join(' ')).toBe(0);
      expect(r.stdout).toContain(`Usage: switchboard ${path.join(' ')}`);
      for (const flag of flags) expect(r.stdout, `${path.join(' ')} ${flag}`).toContain(flag);
      expect(r.stdout).toMatch(new RegExp(`Examples:\\n  \\$ .*switchboard ${path.join(' ')}`));
      seen.add(r.stdout);
    }
    expect(seen.size).toBe(COMMANDS.length);
    const global = await runCli(['--help'], { env });
    expect(global.stdout).toMatch(/Commands:[\s\S]*mcp-config[\s\S]*triggers/);
    expect((await runCli([], { env })).stdout).toBe(global.stdout);
  });

  it('triggers kinds lists every kind with its config fields and the filter syntax', async () => {
    const r = await runCli(['triggers', 'kinds'], { env });
    expect(r.code).toBe(0);
    for (const kind of TRIGGER_KINDS.keys()) expect(r.stdout).toMatch(new RegExp(`^${kind.replace('.', '\\.')}  \\(`, 'm'));
    expect(r.stdout).toMatch(/poll_interval_seconds\?: integer/);
    expect(r.stdout).toMatch(/hasAttachments:true\|false/);
    const json = JSON.parse((await runCli(['triggers', 'kinds', 'vercel', '--json'], { env })).stdout);
    expect(json.map((k: { kind: string }) => k.kind)).toEqual([...TRIGGER_KINDS.keys()].filter((k) => k.startsWith('vercel.')));
    expect(json[0].config).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'project', required: true, type: 'string' })]));
    const bad = await runCli(['triggers', 'kinds', 'sales'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/sales has no trigger kinds; outlook, github and vercel do/);
  });
});

describe('mistakes', () => {
  it('suggests the command or flag that was meant', async () => {
    const command = await runCli(['acounts', 'list'], { env });
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/unknown command 'acounts'\n\(Did you mean accounts\?\)/);
    const sub = await runCli(['triggers', 'ad', 'outlook.new_email'], { env });
    expect(sub.stderr).toMatch(/Did you mean add\?/);
    const flag = await runCli(['triggers', 'add', 'outlook.new_email', '--fliter', 'x'], { env });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/unknown option '--fliter'\n\(Did you mean --filter\?\)\n\(run: switchboard triggers add --help\)/);
  });

  it('refuses flags of other commands, and extra arguments', async () => {
    const r = await runCli(['accounts', 'list', '--filter', 'x'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--filter'/);
    const serve = await runCli(['events', 'tail', '--port', '1'], { env });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/unknown option '--port'/);
    const extra = await runCli(['accounts', 'list', 'github'], { env });
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/too many arguments/);
    const team = await runCli(['accounts', 'add', 'vercel', '--browser', '--team', 'sbx-team'], { env });
    expect(team.code).toBe(2);
    expect(team.stderr).toMatch(/--team goes with --token-stdin/);
    const choice = await runCli(['mcp-config', '--client', 'emacs'], { env });
    expect(choice.code).toBe(2);
    expect(choice.stderr).toMatch(/Allowed choices are claude-desktop, claude-code, cursor, vscode/);
  });

  it('speaks of CLI commands, not MCP tools', async () => {
    const add = await runCli(['accounts', 'add', 'outlook', '--token-stdin'], { env, stdin: sandbox.accounts[0]!.secret.token! });
    expect(add.code).toBe(0);
    const trigger = await runCli(['triggers', 'add', 'outlook.new_email'], { env });
    expect(trigger.code).toBe(0);
    expect(trigger.stdout).toMatch(/Watch its events with: switchboard events tail --trigger trg_[0-9a-f]+/);
    expect(trigger.stdout).not.toMatch(/events_next|triggers_list/);
    const missing = await runCli(['triggers', 'add', 'outlook.new_email', '--account', 'nobody'], { env });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).not.toMatch(/accounts_list|triggers_list|events_next/);
    const gone = await runCli(['triggers', 'remove', 'trg_0000000000000000'], { env });
    expect(gone.stderr).toMatch(/switchboard triggers list shows/);
  });
});

describe('accounts remove', () => {
  it('takes the provider when one label is used at several', async () => {
    const token = sandbox.accounts.find((a) => a.provider === 'github')!.secret.token!;
    expect((await runCli(['accounts', 'add', 'github', '--token-stdin', '--label', 'shared'], { env, stdin: token })).code).toBe(0);
    expect((await runCli(['accounts', 'add', 'outlook', '--token-stdin', '--label', 'shared'], { env, stdin: sandbox.accounts[0]!.secret.token! })).code).toBe(0);
    const ambiguous = await runCli(['accounts', 'remove', 'shared'], { env });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/matches accounts at several providers.*name the provider/);
    const removed = await runCli(['accounts', 'remove', 'github', 'shared'], { env });
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(/Removed github account "shared"/);
    const list = JSON.parse((await runCli(['accounts', 'list', '--json'], { env })).stdout) as Array<{ provider: string; label: string }>;
    expect(list.filter((a) => a.label === 'shared').map((a) => a.provider)).toEqual(['outlook']);
    const badProvider = await runCli(['accounts', 'remove', 'gitlab', 'shared'], { env });
    expect(badProvider.code).toBe(2);
    expect(badProvider.stderr).toMatch(/Unknown provider "gitlab": choose outlook, sales, github, vercel/);
  });
});
