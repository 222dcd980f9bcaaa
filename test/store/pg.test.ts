import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { openStore, type Store } from '../../src/store/index.js';
import { connect as connectAsStore } from '../../src/store/pg/connection.js';
import { migrate, PG_MIGRATIONS } from '../../src/store/pg/migrations.js';
import { freePort } from '../pg-global.js';
import { connect, freshDatabase } from '../pg.js';
import { cleanUp, openAt, postgresAdapter, type StoreLocation } from './adapters.js';
import { until } from '../support/wait.js';

afterEach(cleanUp);

const versions = PG_MIGRATIONS.map((m) => ({ version: m.version }));
const newest = PG_MIGRATIONS.at(-1)!.version;

const ev = (key: string) => ({ dedupeKey: key, occurredAt: '2026-11-22T10:00:00Z', summary: `s ${key}`, payload: { key } });

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: Error) => error,
  );
}

describe('the PostgreSQL event log', () => {
  it('hands out ids in commit order: a reader never skips an event whose transaction drew its id first and committed last', async () => {
    const location = await postgresAdapter.location();
    // Three instances on one database: two commit events, one tails the log.
    const [first, second, reader] = [await openAt(location), await openAt(location), await openAt(location)];
    const accountId = (await first.accounts.add({ provider: 'github', secret: { kind: 'token', token: 'ghp_order_test' } })).id;
    const forwarded = await first.triggers.create({ kind: 'github.push', accountId, config: {}, forwardUrl: 'http://127.0.0.1:9/hook' });
    const plain = await first.triggers.create({ kind: 'github.push', accountId, config: {} });

    // Hold up the first commit after it has drawn its event id: another transaction, not yet ended, inserted the same
    // event, so the commit's insert waits to learn whether it conflicts.
    const db = connect(location.databaseUrl!);
    const waiting = (lock: string) => async () =>
      (await db.unsafe(`SELECT 1 FROM pg_locks WHERE NOT granted AND ${lock}`)).length > 0;
    let release!: () => void;
    const locked = new Promise<void>((resolve, reject) => {
      const held = db.begin(async (tx) => {
        await tx`INSERT INTO events (trigger_id, owner, kind, dedupe_key, occurred_at, received_at, summary, payload_json)
          SELECT id, owner, kind, 'drew-first', '2026-11-22T10:00:00Z', '2026-11-22T10:00:00Z', 'held', '{}'::json FROM triggers WHERE id = ${forwarded.id}`;
        resolve();
        await new Promise<void>((done) => (release = done));
        throw new Error('rolled back');
      });
      held.catch((error: Error) => error.message !== 'rolled back' && reject(error));
    });
    await locked;
    const slow = first.triggers.commit(forwarded.id, { events: [ev('drew-first')] });
    await until(waiting("locktype = 'transactionid'"), 'a wait on the row lock', 30_000);

    // A second commit starts after the first drew its id; it either commits now or waits for the log's lock.
    const fast = second.triggers.commit(plain.id, { events: [ev('drew-second')] });
    await Promise.race([fast, until(waiting("locktype = 'advisory'"), 'a wait on the advisory lock', 30_000)]);

    // The reader reads what is committed now and moves its cursor, as a tail does.
    const seenFirst = await reader.events.after(0, { limit: 10 });
    const cursor = seenFirst.at(-1)?.id ?? 0;
    release();
    const [[slowEvent], [fastEvent]] = await Promise.all([slow, fast]);
    const seenThen = await reader.events.after(cursor, { limit: 10 });

    expect([...seenFirst, ...seenThen].map((e) => e.dedupeKey)).toEqual(['drew-first', 'drew-second']);
    expect(slowEvent!.id).toBeLessThan(fastEvent!.id);
    await db.end();
  });
});

