import postgres from 'postgres';
import { InputError } from '../../errors.js';

/**
 * bigint columns (ids, epoch milliseconds) come back as numbers: they stay far below 2^53. json columns come back as
 * their text, as SQLite's do, so both adapters read rows the same way (src/store/rows.ts).
 */
const types = {
  bigint: { to: 20, from: [20], serialize: (value: number) => String(value), parse: (text: string) => Number(text) },
  json: { to: 114, from: [114], serialize: (text: string) => text, parse: (text: string) => text },
};

export type Sql = postgres.Sql<{ bigint: number; json: string }>;
export type Tx = postgres.TransactionSql<{ bigint: number; json: string }>;
/** A connection or a transaction: whatever a query can run on. */
export type Queryable = Sql | Tx;

/*
 * JSON goes into json columns as `${JSON.stringify(value)}::text::json`: sent as text, it is kept as written (key
 * order included). A string parameter described as json would be encoded a second time, and a JS object is
 * sent as jsonb, which reorders keys.
 */

/** Advisory lock keys, as (space, key) pairs: the space keeps them apart from other applications' locks. */
export const LOCK_SPACE = 0x73776264;
export const LOCKS = { migrations: 1, eventLog: 2 } as const;

/** NOTIFY channel of commits to the event log; a notification carries nothing, listeners read the log. */
export const COMMITS_CHANNEL = 'switchboard_events';

/** The database's clock in epoch milliseconds, so instances whose machine clocks differ agree on expiries. */
export const NOW_MS = 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/** How many connections one process opens to the database at most. */
export const POOL_SIZE = 10;

/** A pool of connections to the database at `url`; nothing is sent until the first query. */
export function connect(url: string): Sql {
  return postgres(url, {
    max: POOL_SIZE,
    connect_timeout: 10,
    idle_timeout: 60,
    onnotice: () => undefined,
    types,
    connection: { application_name: 'switchboard' },
  });
}

/** The URL as a person may see it: without its password. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return 'the configured PostgreSQL URL';
  }
}

/** The password in the URL, to keep out of every log and message. */
export function passwordOf(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).password) || undefined;
  } catch {
    return undefined;
  }
}

const CLOSED = 'the server closed the connection: check that it is running and reachable';
/** Why the database cannot be reached or used, by error code: what to do. */
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'nothing answers at that host and port: start the server, or correct the host and port',
  ENOTFOUND: 'the host name does not resolve: correct the host',
  EAI_AGAIN: 'the host name could not be resolved just now: check the name service, then retry',
  ETIMEDOUT: 'the server did not answer in time: check the host, port and firewall',
  CONNECT_TIMEOUT: 'the server did not answer in time: check the host, port and firewall',
  EHOSTUNREACH: 'there is no route to the host: check the host and the network',
  ENETUNREACH: 'there is no route to the host: check the host and the network',
  ECONNRESET: CLOSED,
  EPIPE: CLOSED,
  CONNECTION_CLOSED: CLOSED,
  CONNECTION_DESTROYED: CLOSED,
  '28P01': 'the server refused the user name or password: correct them',
  '28000': 'the server does not let this user connect from here (pg_hba.conf): allow it, or use another user',
  '3D000': 'the database does not exist: create it (createdb), or name an existing one',
  '42501': 'this user lacks a privilege the store needs (creating its tables): grant it, or use the database owner',
  '53300': 'the server has no connection left for this one (too many connections): raise max_connections, or run fewer instances',
  '57P01': 'the server is shutting down: start it again, or wait for its replacement',
  '57P02': 'the server is restarting after a crash: wait for it, or check its log',
  '57P03': 'the server is starting, stopping or recovering and takes no connections: wait for it',
};

/** Why the database cannot be reached or used, when the error code says so. */
export function reasonOf(error: unknown): { code: string; reason: string } | undefined {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string') return undefined;
  // SQLSTATE class 08: connection exceptions.
  const reason = REASONS[code] ?? (/^08[0-9A-Z]{3}$/.test(code) ? 'the connection to the server failed: check the server and the network' : undefined);
  return reason ? { code, reason } : undefined;
}

/** A failure to reach or set up the database, as a message that names the setting and the fix (never the password). */
export function connectionError(error: unknown, url: string, setting: 'database-url' | 'to' = 'database-url'): Error {
  const { code, reason } = reasonOf(error) ?? {};
  if (!reason) return error as Error;
  const setBy = setting === 'to' ? 'It is given by --to.' : 'It is set by SWITCHBOARD_DATABASE_URL or --database-url.';
  return new InputError(`Cannot use the PostgreSQL database ${displayUrl(url)}: ${reason} (${code}). ${setBy}`, setting);
}
