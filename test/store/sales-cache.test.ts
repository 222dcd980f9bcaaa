import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_API_KEYS } from '../../src/sandbox/index.js';
import { DB_FILE_NAME, MIGRATIONS, openStore, runMigrations, type SqliteStore } from '../../src/store/index.js';
import { rotateSecrets } from '../../src/store/rotate.js';
import { startHarness, type Harness } from '../harness.js';
import { freshDatabase, type TestDatabase } from '../pg.js';
import { ADAPTERS, cleanUp, openAt, type StoreLocation } from './adapters.js';

/** What the sandbox knows about Jordan Lee, none of which may reach the disk in the clear. */
const PERSONAL = ['jordan.lee', 'jordan lee', '555 0142', 'procurement lead'];
const apiKey = { kind: 'api_key' as const, apiKey: SANDBOX_API_KEYS.sales };

afterEach(cleanUp);

/** The database file and its WAL, lower-cased, after a checkpoint. */
function fileText(dataDir: string): string {
  const file = join(dataDir, DB_FILE_NAME);
  const wal = (() => {
    try {
      return readFileSync(`${file}-wal`);
    } catch {
      return Buffer.alloc(0);
    }
  })();
  return Buffer.concat([readFileSync(file), wal]).toString('latin1').toLowerCase();
}

const sqliteRowCount = (store: SqliteStore, accountId?: string) =>
  (
    (accountId
      ? store.db.prepare('SELECT count(*) AS n FROM sales_cache WHERE account_id = ?').get(accountId)
      : store.db.prepare('SELECT count(*) AS n FROM sales_cache').get()) as { n: number }
  ).n;

describe.each(ADAPTERS)('sales lookups cached in the $name store', (adapter) => {
  let h: Harness;
  let database: TestDatabase | undefined;
  const location = (): StoreLocation => ({ dataDir: h.dataDir, databaseUrl: database?.url });
  const rows = (sql: string, ...params: unknown[]) => adapter.raw(location(), sql, ...params);
  const rowCount = async (accountId?: string) =>
    Number((await (accountId ? rows('SELECT count(*) AS n FROM sales_cache WHERE account_id = ?', accountId) : rows('SELECT count(*) AS n FROM sales_cache')))[0]!.n);
  const paid = () => h.sandbox.servers.sales.requests.length;

  beforeAll(async () => {
    database = adapter.name === 'postgres' ? await freshDatabase() : undefined;
    h = await startHarness({ databaseUrl: database?.url });
  });
  afterAll(async () => {
    await h.close();
    await database?.drop();
  });
  beforeEach(async () => {
    h.sandbox.servers.sales.reset();
    await rows('DELETE FROM sales_cache');
  });

  it('keeps no looked-up email, name or phone in plain text, and still answers a repeat without a second paid call', async () => {
    const first = await h.ok('sales_find_contact', { email: 'jordan.lee@fabrikam.example' });
    expect(first).toMatchObject({ status: 'matched', cached: false, contact: { name: 'Jordan Lee', phones: ['+1 415 555 0142 (mobile)'] } });
    await h.ok('sales_enrich_contacts', { contacts: [{ firstName: 'Jordan', lastName: 'Lee', company: 'fabrikam.example' }] });
    expect(paid()).toBe(2);

    const cached = await rows('SELECT * FROM sales_cache');
    expect(cached).toHaveLength(2);
    for (const row of cached) {
      expect(Object.keys(row).sort()).toEqual(['account_id', 'created_at', 'key_hash', 'kind', 'result_enc']);
      expect(row.result_enc).toMatch(/^v1\./);
      for (const text of PERSONAL) expect(JSON.stringify(row).toLowerCase()).not.toContain(text);
    }
    if (adapter.name === 'sqlite') {
      // The file too: nothing of the lookups lingers in free pages or the write-ahead log.
      (h.store as SqliteStore).db.pragma('wal_checkpoint(TRUNCATE)');
      const onDisk = fileText(h.dataDir);
      for (const text of PERSONAL) expect(onDisk, text).not.toContain(text);
    }

    const again = await h.ok('sales_find_contact', { email: 'Jordan.Lee@FABRIKAM.example' });
    expect(again).toEqual({ status: 'matched', contact: first.contact, cached: true, credits_used: 0 });
    const batch = await h.ok('sales_enrich_contacts', { contacts: [{ firstName: 'Jordan', lastName: 'Lee', company: 'fabrikam.example' }] });
    expect(batch.results[0]).toMatchObject({ status: 'matched', cached: true });
    expect(paid()).toBe(2);
  });

  it('writes nothing when SWITCHBOARD_SALES_CACHE_DAYS is 0', async () => {
    h.deps.salesCacheDays = 0;
    try {
      await h.ok('sales_find_contact', { email: 'jordan.lee@fabrikam.example' });
      expect(await rowCount()).toBe(0);
    } finally {
      delete h.deps.salesCacheDays;
    }
  });

  it('the same person looked up by two accounts gives unrelated rows', async () => {
    const other = await h.store.accounts.add({ provider: 'sales', label: 'second', secret: apiKey });
    try {
      await h.ok('sales_find_contact', { email: 'jordan.lee@fabrikam.example' });
      await h.ok('sales_find_contact', { email: 'jordan.lee@fabrikam.example', account: 'second' });
      const hashes = await rows('SELECT key_hash FROM sales_cache');
      expect(hashes).toHaveLength(2);
      expect(hashes[0]!.key_hash).not.toBe(hashes[1]!.key_hash);
    } finally {
      await h.store.accounts.remove(other.id);
    }
  });

  it('drops an account\'s rows with the account', async () => {
    const temp = await h.store.accounts.add({ provider: 'sales', label: 'temp', secret: apiKey });
    await h.ok('sales_find_company', { domain: 'acme.example', account: 'temp' });
    await h.ok('sales_find_company', { domain: 'acme.example' });
    expect(await rowCount(temp.id)).toBe(1);
    await h.store.accounts.remove('temp');
    expect(await rowCount(temp.id)).toBe(0);
    expect(await rowCount()).toBe(1);
  });
});

