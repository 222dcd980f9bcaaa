import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { freshDatabase, type TestDatabase } from '../pg.js';
import { runCli } from './cli.js';

const SECRET_KEY = 'team secret key for the e2e test';
let database: TestDatabase;
let dataDir: string;

beforeAll(async () => {
  database = await freshDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-pg-'));
  const store = await openStore({ dataDir, databaseUrl: database.url, secretKey: SECRET_KEY });
  try {
    await store.accounts.add({ provider: 'github', label: 'shared', identity: 'octo', secret: { kind: 'token', token: 'ghp_e2e_postgres_token' } });
  } finally {
    await store.close();
  }
});
afterAll(async () => {
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const labels = (stdout: string) => (JSON.parse(stdout) as Array<{ label: string }>).map((a) => a.label);

describe('SWITCHBOARD_DATABASE_URL and --database-url', () => {
  it('every command uses the PostgreSQL store, from the environment or the flag; the data dir holds no SQLite file', async () => {
    const env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_SECRET_KEY: SECRET_KEY };
    const fromEnv = await runCli(['accounts', 'list', '--json'], { env: { ...env, SWITCHBOARD_DATABASE_URL: database.url } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(labels(fromEnv.stdout)).toEqual(['shared']);
    expect(fromEnv.stdout).not.toContain('ghp_e2e_postgres_token');

    const fromFlag = await runCli(['triggers', 'list', '--database-url', database.url], { env });
    expect(fromFlag.code, fromFlag.stderr).toBe(0);
    expect(fromFlag.stdout).toMatch(/No triggers/);
    expect(existsSync(join(dataDir, 'switchboard.db'))).toBe(false);
  });

  it('without either, nothing changes: the SQLite store in the data dir', async () => {
    const sqliteDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-sqlite-'));
    try {
      const r = await runCli(['accounts', 'list', '--json'], { env: { SWITCHBOARD_DATA_DIR: sqliteDir, SWITCHBOARD_SECRET_KEY: SECRET_KEY } });
      expect(r.code, r.stderr).toBe(0);
      expect(labels(r.stdout)).toEqual([]);
      expect(existsSync(join(sqliteDir, 'switchboard.db'))).toBe(true);
    } finally {
      rmSync(sqliteDir, { recursive: true, force: true });
    }
  });

  it('a removal by one command is seen by the next, through the database', async () => {
    const env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_SECRET_KEY: SECRET_KEY, SWITCHBOARD_DATABASE_URL: database.url };
    const store = await openStore({ dataDir, databaseUrl: database.url, secretKey: SECRET_KEY });
    try {
      await store.accounts.add({ provider: 'vercel', label: 'temporary', secret: { kind: 'token', token: 'vercel_e2e_token' } });
      const removed = await runCli(['accounts', 'remove', 'temporary'], { env });
      expect(removed.code, removed.stderr).toBe(0);
      expect(await store.accounts.find('temporary')).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('a refused password exits 2 naming the setting, never the password', async () => {
    const url = new URL(database.url);
    url.password = 'Not-The-Password-913';
    const r = await runCli(['accounts', 'list'], { env: { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_SECRET_KEY: SECRET_KEY, SWITCHBOARD_DATABASE_URL: url.toString() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^switchboard: Cannot use the PostgreSQL database postgres:\/\/switchboard:\*\*\*@127\.0\.0\.1:\d+\/sb_\w+: the server refused/);
    expect(r.stderr).toContain('SWITCHBOARD_DATABASE_URL or --database-url');
    expect(r.stdout + r.stderr).not.toContain('Not-The-Password-913');
  });

  it('a URL that is not postgres:// is refused before anything is opened', async () => {
    const r = await runCli(['accounts', 'list', '--database-url', 'mysql://root:Pw-1234@db/switchboard'], { env: { SWITCHBOARD_DATA_DIR: dataDir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/must start with postgres:\/\/ or postgresql:\/\//);
    expect(r.stderr).not.toContain('Pw-1234');
  });
});
