import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { COPIED_TABLES, copyStore, DB_FILE_NAME, openStore, PERSONAL_OWNER, SKIPPED_TABLES, type Store } from '../../src/store/index.js';
import { PG_MIGRATIONS } from '../../src/store/pg/migrations.js';
import { cleanUp, openAt, postgresAdapter, sqlite, type StoreLocation } from './adapters.js';

afterEach(cleanUp);

const ev = (key: string) => ({ dedupeKey: key, occurredAt: '2026-11-20T09:00:00Z', summary: `event ${key}`, payload: { key, nested: { b: 1, a: [2, 3] } } });
const FAR_FUTURE = 4_000_000_000_000;

/** A SQLite store with a row in every copied table, ids with gaps, and a lease; closed again, as `db copy` expects. */
async function seedSqlite(location: StoreLocation) {
  const store = await openStore({ dataDir: location.dataDir });
  const github = await store.accounts.add({ provider: 'github', label: 'pat', identity: 'octo', secret: { kind: 'token', token: 'ghp_copy_token_0001' } });
  const outlook = await store.accounts.add({
    provider: 'outlook',
    label: 'work',
    identity: 'me@example.com',
    groups: ['mail', 'calendar'],
    scopes: ['Mail.Read', 'offline_access'],
    meta: { signIn: 'device', tenant: 'common' },
    secret: { kind: 'oauth', token: 'EwB-access-0001', refreshToken: 'M.C5-refresh-0001', expiresAt: 1_900_000_000_000 },
  });
  await store.accounts.touch(outlook.id);
  await store.audit.append([
    { at: '2026-01-01T00:00:00.000Z', owner: '', auth: 'cli', action: 'account.added', account: github.id, outcome: 'ok' },
    { at: '2026-01-01T00:01:00.000Z', owner: '', auth: 'stdio', action: 'tool.call', tool: 'github_get_issue', effect: 'read', account: github.id, target: 'octo/hello#1', outcome: 'ok', providerStatus: 200, durationMs: 12 },
  ]);
  const forwarded = await store.triggers.create({
    kind: 'github.new_issue',
    accountId: github.id,
    config: { repo: 'octo/hello' },
    forwardUrl: 'https://agent.example.net/hook',
    secrets: { forward: 'fwd-secret-0001', webhook: 'wh-secret-0001' },
    providerRefs: { hookId: 'to be set' },
  });
  const mail = await store.triggers.create({ kind: 'outlook.new_email', accountId: outlook.id, config: { folder: 'inbox' }, state: { deltaLink: 'https://graph/delta?token=1' } });
  const { hook, secret: hookSecret } = await store.hooks.create({ provider: 'github', accountId: github.id, target: 'repo:octo/hello', events: ['issues'] });
  await store.hooks.update(hook.id, { remoteId: '4711' });
  await store.accounts.share(github.id, '*');
  await store.triggers.update(forwarded.id, { providerRefs: { hookId: hook.id } });
  const subscribed = await store.triggers.create({ kind: 'github.new_issue', accountId: github.id, config: { repo: 'octo/events' }, origin: 'events' });
  await store.subscriptions.upsert({
    id: 'sub_copy', mode: 'webhook', name: 'github.new_issue', arguments: { repo: 'octo/events' }, url: 'https://agent.example.net/mcp-events?s=1',
    triggerId: subscribed.id, clientName: 'ai-sdk-mcp-client', secret: 'whsec_copied_secret_0001', refreshBefore: FAR_FUTURE,
  });
  await store.subscriptions.rememberCallback('', 'https://agent.example.net/mcp-events?s=1', FAR_FUTURE);
  await store.triggers.commit(forwarded.id, { events: [ev('i1'), ev('i2'), ev('i3')] });
  await store.triggers.commit(subscribed.id, { events: [ev('s1')] });
  await store.triggers.commit(mail.id, { events: [ev('m1'), ev('m2')], state: { deltaLink: 'https://graph/delta?token=2' }, error: 'throttled once' });
  const [delivery] = await store.work.claimDeliveries('seed', 1, 60_000);
  await store.events.recordAttempt(delivery!.id, { status: 502, error: 'bad gateway', durationMs: 12, nextAttemptAt: FAR_FUTURE - 1, delivered: false });
  await store.events.setCursor('tail-a', 3);
  await store.events.setCursor('tail-b', 4);
  await store.events.recordFailure('tail-a', 3, { attempts: 3, error: 'exit code 1' });
  await store.salesCache.put(github.id, 'person', [['ada@example.com', '{"name":"Ada"}']], '2026-11-20T09:00:00.000Z');
  const admin = await store.team.users.signIn({ provider: 'github', subject: '1001', login: 'ada', email: 'ada@example.com' });
  await store.team.tokens.create({ owner: admin.id, name: 'nightly agent', scope: 'switchboard:read', tokenHash: 'ab'.repeat(32), expiresAt: '2099-01-01T00:00:00.000Z' });
  await store.team.tokens.touch((await store.team.tokens.list())[0]!.id, '2026-11-20T09:00:00.000Z', '2026-11-20T08:59:00.000Z');
  await store.team.users.setDisabled(admin.id, true);
  await store.leases.acquire('poll:somewhere', 'instance-1', 60_000);
  await store.budgets.take({ owner: admin.id, accountId: github.id, meter: 'providerRequests', windowStart: '2026-11-20T09:00:00.000Z' }, 3, 10);
  await store.policy.set('{"teamDomains":["contoso.example"]}', 'cli', '2026-11-20T09:30:00.000Z');
  await store.close();
  // Gaps: a deleted event in the middle, and the newest one deleted (SQLite still never gives out its id again).
  const db = new Database(join(location.dataDir, DB_FILE_NAME));
  db.prepare('DELETE FROM events WHERE id IN (2, 6)').run();
  db.close();
  return { ids: { github: github.id, outlook: outlook.id, forwarded: forwarded.id, mail: mail.id, hook: hook.id }, hookSecret };
}

