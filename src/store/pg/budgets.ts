import type { BudgetUsageStore, UsageRow } from '../types.js';
import type { Sql } from './connection.js';

interface Row {
  owner: string;
  account_id: string;
  meter: UsageRow['meter'];
  window_start: string;
  used: string | number;
  updated_at: string;
}

const toUsage = (row: Row): UsageRow => ({ owner: row.owner, accountId: row.account_id, meter: row.meter, windowStart: row.window_start, used: Number(row.used), updatedAt: row.updated_at });

/** The same counters as the SQLite store; ON CONFLICT locks the row, so the limit holds across instances. */
export function pgBudgets(sql: Sql, clock: () => number = Date.now): BudgetUsageStore {
  const now = () => new Date(clock()).toISOString();
  return {
    async take(key, amount, limit) {
      const [row] = await sql<{ used: string }[]>`
        INSERT INTO budget_usage (owner, account_id, meter, window_start, used, updated_at)
        SELECT ${key.owner}, ${key.accountId}, ${key.meter}, ${key.windowStart}, ${amount}, ${now()} WHERE ${amount}::bigint <= ${limit}::bigint
        ON CONFLICT (owner, account_id, meter, window_start) DO UPDATE SET used = budget_usage.used + excluded.used, updated_at = excluded.updated_at
        WHERE budget_usage.used + excluded.used <= ${limit}::bigint
        RETURNING used`;
      if (row) return { taken: true, used: Number(row.used) };
      const [found] = await sql<{ used: string }[]>`
        SELECT used FROM budget_usage WHERE owner = ${key.owner} AND account_id = ${key.accountId} AND meter = ${key.meter} AND window_start = ${key.windowStart}`;
      return { taken: false, used: Number(found?.used ?? 0) };
    },
    async add(key, amount) {
      await sql`
        INSERT INTO budget_usage (owner, account_id, meter, window_start, used, updated_at)
        VALUES (${key.owner}, ${key.accountId}, ${key.meter}, ${key.windowStart}, GREATEST(0, ${amount}::bigint), ${now()})
        ON CONFLICT (owner, account_id, meter, window_start) DO UPDATE SET used = GREATEST(0, budget_usage.used + ${amount}::bigint), updated_at = excluded.updated_at`;
    },
    async list({ since, owner }) {
      const rows = await sql<Row[]>`
        SELECT * FROM budget_usage WHERE window_start >= ${since} ${owner === undefined ? sql`` : sql`AND owner = ${owner}`}
        ORDER BY owner, account_id, meter, window_start`;
      return rows.map(toUsage);
    },
    async prune(before) {
      return (await sql`DELETE FROM budget_usage WHERE window_start < ${before}`).count;
    },
  };
}
