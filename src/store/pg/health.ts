import { StoreUnavailableError } from '../../errors.js';
import type { StoreProbe } from '../health.js';
import { displayUrl, POOL_SIZE, reasonOf, type Sql } from './connection.js';

const NAMES_THE_DATABASE = "The server's log names the database.";

/** PostgreSQL's error as what it says of the store: unreachable, or holding damaged data; undefined for any other. */
export function pgStoreError(error: unknown, url: string): StoreUnavailableError | undefined {
  if (error instanceof StoreUnavailableError) return error;
  const code = (error as { code?: unknown })?.code;
  // data_corrupted, index_corrupted
  if (code === 'XX001' || code === 'XX002') {
    return new StoreUnavailableError(
      `The PostgreSQL database ${displayUrl(url)} reports damaged data (${(error as Error).message}, ${code}). Restore it from a backup (or REINDEX a damaged index), then restart the server.`,
      'intact',
      `The PostgreSQL store reports damaged data (${code}): restore it from a backup, then restart the server. ${NAMES_THE_DATABASE}`,
      'database-url',
    );
  }
  const known = reasonOf(error);
  if (!known) return undefined;
  return new StoreUnavailableError(
    `Cannot use the PostgreSQL database ${displayUrl(url)}: ${known.reason} (${known.code}).`,
    'reachable',
    `The PostgreSQL store cannot be used: ${known.reason} (${known.code}). ${NAMES_THE_DATABASE}`,
    'database-url',
  );
}

/** Both checks are one query: the database answers, and its newest migration is this version's. */
export function pgProbe(sql: Sql, url: string, newest: number): StoreProbe {
  const check = async () => {
    const [row] = await sql<{ current: number }[]>`SELECT COALESCE(max(version), 0)::int AS current FROM schema_migrations`;
    const current = row?.current ?? 0;
    if (current === newest) return;
    const newer = current > newest;
    throw new StoreUnavailableError(
      newer
        ? `The PostgreSQL database ${displayUrl(url)} now has schema ${current}, migrated by a newer Switchboard; this server knows ${newest}. Upgrade this server and restart it.`
        : `The PostgreSQL database ${displayUrl(url)} has schema ${current}, older than this server's ${newest}. Restart the server to bring it up to date (or run switchboard db migrate).`,
      'schema',
      newer
        ? `The PostgreSQL store's schema (${current}) is newer than this server's (${newest}): upgrade this server and restart it.`
        : `The PostgreSQL store's schema (${current}) is older than this server's (${newest}): restart the server, or run switchboard db migrate.`,
      'database-url',
    );
  };
  return {
    poolSize: POOL_SIZE,
    thorough: check,
    cheap: check,
    classify: (error) => pgStoreError(error, url),
    unanswered: (detail) =>
      new StoreUnavailableError(
        `The PostgreSQL database ${displayUrl(url)} did not pass its health check (${detail}): check the server and the network.`,
        'reachable',
        `The PostgreSQL store did not pass its health check: check the server and the network. ${NAMES_THE_DATABASE}`,
        'database-url',
      ),
  };
}
