import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Redactor } from '../../src/redact.js';
import { MIGRATIONS, openStore, runMigrations, type Migration } from '../../src/store/index.js';
import { ADAPTERS, cleanUp, openAt } from './adapters.js';

const tempDir = () => mkdtempSync(join(os.tmpdir(), 'switchboard-db-'));
const newest = MIGRATIONS.at(-1)!.version;

function tableNames(db: Database.Database): string[] {
  return (db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name").all() as { name: string }[]).map(
    (r) => r.name,
  );
}

describe('openStore', () => {
  it('creates the data dir 0700 and the database 0600, with WAL, foreign keys and a busy timeout', async () => {
    const dir = join(tempDir(), 'nested', 'data');
    const store = await openStore({ dataDir: dir });
    await store.accounts.add({ provider: 'github', secret: { kind: 'token', token: 'ghp_mode_check_1' } });
    const dbFile = join(dir, 'switchboard.db');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(dbFile).mode & 0o777).toBe(0o600);
    expect(existsSync(`${dbFile}-wal`)).toBe(true);
    expect(statSync(`${dbFile}-wal`).mode & 0o777).toBe(0o600);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.db.pragma('busy_timeout', { simple: true })).toBe(5000);
    await store.close();
  });

  it('migrates an empty database to the newest schema', async () => {
    const dir = tempDir();
    const store = await openStore({ dataDir: dir });
    expect(store.db.pragma('user_version', { simple: true })).toBe(newest);
    expect(tableNames(store.db)).toEqual(
      expect.arrayContaining(['accounts', 'accounts_one_default_per_provider', 'accounts_provider_label', 'meta']),
    );
    await store.close();
  });

  it('re-opens idempotently, keeping data and schema version', async () => {
    const dir = tempDir();
    const first = await openStore({ dataDir: dir });
    const added = await first.accounts.add({ provider: 'vercel', label: 'team', secret: { kind: 'token', token: 'vercel_tok_1' } });
    const schemaBefore = tableNames(first.db);
    await first.close();
    const second = await openStore({ dataDir: dir });
    expect(second.db.pragma('user_version', { simple: true })).toBe(newest);
    expect(tableNames(second.db)).toEqual(schemaBefore);
    expect(await second.accounts.list()).toEqual([added]);
    await second.close();
  });

  it('refuses a database written by a newer Switchboard and leaves it alone', async () => {
    const dir = tempDir();
    await (await openStore({ dataDir: dir })).close();
    const raw = new Database(join(dir, 'switchboard.db'));
    raw.pragma(`user_version = ${newest + 5}`);
    raw.close();
    await expect(openStore({ dataDir: dir })).rejects.toThrow(
      `was written by a newer Switchboard (schema ${newest + 5}, this one knows ${newest}); upgrade Switchboard or use another --data-dir`,
    );
    const check = new Database(join(dir, 'switchboard.db'));
    expect(check.pragma('user_version', { simple: true })).toBe(newest + 5);
    check.close();
  });
});

describe('runMigrations', () => {
  const table = (name: string, version: number): Migration => ({ version, up: (db) => db.exec(`CREATE TABLE ${name} (x)`) });

  it('runs only pending migrations and records the version', () => {
    const db = new Database(':memory:');
    expect(runMigrations(db, [table('a', 1)])).toEqual({ from: 0, to: 1 });
    expect(runMigrations(db, [table('a', 1), table('b', 2), table('c', 4)])).toEqual({ from: 1, to: 4 });
    expect(runMigrations(db, [table('a', 1), table('b', 2), table('c', 4)])).toEqual({ from: 4, to: 4 });
    expect(tableNames(db)).toEqual(['a', 'b', 'c']);
    expect(db.pragma('user_version', { simple: true })).toBe(4);
  });

  it('runs all pending migrations in one transaction: a failure leaves nothing behind', () => {
    const db = new Database(':memory:');
    const failing: Migration = {
      version: 2,
      up() {
        throw new Error('boom');
      },
    };
    expect(() => runMigrations(db, [table('a', 1), failing])).toThrow('boom');
    expect(tableNames(db)).toEqual([]);
    expect(db.pragma('user_version', { simple: true })).toBe(0);
  });

  it('insists on versions that start at 1 and strictly increase', () => {
    const db = new Database(':memory:');
    expect(() => runMigrations(db, [table('a', 2)])).toThrow(/start at 1 and strictly increase/);
    expect(() => runMigrations(db, [table('a', 1), table('b', 1)])).toThrow(/strictly increase/);
    expect(() => runMigrations(db, [table('a', 1), table('b', 3), table('c', 2)])).toThrow(/strictly increase/);
    expect(tableNames(db)).toEqual([]);
  });
});

