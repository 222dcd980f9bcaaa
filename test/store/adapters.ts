import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type postgres from 'postgres';
import type { Redactor } from '../../src/redact.js';
import { DB_FILE_NAME, openStore, type Store } from '../../src/store/index.js';
import { connect, freshDatabase } from '../pg.js';

/** The PostgreSQL adapter's migrations, for tests that name its newest schema. */
export { PG_MIGRATIONS } from '../../src/store/pg/migrations.js';

/** Where one store lives: its data dir (the key file, and the SQLite file) and, for PostgreSQL, its database. */
export interface StoreLocation {
  dataDir: string;
  databaseUrl?: string;
}

export interface Adapter {
  name: 'sqlite' | 'postgres';
  /** A new, empty place for a store, removed after the test (with `cleanUp`). */
  location(): Promise<StoreLocation>;
  /**
   * SQL sent straight to the store's database, for what the contract does not offer (tampering, back-dating):
   * `?` marks the parameters, and the SQL must read the same in SQLite and PostgreSQL.
   */
  raw(location: StoreLocation, sql: string, ...params: unknown[]): Promise<Record<string, any>[]>;
}

const cleanups: Array<() => Promise<void> | void> = [];
const rawConnections = new Map<string, { query(sql: string, params: unknown[]): Promise<Record<string, any>[]> }>();

/** Closes the stores `openAt` opened and removes the places `location` made; call it in afterEach. */
export async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}

/** Opens a store at `location`, closed by `cleanUp`. */
export async function openAt(location: StoreLocation, options: { secretKey?: string; redactor?: Redactor } = {}): Promise<Store> {
  const store = await openStore({ ...location, ...options });
  cleanups.push(() => store.close());
  return store;
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-store-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function rawConnection(key: string, open: () => { query(sql: string, params: unknown[]): Promise<Record<string, any>[]>; close(): Promise<void> | void }) {
  let connection = rawConnections.get(key);
  if (!connection) {
    const opened = open();
    cleanups.push(() => {
      rawConnections.delete(key);
      return opened.close();
    });
    rawConnections.set(key, (connection = opened));
  }
  return connection;
}

export const sqlite: Adapter = {
  name: 'sqlite',
  async location() {
    return { dataDir: tempDir() };
  },
  raw(location, sql, ...params) {
    const file = join(location.dataDir, DB_FILE_NAME);
    const connection = rawConnection(file, () => {
      const db = new Database(file);
      return {
        query: async (text, values) => {
          const statement = db.prepare(text);
          return statement.reader ? (statement.all(...values) as Record<string, any>[]) : (statement.run(...values), []);
        },
        close: () => void db.close(),
      };
    });
    return connection.query(sql, params);
  },
};

export const postgresAdapter: Adapter = {
  name: 'postgres',
  async location() {
    const dataDir = tempDir();
    const database = await freshDatabase();
    cleanups.push(() => database.drop());
    return { dataDir, databaseUrl: database.url };
  },
  raw(location, sql, ...params) {
    const connection = rawConnection(location.databaseUrl!, () => {
      const db: postgres.Sql<any> = connect(location.databaseUrl!);
      return {
        query: async (text, values) => {
          let n = 0;
          return [...(await db.unsafe(text.replace(/\?/g, () => `$${++n}`), values as never[]))];
        },
        close: () => db.end({ timeout: 1 }),
      };
    });
    return connection.query(sql, params);
  },
};

export const ADAPTERS: Adapter[] = [sqlite, postgresAdapter];
