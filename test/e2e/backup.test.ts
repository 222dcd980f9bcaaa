import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DB_FILE_NAME, openStore } from '../../src/store/index.js';
import { exited, runCli, startHttpServe, startUntilReady, type CliResult } from './cli.js';
import { until } from '../support/wait.js';

const KEY = 'the passphrase of the backed-up store';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-backup-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function stopAtEnd(child: ChildProcess): void {
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited(child);
  });
}

function expectRefused(r: CliResult, pattern: RegExp): void {
  expect(r.code, r.stdout).toBe(2);
  expect(r.stderr).toMatch(/^switchboard: [^\n]+\n$/);
  expect(r.stderr).toMatch(pattern);
  expect(r.stdout + r.stderr).not.toContain(KEY);
}

/** A data dir's store as the CLI lists it: account labels, trigger ids. */
async function listed(env: Record<string, string>) {
  const accounts = await runCli(['accounts', 'list', '--json'], { env });
  const triggers = await runCli(['triggers', 'list', '--json'], { env });
  expect(accounts.code, accounts.stderr).toBe(0);
  expect(triggers.code, triggers.stderr).toBe(0);
  return {
    accounts: (JSON.parse(accounts.stdout) as Array<{ provider: string; label: string }>).map((a) => `${a.provider}:${a.label}`).sort(),
    triggers: (JSON.parse(triggers.stdout) as Array<{ id: string }>).map((t) => t.id).sort(),
  };
}

/** Starts `events tail --exec` under a named consumer; its cursor is kept in the store, so a restore carries it too. */
async function tailInto(out: string, env: Record<string, string>, extra: string[] = []) {
  const started = await startUntilReady(['events', 'tail', '--consumer', 'backup-e2e', '--exec', `cat >> ${out}; echo >> ${out}`, ...extra], env, /^Waiting for events/m);
  stopAtEnd(started.child);
  return started.child;
}

