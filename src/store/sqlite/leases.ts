import type Database from 'better-sqlite3';
import type { LeaseStore } from '../types.js';

export function sqliteLeases(db: Database.Database, clock: () => number = Date.now): LeaseStore {
  return {
    async acquire(name, holder, ttlMs, now = clock()) {
      const take = db.transaction(() => {
        db.prepare(
          `INSERT INTO leases (name, holder, expires_at) VALUES (@name, @holder, @expires)
           ON CONFLICT (name) DO UPDATE SET holder = @holder, expires_at = @expires
           WHERE leases.holder = @holder OR leases.expires_at < @now`,
        ).run({ name, holder, expires: now + ttlMs, now });
        const row = db.prepare('SELECT holder FROM leases WHERE name = ?').get(name) as { holder: string };
        return row.holder === holder;
      });
      return take.immediate();
    },
    async release(name, holder) {
      db.prepare('DELETE FROM leases WHERE name = ? AND holder = ?').run(name, holder);
    },
  };
}
