import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliProgram } from '../../src/cli.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { CLI, runCli } from './cli.js';

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
  { path: ['db', 'migrate'], flags: ['--data-dir', '--database-url', '--sandbox'] },
  { path: ['db', 'copy'], flags: ['--to', '--data-dir', '--sandbox'] },
  { path: ['db', 'backup'], flags: ['--to', '--force', '--data-dir', '--sandbox'] },
  { path: ['db', 'restore'], flags: ['--from', '--force', '--data-dir', '--sandbox'] },
  { path: ['users', 'list'], flags: ['--json', '--data-dir', '--database-url', '--sandbox'] },
  { path: ['users', 'disable'], flags: ['--data-dir', '--database-url', '--sandbox'] },
  { path: ['users', 'enable'], flags: ['--data-dir', '--database-url', '--sandbox'] },
  { path: ['users', 'remove'], flags: ['--data-dir', '--database-url', '--sandbox'] },
  { path: ['tokens', 'create'], flags: ['--user', '--scope', '--expires', '--sandbox'] },
  { path: ['tokens', 'list'], flags: ['--user', '--sandbox'] },
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

  it('every command, walking the whole tree, wraps at 100 columns and ends with a blank line and its examples', () => {
    const seen: string[] = [];
    const walk = (command: Command, path: string[]) => {
      let text = '';
      command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
      command.outputHelp();
      const name = ['switchboard', ...path].join(' ');
      for (const line of text.split('\n')) expect(line.length, `${name}: ${line}`).toBeLessThanOrEqual(100);
      // After the blank line: "Examples:" and nothing but examples (a long one continued on indented lines).
      expect(text, name).toMatch(/\n\nExamples:\n(  \$ .*\n|      .*\n)+$/);
      expect(text.match(/\nExamples:\n/g), name).toHaveLength(1);
      seen.push(name);
      for (const sub of command.commands) walk(sub, [...path, sub.name()]);
    };
    walk(cliProgram(), []);
    expect(seen).toEqual(expect.arrayContaining(['switchboard', 'switchboard accounts', 'switchboard accounts add', 'switchboard db copy', 'switchboard tokens create', 'switchboard users']));
    expect(seen.length).toBeGreaterThanOrEqual(34);
  });

  it('the built CLI prints the same layout, wrapped at 100 columns whatever the terminal', async () => {
    for (const path of [['accounts'], ['secrets', 'rotate'], ['serve']]) {
      const r = await runCli([...path, '--help'], { env: { ...env, COLUMNS: '300' } });
      expect(Math.max(...r.stdout.split('\n').map((l) => l.length)), path.join(' ')).toBeLessThanOrEqual(100);
      expect(r.stdout).toMatch(/\n\nExamples:\n  \$ /);
    }
    const accounts = await runCli(['accounts', '--help'], { env });
    expect(accounts.stdout).toMatch(/add \[options\] <provider> +Connect an account: pipe a token or API key\n +on stdin/);
  });

  it('runs as a program from both entry points: the bin, and dist/cli.js that older npx caches still link', async () => {
    for (const entry of [CLI, CLI.replace(/bin[\\/]switchboard\.js$/, 'cli.js')]) {
      const r = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        execFile(entry, ['--version'], { env: { PATH: process.env.PATH ?? '' } }, (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }));
      });
      expect(r, entry).toEqual({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    }
  });

  it('triggers kinds lists every kind with its config fields and the filter syntax', async () => {
    const r = await runCli(['triggers', 'kinds'], { env });
    expect(r.code).toBe(0);
    for (const kind of TRIGGER_KINDS.keys()) expect(r.stdout).toMatch(new RegExp(`^${kind.replace('.', '\\.')}  \\(`, 'm'));
    expect(r.stdout).toMatch(/poll_interval_seconds\?: integer/);
    expect(r.stdout).toMatch(/hasAttachments:true\|false/);
    expect(r.stdout).toMatch(/^github\.new_issue  \(webhook or poll\)\n.*\n  config \(exactly one of repo, org\):$/m);
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

  it('suggests the nearest value of every closed set, and names the flag that was typed', async () => {
    const kind = await runCli(['triggers', 'add', 'github.new_isue', '--sandbox'], { env });
    expect(kind.code).toBe(2);
    expect(kind.stderr).toBe('switchboard: Unknown trigger kind "github.new_isue". Did you mean "github.new_issue"? switchboard triggers kinds lists all 31 kinds and their config.\n');
    expect((await runCli(['triggers', 'add', 'deployment_failed'], { env })).stderr).toMatch(/Did you mean "vercel\.deployment_failed"\?/);
    const cases: Array<[string[], RegExp]> = [
      [['accounts', 'add', 'gihub', '--token-stdin'], /Unknown provider "gihub": choose outlook, sales, github, vercel\. Did you mean "github"\?/],
      [['triggers', 'kinds', 'vercell'], /Did you mean "vercel"\?/],
      [['serve', '--toolsets', 'outlok'], /--toolsets: unknown toolset "outlok".*Did you mean "outlook"\?/],
      [['serve', '--tools', 'github_get_repo'], /--tools: "github_get_repo" is not a tool\. Did you mean "github_get_repository"\?/],
      [['mcp-config', '--exclude-tools', 'outlook_send_mail'], /--exclude-tools: "outlook_send_mail" is not a tool\. Did you mean "outlook_send_email"\?/],
      [['mcp-config', '--client', 'vscod'], /Allowed choices are claude-desktop, claude-code, cursor, vscode\. Did you mean "vscode"\?/],
      [['serve', '--log-level', 'warning'], /Allowed choices are debug, info, warn, error\. Did you mean "warn"\?/],
      [['tokens', 'create', '--user', 'ada', '--scope', 'switchboard:raed'], /--scope is switchboard .* not "switchboard:raed"\. Did you mean "switchboard:read"\?/],
      [['accounts', 'add', 'outlook', '--token-stdin', '--groups', 'mial'], /--groups: unknown group\(s\) mial; .*Did you mean "mail"\?/],
      [['tokens', 'crate'], /unknown command 'crate'\n\(Did you mean create\?\)/],
    ];
    // Each is a process of its own: run side by side, a loaded machine answers them all within the test's time.
    const runs = await Promise.all(cases.map(([args]) => runCli(args, { env, stdin: 'sbx-outlook-token-0001' })));
    cases.forEach(([args, message], i) => {
      expect(runs[i]!.code, args.join(' ')).toBe(2);
      expect(runs[i]!.stderr, args.join(' ')).toMatch(message);
    });
    const interval = await runCli(['triggers', 'add', 'outlook.new_email', '--sandbox', '--interval', '5'], { env });
    expect(interval.code).toBe(2);
    expect(interval.stderr).toMatch(/^- --interval: Too small: expected number to be >=10$/m);
    expect(interval.stderr).not.toContain('poll_interval_seconds');
    const fromConfig = await runCli(['triggers', 'add', 'outlook.new_email', '--sandbox', '--config', '{"poll_interval_seconds":5}'], { env });
    expect(fromConfig.stderr).toMatch(/^- --config "poll_interval_seconds": Too small/m);
    const notTaken = await runCli(['triggers', 'add', 'vercel.deployment_failed', '--sandbox', '--interval', '30', '--config', '{"project":"hello-world"}'], { env });
    expect(notTaken.stderr).toMatch(/^- vercel\.deployment_failed takes no --interval; leave it out$/m);
    const forward = await runCli(['triggers', 'add', 'outlook.new_email', '--sandbox', '--forward-url', 'not-a-url'], { env });
    expect(forward.stderr).toMatch(/switchboard: --forward-url must be an absolute http\(s\) URL, not "not-a-url"\./);
    const account = await runCli(['triggers', 'add', 'outlook.new_email', '--sandbox', '--account', 'nobody'], { env });
    expect(account.stderr).toMatch(/Pass one of these labels as --account\./);
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
