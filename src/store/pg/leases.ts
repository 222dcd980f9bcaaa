import type { LeaseStore } from '../types.js';
import type { Sql } from './connection.js';

export function pgLeases(sql: Sql): LeaseStore {
  return {
    /** Without `now`, on the database's clock, so instances on machines whose clocks differ still agree on expiry. */
    async acquire(name, holder, ttlMs, now) {
      const rows = await sql`
        WITH now AS (SELECT COALESCE(${now ?? null}::bigint, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) AS ms)
        INSERT INTO leases (name, holder, expires_at) SELECT ${name}, ${holder}, ms + ${ttlMs} FROM now
        ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
        WHERE leases.holder = excluded.holder OR leases.expires_at < (SELECT ms FROM now)
        RETURNING holder`;
      return rows.length === 1;
    },
    async release(name, holder) {
      await sql`DELETE FROM leases WHERE name = ${name} AND holder = ${holder}`;
    },
  };
}