describe('secrets at rest', () => {
  it('never writes a secret in plaintext to the database files, yet resolves it and tells the redactor', async () => {
    const dir = tempDir();
    const redactor = new Redactor();
    const store = await openStore({ dataDir: dir, redactor });
    const secret = { kind: 'oauth' as const, token: 'PLAINTEXT_ACCESS_token_9f8e7d', refreshToken: 'PLAINTEXT_REFRESH_token_1a2b3c' };
    await store.accounts.add({ provider: 'outlook', label: 'visible-label-xyz', identity: 'me@example.com', secret });
    await store.accounts.add({ provider: 'sales', secret: { kind: 'api_key', apiKey: 'PLAINTEXT_API_key_445566' } });
    store.db.pragma('wal_checkpoint(TRUNCATE)');

    const dbFile = join(dir, 'switchboard.db');
    const bytes = Buffer.concat([readFileSync(dbFile), existsSync(`${dbFile}-wal`) ? readFileSync(`${dbFile}-wal`) : Buffer.alloc(0)]);
    expect(bytes.includes('visible-label-xyz')).toBe(true);
    for (const plaintext of ['PLAINTEXT_ACCESS_token_9f8e7d', 'PLAINTEXT_REFRESH_token_1a2b3c', 'PLAINTEXT_API_key_445566', 'PLAINTEXT']) {
      expect(bytes.includes(plaintext)).toBe(false);
    }

    const sample = 'token PLAINTEXT_ACCESS_token_9f8e7d and PLAINTEXT_REFRESH_token_1a2b3c and PLAINTEXT_API_key_445566';
    expect(redactor.redact(sample)).toContain('PLAINTEXT_REFRESH_token_1a2b3c');
    expect((await store.accounts.resolve('outlook')).secret).toEqual(secret);
    expect((await store.accounts.resolve('sales')).secret.apiKey).toBe('PLAINTEXT_API_key_445566');
    expect(redactor.redact(sample)).not.toContain('PLAINTEXT');
    await store.close();
  });
});

describe.each(ADAPTERS)('the store on $name', (adapter) => {
  afterEach(cleanUp);

  it('refuses a secret row swapped onto another account', async () => {
    const location = await adapter.location();
    const store = await openAt(location);
    const a = await store.accounts.add({ provider: 'github', label: 'a', secret: { kind: 'token', token: 'ghp_aaaaaaaa' } });
    const b = await store.accounts.add({ provider: 'github', label: 'b', secret: { kind: 'token', token: 'ghp_bbbbbbbb' } });
    await adapter.raw(location, 'UPDATE accounts SET secret_enc = (SELECT secret_enc FROM accounts WHERE id = ?) WHERE id = ?', a.id, b.id);
    await expect(store.accounts.resolve('github', 'b')).rejects.toThrow(/belongs to another account/);
    expect((await store.accounts.resolve('github', 'a')).secret.token).toBe('ghp_aaaaaaaa');
  });

  it('close() can be called twice, and a closed store does no more work', async () => {
    const store = await openAt(await adapter.location());
    await store.close();
    await expect(store.close()).resolves.toBeUndefined();
    await expect(store.accounts.list()).rejects.toThrow();
  });
});