describe('PostgreSQL fan-out to subscriptions', () => {
  it('a commit that waited for a subscription being made on its trigger still enqueues a delivery for it', async () => {
    const location = await postgresAdapter.location();
    const store = await openAt(location);
    const accountId = (await store.accounts.add({ provider: 'github', secret: { kind: 'token', token: 'ghp_fanout_race' } })).id;
    const trigger = await store.triggers.create({ kind: 'github.new_issue', accountId, config: {} });
    const db = connect(location.databaseUrl!);
    let release!: () => void;
    const made = new Promise<void>((resolve, reject) => {
      // As the store's upsert does it: the trigger's row locked, the subscription added, the trigger's count raised.
      const upsert = db.begin(async (tx) => {
        await tx`SELECT 1 FROM triggers WHERE id = ${trigger.id} FOR NO KEY UPDATE`;
        await tx`INSERT INTO event_subscriptions (id, owner, mode, name, arguments_json, url, trigger_id, start_event_id, created_at, updated_at)
          VALUES ('sub_race', '', 'webhook', 'github.new_issue', '{}', 'https://agent.example/hook', ${trigger.id}, 0, 0, 0)`;
        await tx`UPDATE triggers SET subscriptions = subscriptions + 1 WHERE id = ${trigger.id}`;
        resolve();
        await new Promise<void>((done) => (release = done));
      });
      upsert.catch(reject);
    });
    await made;
    const commit = store.triggers.commit(trigger.id, { events: [ev('during')] });
    await until(async () => (await db.unsafe("SELECT 1 FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'")).length > 0, 'the commit waiting for the row', 30_000);
    release();
    const [event] = await commit;
    expect(await postgresAdapter.raw(location, 'SELECT event_id, subscription_id FROM deliveries')).toEqual([{ event_id: event!.id, subscription_id: 'sub_race' }]);
    await db.end();
  });
});