describe('switchboard db backup and db restore', () => {
  it('backs up a store while serve --sandbox --http writes to it, and a fresh data dir restored from it has every account, trigger and event', { timeout: 120_000 }, async () => {
    const home = tempDir();
    const env = { SWITCHBOARD_DATA_DIR: home, SWITCHBOARD_SECRET_KEY: KEY };
    const { child, url } = await startHttpServe(['--sandbox'], env);
    stopAtEnd(child);
    const client = new Client({ name: 'backup-e2e', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    cleanups.push(() => client.close());
    for (const account of ['sandbox', undefined]) {
      const created = await client.callTool({ name: 'triggers_create', arguments: { kind: 'github.new_issue', account, config: { repo: 'sbx-octocat/hello-world', mode: 'poll' } } });
      expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    }
    // The consumer's cursor starts before any event, so after the restore it is owed every one.
    const outBefore = join(home, 'before.ndjson');
    const early = await tailInto(outBefore, env, ['--sandbox']);
    early.kill('SIGTERM');
    await exited(early);

    const store = await openStore({ dataDir: join(home, 'sandbox'), secretKey: KEY });
    cleanups.push(() => store.close());
    const [trigger] = await store.triggers.list({ kind: 'github.new_issue' });
    let n = 0;
    const commitOne = async () => {
      n++;
      await store.triggers.commit(trigger!.id, { events: [{ dedupeKey: `issue-${n}`, occurredAt: new Date().toISOString(), summary: `Issue ${n}`, payload: { n } }] });
    };
    for (let i = 0; i < 20; i++) await commitOne();
    const committedBefore = n;
    // Events go on arriving while the backup is taken.
    let writing = true;
    const writer = (async () => {
      // A pause per event lets this process see the backup's end: SQLite here answers without yielding to the event loop.
      while (writing && n < 120) {
        await commitOne();
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const backupFile = join(tempDir(), 'switchboard-backup.db');
    const backup = await runCli(['db', 'backup', '--sandbox', '--to', backupFile], { env });
    writing = false;
    await writer;
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/^Backed up the SQLite store .*switchboard\.db \(schema \d+\) to .*switchboard-backup\.db \(\d+ KiB\), one consistent copy:\n/);
    expect(backup.stdout).toMatch(/^ {2}triggers +2$/m);
    expect(backup.stdout).toContain('keep the key with the backup, the SWITCHBOARD_SECRET_KEY used here');
    expect(backup.stdout + backup.stderr).not.toContain(KEY);
    expect(statSync(backupFile).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(backupFile, '..'))).toEqual(['switchboard-backup.db']);
    const events = Number(/^ {2}events +(\d+)$/m.exec(backup.stdout)![1]);
    expect(events).toBeGreaterThanOrEqual(committedBefore);

    // Restored into a new data dir with the same key: the CLI finds what the server had.
    const fresh = tempDir();
    const freshEnv = { SWITCHBOARD_DATA_DIR: fresh, SWITCHBOARD_SECRET_KEY: KEY };
    const restored = await runCli(['db', 'restore', '--from', backupFile], { env: freshEnv });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(new RegExp(`^Restored .*switchboard-backup\\.db into ${join(fresh, DB_FILE_NAME)} \\(schema \\d+\\):\n`));
    expect(restored.stdout).toMatch(new RegExp(`^ {2}events +${events}$`, 'm'));
    // The copy carries no process's presence: the running server's lease stayed behind, so the restored store is not
    // taken for one in use (a restore over it goes ahead at once).
    const again = await runCli(['db', 'restore', '--from', backupFile, '--force'], { env: freshEnv });
    expect(again.code, again.stderr).toBe(0);
    const original = await listed({ ...env, SWITCHBOARD_DATA_DIR: join(home, 'sandbox') });
    expect(original.triggers).toHaveLength(2);
    expect(await listed(freshEnv)).toEqual(original);

    // The consumer kept in the backup is owed every event the backup holds, in order, each whole: one consistent state.
    const out = join(fresh, 'restored.ndjson');
    const tail = await tailInto(out, freshEnv);
    const lines = () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean) : []);
    await until(() => lines().length >= events, `${events} events run by events tail --exec`, 30_000);
    tail.kill('SIGTERM');
    await exited(tail);
    expect(lines()).toHaveLength(events);
    // The test's own events (the server's polls may add others): a prefix of them, in order, none missing.
    const ours = lines()
      .map((line) => (JSON.parse(line) as { summary: string }).summary)
      .filter((summary) => /^Issue \d+$/.test(summary));
    expect(ours.length).toBeGreaterThanOrEqual(committedBefore);
    expect(ours).toEqual(Array.from({ length: ours.length }, (_, i) => `Issue ${i + 1}`));
    const restoredStore = await openStore({ dataDir: fresh, secretKey: KEY });
    try {
      expect((await restoredStore.accounts.resolve('github')).secret.token).toBeTruthy();
    } finally {
      await restoredStore.close();
    }

    // Into the running server's store: refused even with --force; into a store holding data: refused without --force.
    expectRefused(
      await runCli(['db', 'restore', '--sandbox', '--from', backupFile, '--force'], { env }),
      /A Switchboard server is running on the store in .*sandbox .*stop every switchboard serve using it.*Nothing was changed\./,
    );
    expectRefused(await runCli(['db', 'restore', '--from', backupFile], { env: freshEnv }), /The store in .* is not empty \(\d+ account\(s\), 2 trigger\(s\), \d+ event\(s\)\): restore into a new data directory \(--data-dir\), or add --force/);
    const forced = await runCli(['db', 'restore', '--from', backupFile, '--force'], { env: freshEnv });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/It replaced a store that held \d+ account\(s\), 2 trigger\(s\) and \d+ event\(s\)\./);
  });

  it('refuses a backup the current key cannot open, naming the key setting and changing nothing', async () => {
    const home = tempDir();
    // Any --sandbox command seeds the sandbox store with its sample accounts, their secrets encrypted under KEY.
    const seeded = await runCli(['accounts', 'list', '--sandbox'], { env: { SWITCHBOARD_DATA_DIR: home, SWITCHBOARD_SECRET_KEY: KEY } });
    expect(seeded.code, seeded.stderr).toBe(0);
    const backupFile = join(tempDir(), 'b.db');
    expect((await runCli(['db', 'backup', '--sandbox', '--to', backupFile], { env: { SWITCHBOARD_DATA_DIR: home, SWITCHBOARD_SECRET_KEY: KEY } })).code).toBe(0);

    const other = tempDir();
    const wrong = await runCli(['db', 'restore', '--from', backupFile], { env: { SWITCHBOARD_DATA_DIR: other, SWITCHBOARD_SECRET_KEY: 'another key entirely' } });
    expectRefused(wrong, /secret key does not match .*b\.db.* Nothing was changed\. Set SWITCHBOARD_SECRET_KEY to the key used before/);
    expect(wrong.stderr).not.toContain('another key entirely');
    const noKey = await runCli(['db', 'restore', '--from', backupFile], { env: { SWITCHBOARD_DATA_DIR: other } });
    expectRefused(noKey, /the key file .*secret\.key is missing\. Restore that file, or set SWITCHBOARD_SECRET_KEY/);
    expect(readdirSync(other)).toEqual([]);
  });

  it('refuses an existing --to without --force, a damaged or foreign --from, and PostgreSQL, in one line naming the option', async () => {
    const home = tempDir();
    const env = { SWITCHBOARD_DATA_DIR: home, SWITCHBOARD_SECRET_KEY: KEY };
    expect((await runCli(['db', 'migrate'], { env })).code).toBe(0);
    const dir = tempDir();
    const existing = join(dir, 'kept.db');
    writeFileSync(existing, 'an earlier file');
    expectRefused(await runCli(['db', 'backup', '--to', existing], { env }), /--to .*kept\.db exists already: name another file, or add --force to replace it\. Nothing was written\./);
    expect(readFileSync(existing, 'utf8')).toBe('an earlier file');
    expectRefused(await runCli(['db', 'backup', '--to', join(dir, 'missing', 'b.db')], { env }), /--to: the directory .*missing does not exist/);
    const replaced = await runCli(['db', 'backup', '--to', existing, '--force'], { env });
    expect(replaced.code, replaced.stderr).toBe(0);

    // A backup damaged on disk: a page of its tables overwritten.
    const damaged = join(dir, 'damaged.db');
    const bytes = readFileSync(existing);
    bytes.fill(0x5a, 4096 * 3, 4096 * 6);
    writeFileSync(damaged, bytes);
    const target = tempDir();
    expectRefused(await runCli(['db', 'restore', '--from', damaged], { env: { ...env, SWITCHBOARD_DATA_DIR: target } }), /--from .*damaged\.db is (damaged|not a Switchboard store)/);
    writeFileSync(join(dir, 'notes.txt'), 'not a database at all, just some words in a file that is long enough to matter');
    expectRefused(await runCli(['db', 'restore', '--from', join(dir, 'notes.txt')], { env: { ...env, SWITCHBOARD_DATA_DIR: target } }), /--from .*notes\.txt is not a Switchboard store/);
    expectRefused(await runCli(['db', 'restore', '--from', join(dir, 'nothing.db')], { env: { ...env, SWITCHBOARD_DATA_DIR: target } }), /--from .*nothing\.db is not a file/);
    expect(readdirSync(target)).toEqual([]);

    const pg = { ...env, SWITCHBOARD_DATABASE_URL: 'postgres://switchboard:Pw-1234@db.example.net:5432/switchboard' };
    const refused = await runCli(['db', 'backup', '--to', join(dir, 'pg.db')], { env: pg });
    expectRefused(refused, /db backup works on the SQLite store .* use pg_dump, and keep the key with the dump \(docs\/accounts\.md, "Backups and restores"\)/);
    expect(refused.stderr).not.toContain('Pw-1234');
    expectRefused(await runCli(['db', 'restore', '--from', existing], { env: pg }), /use pg_restore/);
  });
});