type Ids = Awaited<ReturnType<typeof seedSqlite>>['ids'];

const DELIVERIES = 'SELECT id, event_id, trigger_id, url, state, attempts, next_attempt_at, give_up_at, last_status, last_error, subscription_id FROM deliveries ORDER BY id';

/** Everything the store contract reads back, secrets decrypted, and the forwards waiting (which the contract only claims). */
async function readBack(store: Store, ids: Ids, deliveries: () => Promise<Record<string, unknown>[]>) {
  const events = await store.events.after(0, { limit: 100 });
  return {
    accounts: await store.accounts.list(),
    github: await store.accounts.resolve('github'),
    outlook: await store.accounts.resolve('outlook', 'work'),
    triggers: await store.triggers.list(),
    triggerSecrets: await store.triggers.secrets(ids.forwarded),
    subscriptions: await store.subscriptions.list(),
    subscriptionSecrets: await store.subscriptions.secrets('sub_copy'),
    hook: await store.hooks.find('github', ids.github, 'repo:octo/hello'),
    hookSecret: await store.hooks.secret(ids.hook),
    hookTriggers: await store.hooks.triggers(ids.hook),
    events,
    lastId: await store.events.lastId(),
    cursors: [await store.events.cursor('tail-a'), await store.events.cursor('tail-b')],
    failures: await store.events.failures(),
    deliveries: await deliveries(),
    attempts: await Promise.all(events.map((e) => store.events.attempts(e.id))),
    salesCache: [...(await store.salesCache.get(ids.github, 'person', ['ada@example.com'], '2026-01-01T00:00:00.000Z'))],
    teamUsers: await store.team.users.list(),
    teamTokens: await store.team.tokens.list(),
    teamTokenByHash: await store.team.tokens.findByHash('ab'.repeat(32)),
    budgets: await store.budgets.list({ since: '2026-01-01T00:00:00.000Z' }),
    policy: await store.policy.get(),
  };
}

const fileHash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: Error) => error,
  );
}

