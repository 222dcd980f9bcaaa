import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DB_FILE_NAME, MIGRATIONS, runMigrations } from '../../src/store/index.js';
import { connect as connectAsStore } from '../../src/store/pg/connection.js';
import { migrate, PG_MIGRATIONS } from '../../src/store/pg/migrations.js';
import { cleanUp, openAt, postgresAdapter, sqlite, type Adapter, type StoreLocation } from './adapters.js';

afterEach(cleanUp);

const ev = (key: string) => ({ dedupeKey: key, occurredAt: '2026-11-22T10:00:00Z', summary: `s ${key}`, payload: { key } });

/** Rows of the schema before subscriptions: a trigger, two events, forwards (the newest deleted, so ids have a gap) and an attempt. */
const OLD_ROWS = [
  "INSERT INTO accounts (id, provider, label, secret_enc, created_at) VALUES ('acc_1', 'github', 'pat', 'x', '2026-11-01T00:00:00.000Z')",
  "INSERT INTO triggers (id, kind, account_id, forward_url, created_at) VALUES ('trg_1', 'github.new_issue', 'acc_1', 'http://127.0.0.1:9/x', '2026-11-01T00:00:00.000Z')",
  "INSERT INTO events (trigger_id, kind, dedupe_key, occurred_at, received_at, summary, payload_json) VALUES ('trg_1', 'github.new_issue', 'k1', 'x', '2026-11-01T00:00:00.000Z', 'one', '{}')",
  "INSERT INTO events (trigger_id, kind, dedupe_key, occurred_at, received_at, summary, payload_json) VALUES ('trg_1', 'github.new_issue', 'k2', 'x', '2026-11-01T00:00:00.000Z', 'two', '{}')",
  "INSERT INTO deliveries (event_id, trigger_id, url, state, attempts, next_attempt_at, give_up_at) VALUES (1, 'trg_1', 'http://127.0.0.1:9/x', 'delivered', 1, 0, 0)",
  "INSERT INTO deliveries (event_id, trigger_id, url, next_attempt_at, give_up_at) VALUES (2, 'trg_1', 'http://127.0.0.1:9/x', 0, 4000000000000)",
  "INSERT INTO deliveries (event_id, trigger_id, url, next_attempt_at, give_up_at) VALUES (2, 'trg_1', 'http://127.0.0.1:9/y', 0, 4000000000000)",
  "INSERT INTO delivery_attempts (delivery_id, attempt, at, status, duration_ms) VALUES (1, 1, '2026-11-01T00:00:00.000Z', 204, 3)",
  'DELETE FROM deliveries WHERE id = 3',
];

async function checkMigrated(adapter: Adapter, location: StoreLocation): Promise<void> {
  const store = await openAt(location, { secretKey: 'k' });
  expect(await adapter.raw(location, 'SELECT id, event_id, url, state, subscription_id FROM deliveries ORDER BY id')).toEqual([
    { id: 1, event_id: 1, url: 'http://127.0.0.1:9/x', state: 'delivered', subscription_id: null },
    { id: 2, event_id: 2, url: 'http://127.0.0.1:9/x', state: 'pending', subscription_id: null },
  ]);
  expect(await store.events.attempts(1)).toEqual([{ attempt: 1, status: 204, error: null, at: '2026-11-01T00:00:00.000Z' }]);
  expect(await store.triggers.get('trg_1')).toMatchObject({ origin: null, forwardUrl: 'http://127.0.0.1:9/x' });
  // A forward stays unique per event and URL; ids go on above every one given out before.
  await adapter.raw(location, "INSERT INTO deliveries (event_id, trigger_id, url, next_attempt_at, give_up_at) VALUES (2, 'trg_1', 'http://127.0.0.1:9/x', 0, 0) ON CONFLICT DO NOTHING");
  expect(await adapter.raw(location, 'SELECT count(*) AS n FROM deliveries')).toEqual([{ n: 2 }]);
  const accountId = (await store.accounts.add({ provider: 'github', label: 'new', secret: { kind: 'token', token: 'ghp_migrated_1' } })).id;
  const trigger = await store.triggers.create({ kind: 'github.new_issue', accountId, config: {}, forwardUrl: 'http://127.0.0.1:9/z' });
  await store.subscriptions.upsert({ id: 'sub_m', mode: 'webhook', name: 'github.new_issue', arguments: {}, url: 'http://127.0.0.1:9/z', triggerId: trigger.id, secret: 'whsec_m', refreshBefore: null });
  const [event] = await store.triggers.commit(trigger.id, { events: [ev('after')] });
  const rows = await adapter.raw(location, 'SELECT id, url, subscription_id FROM deliveries WHERE event_id = ? ORDER BY subscription_id', event!.id);
  expect(rows.map((r) => [r.url, r.subscription_id])).toEqual(expect.arrayContaining([['http://127.0.0.1:9/z', null], ['http://127.0.0.1:9/z', 'sub_m']]));
  expect(rows).toHaveLength(2);
  for (const row of rows) expect(row.id).toBeGreaterThan(3);
}

describe('the store before subscriptions', () => {
  it('migrates a SQLite store of schema 13, keeping its forwards, their attempts and the id sequence', async () => {
    const location = await sqlite.location();
    const db = new Database(join(location.dataDir, DB_FILE_NAME));
    runMigrations(db, MIGRATIONS.filter((m) => m.version <= 13));
    for (const statement of OLD_ROWS) db.prepare(statement).run();
    db.close();
    await checkMigrated(sqlite, location);
  });

  it('migrates a PostgreSQL store of schema 7, keeping its forwards, their attempts and the id sequence', async () => {
    const location = await postgresAdapter.location();
    const db = connectAsStore(location.databaseUrl!);
    await migrate(db, PG_MIGRATIONS.filter((m) => m.version <= 7));
    for (const statement of OLD_ROWS) await db.unsafe(statement);
    await db.end();
    await checkMigrated(postgresAdapter, location);
  });
});