describe('the cache at rest, across versions and keys', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-sales-cache-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('an older store loses its plain-text rows when it is opened (migration 6), leaving nothing of them in the file', async () => {
    const raw = new Database(join(dataDir, DB_FILE_NAME));
    runMigrations(raw, MIGRATIONS.filter((m) => m.version <= 4));
    raw
      .prepare("INSERT INTO accounts (id, provider, label, secret_enc, created_at) VALUES ('acc_old', 'sales', 'old', 'v1.x.y.z', '2025-01-01T00:00:00Z')")
      .run();
    raw
      .prepare('INSERT INTO sales_cache (account_id, kind, key, result_json, created_at) VALUES (?, ?, ?, ?, ?)')
      .run('acc_old', 'person', 'email:jordan.lee@fabrikam.example', JSON.stringify({ name: 'Jordan Lee', phones: ['+1 415 555 0142'] }), new Date().toISOString());
    raw.close();

    const store = await openStore({ dataDir, secretKey: 'migration-test' });
    try {
      expect(sqliteRowCount(store)).toBe(0);
      const columns = (store.db.prepare('PRAGMA table_info(sales_cache)').all() as Array<{ name: string }>).map((c) => c.name);
      expect(columns).toEqual(['account_id', 'kind', 'key_hash', 'result_enc', 'created_at']);
      expect(store.db.pragma('secure_delete', { simple: true })).toBe(0);
      store.db.pragma('wal_checkpoint(TRUNCATE)');
      const onDisk = fileText(dataDir);
      for (const text of PERSONAL) expect(onDisk, text).not.toContain(text);
    } finally {
      await store.close();
    }
  });

  it('secrets rotate drops the cache in its transaction; the store then works under the new key', async () => {
    let store = await openStore({ dataDir });
    const account = await store.accounts.add({ provider: 'sales', label: 'main', secret: apiKey });
    await store.salesCache.put(account.id, 'company', [['domain:acme.example', '{"name":"Acme"}']], new Date().toISOString());
    await store.close();

    const result = await rotateSecrets({ dataDir });
    expect(result).toMatchObject({ accounts: 1, salesCache: 1 });

    store = await openStore({ dataDir });
    try {
      expect(sqliteRowCount(store)).toBe(0);
      expect((await store.accounts.resolve('sales', 'main')).secret).toEqual(apiKey);
      await store.salesCache.put(account.id, 'company', [['domain:acme.example', '{"name":"Acme"}']], new Date().toISOString());
      const found = await store.salesCache.get(account.id, 'company', ['domain:acme.example'], '1970-01-01T00:00:00.000Z');
      expect(found.get('domain:acme.example')).toBe('{"name":"Acme"}');
    } finally {
      await store.close();
    }
  });

  it('a process still holding the retired key writes no entry after a rotation', async () => {
    const stale = await openStore({ dataDir });
    try {
      const account = await stale.accounts.add({ provider: 'sales', label: 'main', secret: apiKey });
      await rotateSecrets({ dataDir });
      await stale.salesCache.put(account.id, 'person', [['email:jordan.lee@fabrikam.example', '{"name":"Jordan Lee"}']], new Date().toISOString());
      expect(sqliteRowCount(stale)).toBe(0);
    } finally {
      await stale.close();
    }
  });
});

describe.each(ADAPTERS)('the cache in the $name store', (adapter) => {
  it('an entry altered in the database is a miss, not an error', async () => {
    const location = await adapter.location();
    const store = await openAt(location, { secretKey: 'tamper-test' });
    const account = await store.accounts.add({ provider: 'sales', label: 'main', secret: apiKey });
    const at = new Date().toISOString();
    await store.salesCache.put(account.id, 'company', [['domain:acme.example', '{"name":"Acme"}'], ['domain:globex.example', '{"name":"Globex"}']], at);
    const before = await store.salesCache.get(account.id, 'company', ['domain:acme.example', 'domain:globex.example'], '1970-01-01T00:00:00.000Z');
    expect(before.get('domain:globex.example')).toBe('{"name":"Globex"}');
    const rows = await adapter.raw(location, 'SELECT key_hash, result_enc FROM sales_cache ORDER BY key_hash');
    // Swap the two ciphertexts: each is bound to its own row.
    await adapter.raw(location, 'UPDATE sales_cache SET result_enc = ? WHERE key_hash = ?', rows[1]!.result_enc, rows[0]!.key_hash);
    await adapter.raw(location, 'UPDATE sales_cache SET result_enc = ? WHERE key_hash = ?', rows[0]!.result_enc, rows[1]!.key_hash);
    const found = await store.salesCache.get(account.id, 'company', ['domain:acme.example', 'domain:globex.example'], '1970-01-01T00:00:00.000Z');
    expect(found.size).toBe(0);
  });
});
