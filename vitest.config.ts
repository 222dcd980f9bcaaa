import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Tests that start processes wait for them; a loaded machine (CI shares its cores) can take longer than 5 s.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    setupFiles: ['test/setup.ts'],
    // One PostgreSQL server for the run: the store's tests run against it as well as against SQLite.
    globalSetup: ['test/pg-global.ts'],
  },
});
