import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';

/** The test run's server (started by test/pg-global.ts), reached on its maintenance database. */
let admin: postgres.Sql | undefined;

function server(): postgres.Sql {
  admin ??= postgres(inject('postgresUrl'), { max: 2, onnotice: () => undefined });
  return admin;
}

export interface TestDatabase {
  url: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

/** A new, empty database on the test run's PostgreSQL server. */
export async function freshDatabase(): Promise<TestDatabase> {
  const name = `sb_${randomBytes(6).toString('hex')}`;
  // FILE_COPY copies the small template directly instead of logging every page: faster for many tiny databases.
  await server().unsafe(`CREATE DATABASE ${name} STRATEGY FILE_COPY`);
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await server().unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** A connection of the test's own to a database, for what the store contract does not offer (reading raw rows); bigints as numbers, as the store reads them. */
export function connect(url: string) {
  return postgres(url, {
    max: 4,
    onnotice: () => undefined,
    types: { bigint: { to: 20, from: [20], serialize: (value: number) => String(value), parse: (text: string) => Number(text) } },
  });
}
