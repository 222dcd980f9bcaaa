import { mkdirSync } from 'node:fs';
import type { Redactor } from '../../redact.js';
import { assembleStore, type StoreParts } from '../assemble.js';
import { checkKey, KEY_ROTATED_MESSAGE, KeyRotatedError, type KeyCheckRecord } from '../key-check.js';
import type { Store } from '../types.js';
import { pgAudit } from './audit.js';
import { PgAccountStore } from './accounts.js';
import { connect, connectionError, displayUrl, passwordOf, type Sql, type Tx } from './connection.js';
import { PgEventStore } from './events.js';
import { PgHookStore } from './hooks.js';
import { pgProbe } from './health.js';
import { pgLeases } from './leases.js';
import { migrate, PG_MIGRATIONS } from './migrations.js';
import { pgBudgets } from './budgets.js';
import { pgSalesCache } from './sales-cache.js';
import { pgContinuations, pgSignIns, pgWebSessions } from './short-lived.js';
import { pgTeam } from './team.js';
import { pgApprovals, pgPolicy } from './governance.js';
import { PgSubscriptionStore } from './subscriptions.js';
import { PgTriggerStore } from './triggers.js';
import { PgWorkStore } from './work.js';

export interface PgStoreOptions {
  databaseUrl: string;
  /** Holds the key file when `secretKey` is not given. */
  dataDir: string;
  secretKey?: string;
  redactor?: Redactor;
}

/** The store in a PostgreSQL database, which any number of instances may share. */
export async function openPgStore(options: PgStoreOptions): Promise<Store> {
  options.redactor?.add(passwordOf(options.databaseUrl));
  const sql = connect(options.databaseUrl);
  try {
    await migrate(sql);
    // The key file, when there is one, lives in the data dir as it does beside a SQLite store.
    if (!options.secretKey?.trim()) mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    const { key, check } = await checkKey(keyCheckRecord(sql, options.databaseUrl), options);
    const guard = keyGuard(check);
    const touched = new Map<string, number>();
    const parts: StoreParts = {
      probe: pgProbe(sql, options.databaseUrl, PG_MIGRATIONS.at(-1)?.version ?? 0),
      hooks: new PgHookStore(sql, key, guard),
      work: new PgWorkStore(sql, key),
      leases: pgLeases(sql),
      signIns: pgSignIns(sql, key, guard),
      webSessions: pgWebSessions(sql, key, guard),
      continuations: pgContinuations(sql, key, guard),
      team: pgTeam(sql, key, guard),
      salesCache: pgSalesCache(sql, key, guard),
      budgets: pgBudgets(sql),
      policy: pgPolicy(sql),
      approvals: pgApprovals(sql, key),
      audit: pgAudit(sql, key),
      owned: (owner) => ({
        accounts: new PgAccountStore(sql, key, options.redactor, guard, owner, touched),
        triggers: new PgTriggerStore(sql, key, guard, Date.now, owner),
        events: new PgEventStore(sql, key, Date.now, owner),
        subscriptions: new PgSubscriptionStore(sql, key, guard, Date.now, owner),
      }),
      async close() {
        await sql.end({ timeout: 5 });
      },
    };
    return assembleStore(parts);
  } catch (error) {
    await sql.end({ timeout: 0 });
    throw connectionError(error, options.databaseUrl);
  }
}

function keyCheckRecord(sql: Sql, url: string): KeyCheckRecord {
  return {
    where: `the database ${displayUrl(url)}`,
    read: async () => (await sql<{ value: string }[]>`SELECT value FROM meta WHERE key = 'key_check'`)[0]?.value,
    insertIfAbsent: async (check) => void (await sql`INSERT INTO meta (key, value) VALUES ('key_check', ${check}) ON CONFLICT (key) DO NOTHING`),
  };
}

/**
 * Secret writes first check, in their own transaction, that the key check is still the one this process opened
 * with; the row stays share-locked until they commit, so a rotation cannot slip in between.
 */
function keyGuard(check: string): (tx: Tx) => Promise<void> {
  return async (tx) => {
    const [row] = await tx<{ value: string }[]>`SELECT value FROM meta WHERE key = 'key_check' FOR SHARE`;
    if (row?.value !== check) throw new KeyRotatedError(KEY_ROTATED_MESSAGE);
  };
}
