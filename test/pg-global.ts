import type { TestProject } from 'vitest/node';
import { PostgresUnavailableError, startCluster } from './postgres/cluster.js';

export { freePort } from './postgres/cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test run's PostgreSQL server (its maintenance database); test/pg.ts makes a fresh database on it per store. */
    postgresUrl: string;
  }
}

/**
 * One PostgreSQL server for the whole test run (test/postgres/cluster.js): a fresh cluster in a temporary directory,
 * on 127.0.0.1 at a free port, gone when the run ends.
 */
export default async function startPostgres(project: TestProject): Promise<() => Promise<void>> {
  try {
    const cluster = await startCluster({ maxConnections: 300 });
    project.provide('postgresUrl', cluster.url());
    return () => cluster.stop();
  } catch (error) {
    if (!(error instanceof PostgresUnavailableError)) throw error;
    // The message says the cause and the fix. Thrown, vitest would frame it as an unhandled error after "No test files
    // found", which buries it; the run ends here instead, before any test.
    process.stderr.write(`\n${error.message}\nThe tests need it: the store's tests run against SQLite and PostgreSQL. No test was run.\n`);
    process.exit(1);
  }
}