async function targetRows(location: StoreLocation): Promise<string> {
  const rows = [];
  for (const table of COPIED_TABLES) rows.push(await postgresAdapter.raw(location, `SELECT * FROM ${table.name} ORDER BY 1, 2`));
  return JSON.stringify(rows);
}

describe('db copy: a SQLite store into PostgreSQL', () => {
  it('moves every row; the PostgreSQL store opens with the same key and reads back the same through the contract', async () => {
    const source = await sqlite.location();
    const target = { ...(await postgresAdapter.location()), dataDir: source.dataDir };
    const { ids, hookSecret } = await seedSqlite(source);
    const sqliteFile = join(source.dataDir, DB_FILE_NAME);
    const before = fileHash(sqliteFile);
    const sqliteStore = await openStore(source);
    const expected = await readBack(sqliteStore, ids, () => sqlite.raw(source, DELIVERIES));
    await sqliteStore.close();

    const result = await copyStore(source.dataDir, target.databaseUrl!);
    expect(result).toMatchObject({ from: sqliteFile, schema: PG_MIGRATIONS.at(-1)!.version, key: { source: 'keyFile', keyFile: join(source.dataDir, 'secret.key') } });
    expect(result.counts).toEqual({
      meta: 1,
      accounts: 2,
      account_grants: 1,
      triggers: 3,
      hooks: 1,
      events: 4,
      consumers: 2,
      consumer_failures: 1,
      event_subscriptions: 1,
      deliveries: 4,
      delivery_attempts: 1,
      sales_cache: 1,
      team_users: 1,
      team_tokens: 1,
      budget_usage: 1,
      policy: 1,
      audit: 2,
      audit_chain: 1,
    });
    expect(result.to).not.toContain(decodeURIComponent(new URL(target.databaseUrl!).password));
    expect(fileHash(sqliteFile)).toBe(before);

    const pg = await openAt(target);
    const copied = await readBack(pg, ids, () => postgresAdapter.raw(target, DELIVERIES));
    expect(copied).toEqual(expected);
    expect(copied.github.secret).toEqual({ kind: 'token', token: 'ghp_copy_token_0001' });
    expect(copied.outlook.secret).toEqual({ kind: 'oauth', token: 'EwB-access-0001', refreshToken: 'M.C5-refresh-0001', expiresAt: 1_900_000_000_000 });
    expect(copied.hookSecret).toBe(hookSecret);
    expect(copied.events.map((e) => e.id)).toEqual([1, 3, 4, 5]);
    expect(copied.subscriptionSecrets).toEqual({ current: 'whsec_copied_secret_0001' });
    expect(await pg.subscriptions.verifiedCallback('', 'https://agent.example.net/mcp-events?s=1')).toBeUndefined();
    expect(copied.salesCache).toEqual([['ada@example.com', '{"name":"Ada"}']]);
    expect(await postgresAdapter.raw(target, 'SELECT count(*)::int AS n FROM leases')).toEqual([{ n: 0 }]);
    // The chain goes across whole: its key, head and records verify in the copy, and it goes on there.
    expect(await pg.audit.verify()).toEqual({ intact: true, records: 2, from: 1, through: 2 });
    await pg.audit.append([{ at: '2026-01-02T00:00:00.000Z', owner: '', auth: 'stdio', action: 'tool.call', outcome: 'ok' }]);
    expect(await pg.audit.verify()).toMatchObject({ intact: true, records: 3 });

    // New ids follow SQLite's: above every id it ever gave out, including the deleted newest one.
    const [next] = await pg.triggers.commit(ids.mail, { events: [ev('after-copy')] });
    expect(next!.id).toBe(7);
    expect((await pg.events.after(5, { limit: 10 })).map((e) => e.id)).toEqual([7]);
    const [forwarded] = await pg.triggers.commit(ids.forwarded, { events: [ev('after-copy-2')] });
    const due = await pg.work.claimDeliveries('test', 10, 60_000);
    expect(due.find((d) => d.event.id === forwarded!.id)?.id).toBe(5);
    expect(due.find((d) => d.subscription)?.subscription).toEqual({
      id: 'sub_copy', owner: PERSONAL_OWNER, name: 'github.new_issue', url: 'https://agent.example.net/mcp-events?s=1', secrets: ['whsec_copied_secret_0001'], refreshBefore: FAR_FUTURE, owedFrom: 4,
    });
    // Accounts added later list after the copied ones, as they would in SQLite.
    await pg.accounts.add({ provider: 'github', label: 'later', secret: { kind: 'token', token: 'ghp_later' } });
    expect((await pg.accounts.list({ provider: 'github' })).map((a) => a.label)).toEqual(['pat', 'later']);
  });

  it('refuses a second copy into the same database and changes nothing there', async () => {
    const source = await sqlite.location();
    const target = { ...(await postgresAdapter.location()), dataDir: source.dataDir };
    await seedSqlite(source);
    await copyStore(source.dataDir, target.databaseUrl!);
    const before = await targetRows(target);

    const error = await rejection(copyStore(source.dataDir, target.databaseUrl!));
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toMatch(/^The database postgres:\/\/switchboard:\*\*\*@127\.0\.0\.1:\d+\/sb_\w+ is not empty \(it holds accounts, triggers, hooks, events, .*\); copy into a new database/);
    expect(await targetRows(target)).toBe(before);
  });

  it('two copies into one database at once: one copies, the other is refused as the database is not empty', async () => {
    const [first, second] = [await sqlite.location(), await sqlite.location()];
    await seedSqlite(first);
    await seedSqlite(second);
    const target = await postgresAdapter.location();
    const outcomes = await Promise.allSettled([copyStore(first.dataDir, target.databaseUrl!), copyStore(second.dataDir, target.databaseUrl!)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason.message).toMatch(/is not empty/);
    expect(await postgresAdapter.raw(target, 'SELECT count(*)::int AS n FROM accounts')).toEqual([{ n: 2 }]);
  });

  it('refuses a database holding only an event cursor, and takes over a key check left by an instance that opened it empty', async () => {
    const source = await sqlite.location();
    const { ids } = await seedSqlite(source);
    const target = await postgresAdapter.location();
    const other = await openAt(target, { secretKey: 'another key' });
    await other.events.setCursor('early-tail', 0);
    const error = await rejection(copyStore(source.dataDir, target.databaseUrl!));
    expect(error.message).toMatch(/is not empty \(it holds consumers\)/);

    await postgresAdapter.raw(target, 'DELETE FROM consumers');
    await copyStore(source.dataDir, target.databaseUrl!);
    // The instance that opened it with another key may no longer write secrets; a new one needs the source's key.
    await expect(other.triggers.setSecrets(ids.forwarded, { forward: 'x' })).rejects.toThrow(/secret key of this store was changed/);
    await expect(openStore({ ...target, secretKey: 'another key' })).rejects.toThrow(/secret key does not match/);
    const pg = await openAt({ ...target, dataDir: source.dataDir });
    expect((await pg.accounts.resolve('github')).secret.token).toBe('ghp_copy_token_0001');
  });

  it('the copy opens only with the source key: another key fails the key check', async () => {
    const source = await sqlite.location();
    const target = { ...(await postgresAdapter.location()), dataDir: source.dataDir };
    await seedSqlite(source);
    await copyStore(source.dataDir, target.databaseUrl!);
    const error = await rejection(openStore({ ...target, secretKey: 'not the key of the copied store' }));
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toMatch(/secret key does not match the one the stored secrets in the database postgres:\/\/switchboard:\*\*\*@/);
  });

  it('refuses a key that does not open the source, before touching the target', async () => {
    const source = await sqlite.location();
    const target = await postgresAdapter.location();
    await seedSqlite(source);
    const error = await rejection(copyStore(source.dataDir, target.databaseUrl!, { secretKey: 'a wrong key' }));
    expect(error.message).toMatch(/secret key does not match .*switchboard\.db.*SWITCHBOARD_SECRET_KEY/);
    expect(await postgresAdapter.raw(target, "SELECT to_regclass('accounts') IS NULL AS untouched")).toEqual([{ untouched: true }]);
  });

  it('a failure part-way leaves the target as it was: one transaction', async () => {
    const source = await sqlite.location();
    const target = await postgresAdapter.location();
    await seedSqlite(source);
    // SQLite keeps any text; PostgreSQL's json column refuses this one, after accounts, triggers and hooks were written.
    await sqlite.raw(source, "UPDATE events SET payload_json = '{not json' WHERE id = 4");
    await expect(copyStore(source.dataDir, target.databaseUrl!)).rejects.toThrow(/json/i);
    // The audit chain's one row is made by the migration, before the copy's transaction.
    for (const table of COPIED_TABLES) expect(await postgresAdapter.raw(target, `SELECT count(*)::int AS n FROM ${table.name}`)).toEqual([{ n: table.name === 'audit_chain' ? 1 : 0 }]);
  });

  it('refuses while a server using the source is running', async () => {
    const source = await sqlite.location();
    const target = await postgresAdapter.location();
    await seedSqlite(source);
    const store = await openAt(source);
    await store.leases.acquire('instance:serve-1', 'serve-1', 60_000);
    const error = await rejection(copyStore(source.dataDir, target.databaseUrl!));
    expect(error.message).toMatch(/server is running on the store .* stop every switchboard serve/);
    expect(await postgresAdapter.raw(target, "SELECT to_regclass('accounts') IS NULL AS untouched")).toEqual([{ untouched: true }]);
  });

  it('refuses a source at an older schema, naming db migrate, and leaves it as it was', async () => {
    const source = await sqlite.location();
    const target = await postgresAdapter.location();
    await seedSqlite(source);
    await sqlite.raw(source, 'PRAGMA user_version = 6');
    const error = await rejection(copyStore(source.dataDir, target.databaseUrl!));
    expect(error.message).toMatch(/is at schema 6, this Switchboard's is \d+: bring it up to date with switchboard db migrate --data-dir /);
    const db = new Database(join(source.dataDir, DB_FILE_NAME), { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(6);
    db.close();
  });

  it('says there is no store to copy when the data dir has none', async () => {
    const source = await sqlite.location();
    const target = await postgresAdapter.location();
    const error = await rejection(copyStore(source.dataDir, target.databaseUrl!));
    expect(error.message).toMatch(/There is no SQLite store in .* nothing to copy\. Set --data-dir/);
    expect(existsSync(join(source.dataDir, DB_FILE_NAME))).toBe(false);
  });
});

describe('the copied tables cover the schema', () => {
  const tableNames = () => [...COPIED_TABLES.map((t) => t.name), ...Object.keys(SKIPPED_TABLES)].sort();

  it('every SQLite table is copied with all its columns, or left behind on purpose', async () => {
    const location = await sqlite.location();
    await openAt(location);
    const tables = await sqlite.raw(location, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
    expect(tables.map((t) => t.name).sort()).toEqual(tableNames());
    for (const table of COPIED_TABLES) {
      const columns = await sqlite.raw(location, `SELECT name FROM pragma_table_info('${table.name}')`);
      expect(columns.map((c) => c.name).sort(), table.name).toEqual([...table.columns].sort());
    }
  });

  it('every PostgreSQL table is copied or left behind on purpose, and has the copied columns', async () => {
    const location = await postgresAdapter.location();
    await openAt(location);
    const tables = await postgresAdapter.raw(location, "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'");
    expect(tables.map((t) => t.name).sort()).toEqual(tableNames());
    for (const table of COPIED_TABLES) {
      // Identity columns PostgreSQL adds for order (seq) are its own to fill; an identity id is copied.
      const columns = await postgresAdapter.raw(
        location,
        "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ? AND (is_identity = 'NO' OR column_name = 'id')",
        table.name,
      );
      expect(columns.map((c) => c.name).sort(), table.name).toEqual([...table.columns].sort());
    }
  });
});
