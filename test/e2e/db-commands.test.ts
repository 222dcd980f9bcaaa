import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DB_FILE_NAME, MIGRATIONS, openStore } from '../../src/store/index.js';
import { freePort } from '../pg-global.js';
import { connect, freshDatabase } from '../pg.js';
import { commandLines, shellBlocks } from '../docs/markdown.js';
import { schemaVersion, setSchemaVersion } from '../store/states.js';
import { CLI, runCli, type CliResult } from './cli.js';
import { PG_MIGRATIONS } from '../store/adapters.js';

const PG_NEWEST = PG_MIGRATIONS.at(-1)!.version;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function database(): Promise<{ url: string; password: string }> {
  const db = await freshDatabase();
  cleanups.push(() => db.drop());
  return { url: db.url, password: decodeURIComponent(new URL(db.url).password) };
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-db-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A data dir whose SQLite store holds two accounts, a trigger and three events. */
async function seededDataDir(secretKey?: string): Promise<string> {
  const dataDir = tempDir();
  const store = await openStore({ dataDir, secretKey });
  try {
    const github = await store.accounts.add({ provider: 'github', label: 'pat', secret: { kind: 'token', token: 'ghp_e2e_copy_token' } });
    await store.accounts.add({ provider: 'outlook', label: 'work', secret: { kind: 'oauth', token: 'EwB-e2e', refreshToken: 'M.C5-e2e-refresh', expiresAt: 1_900_000_000_000 } });
    const trigger = await store.triggers.create({ kind: 'github.new_issue', accountId: github.id, config: {} });
    const events = ['a', 'b', 'c'].map((key) => ({ dedupeKey: key, occurredAt: '2026-11-20T09:00:00Z', summary: key, payload: {} }));
    await store.triggers.commit(trigger.id, { events });
  } finally {
    await store.close();
  }
  return dataDir;
}

/** One line on stderr, naming the fix; exit code 2; the password nowhere. */
function expectOneLineError(r: CliResult, pattern: RegExp, password?: string): void {
  expect(r.code, r.stdout).toBe(2);
  expect(r.stderr).toMatch(/^switchboard: [^\n]+\n$/);
  expect(r.stderr).toMatch(pattern);
  if (password) expect(r.stdout + r.stderr).not.toContain(password);
}

const labels = (stdout: string) => (JSON.parse(stdout) as Array<{ label: string }>).map((a) => a.label).sort();

describe('switchboard db copy', () => {
  it('copies the data dir store, says what it copied and which key the instances need, never the password', async () => {
    const { url, password } = await database();
    const dataDir = await seededDataDir();
    const r = await runCli(['db', 'copy', '--to', url], { env: { SWITCHBOARD_DATA_DIR: dataDir } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Copied the SQLite store .*switchboard\\.db into PostgreSQL postgres://switchboard:\\*\\*\\*@127\\.0\\.0\\.1:\\d+/sb_\\w+ \\(schema ${PG_NEWEST}\\), in one transaction:\n`));
    expect(r.stdout).toMatch(/^ {2}accounts +2$/m);
    expect(r.stdout).toMatch(/^ {2}triggers +1$/m);
    expect(r.stdout).toMatch(/^ {2}events +3$/m);
    expect(r.stdout).toMatch(/^Not copied: leases /m);
    expect(r.stdout).toContain(`every instance using the PostgreSQL store needs the same key, the one in ${join(dataDir, 'secret.key')}`);
    expect(r.stdout + r.stderr).not.toContain(password);

    // The CLI on the PostgreSQL store, with the data dir's key file: the same accounts, their secrets readable.
    const list = await runCli(['accounts', 'list', '--json'], { env: { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_DATABASE_URL: url } });
    expect(list.code, list.stderr).toBe(0);
    expect(labels(list.stdout)).toEqual(['pat', 'work']);
    const store = await openStore({ dataDir, databaseUrl: url });
    try {
      expect((await store.accounts.resolve('outlook')).secret.refreshToken).toBe('M.C5-e2e-refresh');
    } finally {
      await store.close();
    }

    const again = await runCli(['db', 'copy', '--to', url], { env: { SWITCHBOARD_DATA_DIR: dataDir } });
    expectOneLineError(again, /is not empty \(it holds accounts, triggers, events\); copy into a new database/, password);
  });

  it('with SWITCHBOARD_SECRET_KEY, names it; a key that does not open the source is refused before the target is touched', async () => {
    const { url, password } = await database();
    const dataDir = await seededDataDir('the team key of this store');
    const wrong = await runCli(['db', 'copy', '--to', url], { env: { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_SECRET_KEY: 'some other key' } });
    expectOneLineError(wrong, /secret key does not match .* Set SWITCHBOARD_SECRET_KEY to the key used before/, password);
    const sql = connect(url);
    cleanups.push(() => sql.end());
    expect(await sql`SELECT to_regclass('accounts') AS found`).toEqual([{ found: null }]);

    const r = await runCli(['db', 'copy', '--to', url], { env: { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_SECRET_KEY: 'the team key of this store' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('every instance using the PostgreSQL store needs the same key, the SWITCHBOARD_SECRET_KEY used here.');
  });

  it('refuses a --to that is not a PostgreSQL database, naming --to and never repeating it', async () => {
    const dataDir = await seededDataDir();
    const env = { SWITCHBOARD_DATA_DIR: dataDir };
    expectOneLineError(await runCli(['db', 'copy', '--to', 'mysql://root:Pw-1234@db/switchboard'], { env }), /--to must be a postgres:\/\/ or postgresql:\/\/ URL, not mysql:\/\//, 'Pw-1234');
    expectOneLineError(await runCli(['db', 'copy', '--to', 'Pw-1234'], { env }), /--to is not a URL: give --to a PostgreSQL URL/, 'Pw-1234');
    expectOneLineError(await runCli(['db', 'copy', '--to', 'postgresql://u:Pw-1234@db.example'], { env }), /--to must name a host and a database/, 'Pw-1234');
    const missing = await runCli(['db', 'copy'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/required option '--to <url>' not specified/);
  });

  it('an unreachable server or a refused password: one line naming --to and the fix', async () => {
    const { url, password } = await database();
    const dataDir = await seededDataDir();
    const closed = new URL(url);
    closed.port = String(await freePort());
    expectOneLineError(await runCli(['db', 'copy', '--to', closed.toString()], { env: { SWITCHBOARD_DATA_DIR: dataDir } }), /nothing answers at that host and port.*ECONNREFUSED.*given by --to/, password);
    const refused = new URL(url);
    refused.password = 'Wrong-Password-555';
    expectOneLineError(await runCli(['db', 'copy', '--to', refused.toString()], { env: { SWITCHBOARD_DATA_DIR: dataDir } }), /refused the user name or password: correct them \(28P01\)/, 'Wrong-Password-555');
  });
});

describe('switchboard db migrate', () => {
  /** Four at once, as instances started together would; each exits 0, and exactly one applied the migrations. */
  async function migrateTogether(env: Record<string, string>): Promise<string[]> {
    const runs = await Promise.all([1, 2, 3, 4].map(() => runCli(['db', 'migrate'], { env })));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    return runs.map((r) => r.stdout).sort();
  }

  it('PostgreSQL: several at once apply the schema once, and each says what it did, password hidden', async () => {
    const { url, password } = await database();
    const outputs = await migrateTogether({ SWITCHBOARD_DATABASE_URL: url, SWITCHBOARD_DATA_DIR: tempDir() });
    const shown = new URL(url);
    shown.password = '***';
    expect(outputs).toEqual([...Array(3).fill(`PostgreSQL ${shown}: already at schema ${PG_NEWEST}; nothing to do.\n`), `PostgreSQL ${shown}: schema 0 → ${PG_NEWEST}.\n`]);
    expect(outputs.join('')).not.toContain(password);
    const sql = connect(url);
    cleanups.push(() => sql.end());
    expect(await sql`SELECT version FROM schema_migrations`).toEqual(PG_MIGRATIONS.map((m) => ({ version: m.version })));

    const byFlag = await runCli(['db', 'migrate', '--database-url', url], { env: { SWITCHBOARD_DATA_DIR: tempDir() } });
    expect(byFlag.stdout).toBe(`PostgreSQL ${shown}: already at schema ${PG_NEWEST}; nothing to do.\n`);
  });

  it('SQLite: several at once on a new data dir apply the schema once', async () => {
    const dataDir = tempDir();
    const newest = MIGRATIONS.at(-1)!.version;
    const file = join(dataDir, DB_FILE_NAME);
    const outputs = await migrateTogether({ SWITCHBOARD_DATA_DIR: dataDir });
    expect(outputs).toEqual([...Array(3).fill(`SQLite ${file}: already at schema ${newest}; nothing to do.\n`), `SQLite ${file}: schema 0 → ${newest}.\n`]);
    expect(schemaVersion(dataDir)).toBe(newest);
  });

  it('a database written by a newer Switchboard is refused in one line that names the fix', async () => {
    const { url, password } = await database();
    expect((await runCli(['db', 'migrate'], { env: { SWITCHBOARD_DATABASE_URL: url, SWITCHBOARD_DATA_DIR: tempDir() } })).code).toBe(0);
    const sql = connect(url);
    cleanups.push(() => sql.end());
    await sql`INSERT INTO schema_migrations (version) VALUES (99)`;
    const pg = await runCli(['db', 'migrate'], { env: { SWITCHBOARD_DATABASE_URL: url, SWITCHBOARD_DATA_DIR: tempDir() } });
    expectOneLineError(pg, new RegExp(`written by a newer Switchboard \\(schema 99, this one knows ${PG_NEWEST}\\); upgrade Switchboard or use another database`), password);

    const dataDir = tempDir();
    expect((await runCli(['db', 'migrate'], { env: { SWITCHBOARD_DATA_DIR: dataDir } })).code).toBe(0);
    setSchemaVersion(dataDir, 99);
    expectOneLineError(await runCli(['db', 'migrate'], { env: { SWITCHBOARD_DATA_DIR: dataDir } }), /written by a newer Switchboard \(schema 99, .*upgrade Switchboard or use another --data-dir/);
  });

  it('an unreachable server or a URL that is not postgres:// is one line naming the setting, never the password', async () => {
    const { url, password } = await database();
    const closed = new URL(url);
    closed.port = String(await freePort());
    const unreachable = await runCli(['db', 'migrate'], { env: { SWITCHBOARD_DATABASE_URL: closed.toString(), SWITCHBOARD_DATA_DIR: tempDir() } });
    expectOneLineError(unreachable, /nothing answers at that host and port.*SWITCHBOARD_DATABASE_URL or --database-url/, password);
    const bad = await runCli(['db', 'migrate', '--database-url', 'mysql://root:Pw-1234@db/switchboard'], { env: { SWITCHBOARD_DATA_DIR: tempDir() } });
    expectOneLineError(bad, /must start with postgres:\/\/ or postgresql:\/\//, 'Pw-1234');
  });
});

describe('docs/postgres.md: Moving to PostgreSQL', () => {
  const lines = shellBlocks('docs/postgres.md', '## Moving to PostgreSQL').flatMap(commandLines);

  function shell(line: string, env: Record<string, string>): Promise<CliResult> {
    return new Promise((resolve) => {
      const child = spawn('bash', ['-c', `switchboard() { "${process.execPath}" "${CLI}" "$@"; }\n${line}`], { env: { PATH: process.env.PATH ?? '', ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  it('the commands as written move a store and open it, with the password in PGPASSWORD only', async () => {
    const { url, password } = await database();
    const withoutPassword = new URL(url);
    withoutPassword.password = '';
    // The two exports are the reader's own values; every other line runs as written.
    const env: Record<string, string> = { SWITCHBOARD_DATA_DIR: await seededDataDir(), PGPASSWORD: password, SWITCHBOARD_DATABASE_URL: withoutPassword.toString() };
    const exports = lines.filter((line) => line.startsWith('export '));
    expect(exports.map((line) => line.split('=')[0])).toEqual(['export PGPASSWORD', 'export SWITCHBOARD_DATABASE_URL']);
    const outputs: string[] = [];
    for (const line of lines.filter((l) => !l.startsWith('export '))) {
      const r = await shell(line, env);
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      outputs.push(r.stdout);
    }
    expect(outputs.join('')).toMatch(/Copied the SQLite store/);
    expect(outputs.join('')).toMatch(/github +pat/);
    expect(outputs.join('')).toMatch(new RegExp(`already at schema ${PG_NEWEST}`));
  });
});
