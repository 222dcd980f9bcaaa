import type Database from 'better-sqlite3';
import type { BudgetUsageStore, UsageRow } from '../types.js';

interface Row {
  owner: string;
  account_id: string;
  meter: UsageRow['meter'];
  window_start: string;
  used: number;
  updated_at: string;
}

const toUsage = (row: Row): UsageRow => ({ owner: row.owner, accountId: row.account_id, meter: row.meter, windowStart: row.window_start, used: row.used, updatedAt: row.updated_at });

export function sqliteBudgets(db: Database.Database, clock: () => number = Date.now): BudgetUsageStore {
  // Inserts the first use of a window, or adds to it, only while the total stays within the limit.
  const take = db.prepare(
    `INSERT INTO budget_usage (owner, account_id, meter, window_start, used, updated_at)
     SELECT @owner, @accountId, @meter, @windowStart, @amount, @now WHERE @amount <= @limit
     ON CONFLICT (owner, account_id, meter, window_start) DO UPDATE SET used = used + excluded.used, updated_at = excluded.updated_at
     WHERE budget_usage.used + excluded.used <= @limit
     RETURNING used`,
  );
  const add = db.prepare(
    `INSERT INTO budget_usage (owner, account_id, meter, window_start, used, updated_at) VALUES (@owner, @accountId, @meter, @windowStart, MAX(0, @amount), @now)
     ON CONFLICT (owner, account_id, meter, window_start) DO UPDATE SET used = MAX(0, used + @amount), updated_at = excluded.updated_at`,
  );
  const current = db.prepare('SELECT used FROM budget_usage WHERE owner = @owner AND account_id = @accountId AND meter = @meter AND window_start = @windowStart');
  const now = () => new Date(clock()).toISOString();
  return {
    async take(key, amount, limit) {
      const row = take.get({ ...key, amount, limit, now: now() }) as { used: number } | undefined;
      if (row) return { taken: true, used: row.used };
      return { taken: false, used: (current.get(key) as { used: number } | undefined)?.used ?? 0 };
    },
    async add(key, amount) {
      add.run({ ...key, amount, now: now() });
    },
    async list({ since, owner }) {
      const rows = db
        .prepare(`SELECT * FROM budget_usage WHERE window_start >= ? ${owner === undefined ? '' : 'AND owner = ?'} ORDER BY owner, account_id, meter, window_start`)
        .all(...(owner === undefined ? [since] : [since, owner])) as Row[];
      return rows.map(toUsage);
    },
    async prune(before) {
      return db.prepare('DELETE FROM budget_usage WHERE window_start < ?').run(before).changes;
    },
  };
}
