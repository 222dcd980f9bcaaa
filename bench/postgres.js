import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { startCluster } from '../test/postgres/cluster.js';

/**
 * A PostgreSQL server for a benchmark, started as the tests start theirs (test/postgres/cluster.js), removed by `stop`.
 * Unlike the tests' server it keeps PostgreSQL's durable defaults (fsync, synchronous_commit on): every commit waits
 * for its WAL to reach the disk, as in a deployment.
 */
export async function startPostgres() {
  const cluster = await startCluster({ durable: true, maxConnections: 200 });
  const admin = postgres(cluster.url(), { max: 1, onnotice: () => undefined });
  return {
    /** A new, empty database; its URL. */
    async database() {
      const name = `bench_${randomBytes(6).toString('hex')}`;
      await admin.unsafe(`CREATE DATABASE ${name}`);
      return cluster.url(name);
    },
    /** What the server runs with, for the report. */
    async settings() {
      const rows = await admin`SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'fsync', 'synchronous_commit', 'wal_sync_method')`;
      return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
    },
    async stop() {
      await admin.end({ timeout: 1 });
      await cluster.stop();
    },
  };
}
