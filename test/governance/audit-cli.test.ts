import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditInput, Store } from '../../src/store/types.js';
import { commandLines, shellBlocks, SWITCHBOARD } from '../docs/markdown.js';
import { runCli } from '../e2e/cli.js';
import { cleanUp, openAt, sqlite, type StoreLocation } from '../store/adapters.js';

afterEach(cleanUp);

const KEY = 'audit cli key';
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const call = (tool: string, at: string, over: Partial<AuditInput> = {}): AuditInput => ({ at, owner: '', auth: 'stdio', clientName: 'agent 1', action: 'tool.call', tool, effect: 'write', outcome: 'ok', ...over });

async function seeded(): Promise<{ location: StoreLocation; store: Store; env: Record<string, string> }> {
  const location = await sqlite.location();
  const store = await openAt(location, { secretKey: KEY });
  await store.audit.append([
    call('github_create_issue', ago(30 * 86_400_000), { target: 'octo/hello' }),
    call('outlook_send_email', ago(2 * 86_400_000), { target: 'message AAMk1' }),
    call('github_get_issue_assignees', ago(60_000), { effect: 'read', target: 'octo/hello#2', providerStatus: 200, durationMs: 14 }),
  ]);
  return { location, store, env: { SWITCHBOARD_DATA_DIR: location.dataDir, SWITCHBOARD_SECRET_KEY: KEY } };
}

describe('docs/governance.md: Reading the trail', () => {
  const lines = shellBlocks('docs/governance.md', '### Reading the trail').flatMap(commandLines);

  it('runs as written: a table, JSON of one tool, NDJSON since a day, and an intact chain', async () => {
    const { env } = await seeded();
    const cwd = mkdtempSync(join(tmpdir(), 'switchboard-audit-'));
    try {
      const outputs = lines.map((line) => {
        const run = spawnSync('bash', ['-c', `${SWITCHBOARD}\n${line}`], { cwd, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 20_000 });
        expect(run.status, `${line}\n${run.stderr}`).toBe(0);
        return run.stdout;
      });
      expect(lines).toHaveLength(4);
      expect(outputs[0]).toMatch(/^SEQ\s+TIME \(UTC\)\s+WHO\s+AUTH\s+WHAT/);
      expect(outputs[0]).toContain('outlook_send_email');
      expect(outputs[0]).not.toContain('github_create_issue ');
      expect(JSON.parse(outputs[1]!)).toEqual([expect.objectContaining({ seq: 2, tool: 'outlook_send_email', who: 'owner', target: 'message AAMk1' })]);
      const exported = readFileSync(join(cwd, 'audit.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(exported.map((r) => r.seq)).toEqual([3]);
      expect(exported[0]).toMatchObject({ tool: 'github_get_issue_assignees', providerStatus: 200, durationMs: 14, prevHash: expect.any(String), hash: expect.any(String) });
      expect(outputs[3]).toBe('The audit trail is intact: 3 record(s), 1 to 3, each bound to the one before.\n');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe('switchboard audit', () => {
  it('verify exits 1 and names the record edited, or the one deleted', async () => {
    const { location, env } = await seeded();
    await sqlite.raw(location, "UPDATE audit SET tool = 'outlook_list_messages' WHERE seq = 2");
    const edited = await runCli(['audit', 'verify'], { env });
    expect(edited.code).toBe(1);
    expect(edited.stdout).toContain('The audit trail is broken at record 2: record 2 was altered');
    await sqlite.raw(location, 'DELETE FROM audit WHERE seq = 2');
    const deleted = await runCli(['audit', 'verify'], { env });
    expect(deleted.code).toBe(1);
    expect(deleted.stdout).toContain('record 2 is missing: the sequence jumps from 1 to 3');
  });

  it('refuses a --since, --limit or --user it cannot read, naming the option', async () => {
    const { env } = await seeded();
    for (const [args, message] of [
      [['audit', '--since', 'yesterday'], /--since takes a date or time .* not "yesterday"/],
      [['audit', 'list', '--limit', '0'], /--limit must be a whole number from 1 to 10000/],
      [['audit', '--user', 'nobody'], /--user "nobody": no one with that id, login or address/],
    ] as const) {
      const run = await runCli([...args], { env });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(message);
    }
  });

  it('records the operator\'s administrative acts, never the token made, and lists them by person', async () => {
    const { store, env } = await seeded();
    const ada = await store.team.users.signIn({ provider: 'github', subject: '1', login: 'ada', email: 'ada@example.com' });
    const made = await runCli(['tokens', 'create', '--user', 'ada', '--name', 'triage'], { env });
    expect(made.code, made.stderr).toBe(0);
    const token = made.stdout.trim();
    expect((await runCli(['users', 'disable', 'ada'], { env })).code).toBe(0);
    expect((await runCli(['users', 'enable', 'ada'], { env })).code).toBe(0);
    const acts = (await store.audit.list({ limit: 3 })).reverse();
    expect(acts.map((r) => [r.action, r.auth, r.owner])).toEqual([
      ['token.created', 'cli', ''],
      ['person.disabled', 'cli', ''],
      ['person.enabled', 'cli', ''],
    ]);
    expect(acts[1]!.target).toBe(ada.id);
    const exported = await runCli(['audit', 'export'], { env });
    expect(exported.stdout.trim().split('\n')).toHaveLength(6);
    expect(exported.stdout).not.toContain(token);
    expect(JSON.parse((await runCli(['audit', '--user', 'owner', '--json', '--limit', '2'], { env })).stdout).map((r: { action: string }) => r.action)).toEqual([
      'person.enabled',
      'person.disabled',
    ]);
    expect(await store.audit.verify()).toMatchObject({ intact: true, records: 6 });
  });
});
