import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Tests that start processes wait for them; a loaded machine (CI shares its cores) can take longer than 5 s.
    testTimeout: 30_000,
    // Most tests wait on the processes and sockets they start, so even two cores run two files at once (vitest's
    // default would be one here): the suite took 1,181 s with one worker and 759 s with two.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    hookTimeout: 30_000,
    setupFiles: ['test/setup.ts'],
    // One PostgreSQL server for the run: the store's tests run against it as well as against SQLite.
    globalSetup: ['test/pg-global.ts'],
  },
});