describe('PostgreSQL batches', () => {
  it('a value the database refuses (a NUL in text) fails its own item only; the others are stored, ids in input order', async () => {
    const store = await openAt(await postgresAdapter.location());
    const accountId = (await store.accounts.add({ provider: 'github', secret: { kind: 'token', token: 'ghp_batch_test' } })).id;
    const t = await store.triggers.create({ kind: 'github.push', accountId, config: {} });
    const outcomes = await store.triggers.commitMany([
      { triggerId: t.id, input: { events: [ev('1')] } },
      { triggerId: t.id, input: { events: [{ ...ev('2'), summary: 'nul \u0000 here' }] } },
      { triggerId: t.id, input: { events: [ev('3')] } },
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(((outcomes[1] as PromiseRejectedResult).reason as { code?: string }).code).toBe('22021');
    const stored = await store.events.after(0, { limit: 10 });
    expect(stored.map((e) => e.dedupeKey)).toEqual(['1', '3']);
    expect(stored[0]!.id).toBeLessThan(stored[1]!.id);
    expect(await store.triggers.get(t.id)).toMatchObject({ fired: 2 });
  });
});

describe('PostgreSQL migrations', () => {
  it('instances starting together on an empty database apply each migration once', async () => {
    const location = await postgresAdapter.location();
    const stores = await Promise.all([1, 2, 3, 4].map(() => openAt(location, { secretKey: 'shared key' })));
    expect(await postgresAdapter.raw(location, 'SELECT version FROM schema_migrations ORDER BY version')).toEqual(versions);
    // Every instance found the same key check and shares the secrets.
    await stores[0]!.accounts.add({ provider: 'sales', secret: { kind: 'api_key', apiKey: 'sales_key_shared' } });
    for (const store of stores) expect((await store.accounts.resolve('sales')).secret.apiKey).toBe('sales_key_shared');
  });

  it('re-opens without migrating again, keeping the data', async () => {
    const location = await postgresAdapter.location();
    const first = await openAt(location, { secretKey: 'k' });
    await first.accounts.add({ provider: 'github', label: 'kept', secret: { kind: 'token', token: 'ghp_kept_token' } });
    await first.close();
    const again = await openAt(location, { secretKey: 'k' });
    expect((await again.accounts.list()).map((a) => a.label)).toEqual(['kept']);
    expect(await postgresAdapter.raw(location, 'SELECT count(*) AS n FROM schema_migrations')).toEqual([{ n: versions.length }]);
  });

  it('brings a database of every earlier version up to the newest, keeping its data', async () => {
    for (const old of PG_MIGRATIONS.slice(0, -1)) {
      const location = await postgresAdapter.location();
      const db = connectAsStore(location.databaseUrl!);
      await migrate(db, PG_MIGRATIONS.filter((m) => m.version <= old.version));
      await db.end();
      const first = await openAt(location, { secretKey: 'k' });
      expect(await postgresAdapter.raw(location, 'SELECT version FROM schema_migrations ORDER BY version')).toEqual(versions);
      await first.accounts.add({ provider: 'github', label: 'kept', secret: { kind: 'token', token: 'ghp_kept_token' } });
      await first.signIns.put('state', { provider: 'github', verifier: 'v', redirectUri: 'http://127.0.0.1/cb', groups: [], explicitGroups: false }, { ttlMs: 60_000, max: 5 });
      const again = await openAt(location, { secretKey: 'k' });
      expect((await again.accounts.resolve('github', 'kept')).secret.token).toBe('ghp_kept_token');
      expect(await again.signIns.take('state')).toMatchObject({ provider: 'github', verifier: 'v' });
    }
  });

  it('refuses a database written by a newer Switchboard and changes nothing', async () => {
    const location = await postgresAdapter.location();
    await (await openAt(location, { secretKey: 'k' })).close();
    await postgresAdapter.raw(location, 'INSERT INTO schema_migrations (version) VALUES (999)');
    const error = await rejection(openStore({ ...location, secretKey: 'k' }));
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toMatch(new RegExp(`written by a newer Switchboard \\(schema 999, this one knows ${newest}\\).*SWITCHBOARD_DATABASE_URL`));
    expect(await postgresAdapter.raw(location, 'SELECT count(*) AS n FROM schema_migrations')).toEqual([{ n: versions.length + 1 }]);
  });
});

describe('reaching the PostgreSQL database', () => {
  const settingNamed = /SWITCHBOARD_DATABASE_URL or --database-url/;

  async function failureAt(url: string, location: StoreLocation): Promise<Error> {
    return rejection(openStore({ dataDir: location.dataDir, databaseUrl: url, secretKey: 'k' }));
  }

  it('says the password was refused, never showing it', async () => {
    const location = await postgresAdapter.location();
    const url = new URL(location.databaseUrl!);
    url.password = 'Wrong-Password-4711';
    const error = await failureAt(url.toString(), location);
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toMatch(/refused the user name or password.*28P01/);
    expect(error.message).toMatch(settingNamed);
    expect(error.message).not.toContain('Wrong-Password-4711');
    expect(error.message).toContain(`${url.hostname}:${url.port}${url.pathname}`);
  });

  it('says the database does not exist, and how to make it', async () => {
    const location = await postgresAdapter.location();
    const url = new URL(location.databaseUrl!);
    url.pathname = '/no_such_database';
    const error = await failureAt(url.toString(), location);
    expect(error.message).toMatch(/database does not exist: create it \(createdb\).*3D000/);
    expect(error.message).not.toContain(decodeURIComponent(url.password));
  });

  it('says nothing answers when no server listens there', async () => {
    const location = await postgresAdapter.location();
    const url = new URL(location.databaseUrl!);
    url.port = String(await freePort());
    const error = await failureAt(url.toString(), location);
    expect(error.message).toMatch(/nothing answers at that host and port.*ECONNREFUSED/);
    expect(error.message).toMatch(settingNamed);
    expect(error.message).not.toContain(decodeURIComponent(url.password));
  });
});

describe('the PostgreSQL store without a key file', () => {
  it('keeps the key out of the data dir when SWITCHBOARD_SECRET_KEY is set, and creates no directory', async () => {
    const database = await freshDatabase();
    const dataDir = `/nonexistent-switchboard-${process.pid}/data`;
    let store: Store | undefined;
    try {
      store = await openStore({ dataDir, databaseUrl: database.url, secretKey: 'team key' });
      await store.accounts.add({ provider: 'github', secret: { kind: 'token', token: 'ghp_no_key_file' } });
      expect((await store.accounts.resolve('github')).secret.token).toBe('ghp_no_key_file');
    } finally {
      await store?.close();
      await database.drop();
    }
  });
});
