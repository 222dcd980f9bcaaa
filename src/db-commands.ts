import type { Config } from './config.js';
import { InputError } from './errors.js';
import { join } from 'node:path';
import { backupSqlite, copyStore, migrateStore, restoreSqlite, SKIPPED_TABLES, type CopyResult, type StoreCounts } from './store/index.js';

/** `switchboard db migrate`: what it did, in one line. */
export async function migrateCommand(config: Config): Promise<string> {
  const r = await migrateStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  return r.from === r.to ? `${r.store}: already at schema ${r.to}; nothing to do.` : `${r.store}: schema ${r.from} → ${r.to}.`;
}

/** `switchboard db copy --to URL`: the data dir's SQLite store into that PostgreSQL database; what was copied, and what the instances need. */
export async function copyCommand(config: Config, to: string): Promise<string> {
  const r = await copyStore(config.dataDir, checkTargetUrl(to), { secretKey: config.secretKey });
  const width = Math.max(...Object.keys(r.counts).map((name) => name.length));
  return [
    `Copied the SQLite store ${r.from} into PostgreSQL ${r.to} (schema ${r.schema}), in one transaction:`,
    ...Object.entries(r.counts).map(([table, count]) => `  ${table.padEnd(width)}  ${count}`),
    ...Object.entries(SKIPPED_TABLES).map(([table, why]) => `Not copied: ${table} (${why}).`),
    keyAdvice(r.key),
    `Run Switchboard with SWITCHBOARD_DATABASE_URL set to that database to use it. ${r.from} was not changed; keep it as a backup.`,
  ].join('\n');
}

/** `switchboard db backup --to FILE`: a consistent copy of the SQLite store, taken while servers run; what it holds, and which key it needs. */
export async function backupCommand(config: Config, to: string, force: boolean): Promise<string> {
  refusePostgres(config, 'backup');
  const r = await backupSqlite(config.dataDir, to, { force });
  return [
    `Backed up the SQLite store ${r.from} (schema ${r.schema}) to ${r.to} (${Math.ceil(r.bytes / 1024)} KiB), one consistent copy:`,
    ...countLines(r.counts),
    `The secrets in it are still encrypted: keep the key with the backup, ${keyWhere(config)}; without it the accounts cannot be read.`,
    `To restore it: switchboard db restore --from ${r.to}`,
  ].join('\n');
}

/** `switchboard db restore --from FILE`: a backup made the data dir's store; what it holds now. */
export async function restoreCommand(config: Config, from: string, force: boolean): Promise<string> {
  refusePostgres(config, 'restore');
  const r = await restoreSqlite(config.dataDir, from, { secretKey: config.secretKey, force });
  const migrated = r.schema.from === r.schema.to ? `schema ${r.schema.to}` : `schema ${r.schema.from} → ${r.schema.to}, migrated`;
  return [
    `Restored ${r.from} into ${r.to} (${migrated}):`,
    ...countLines(r.counts),
    ...(r.replaced ? [`It replaced a store that held ${r.replaced.accounts} account(s), ${r.replaced.triggers} trigger(s) and ${r.replaced.events} event(s).`] : []),
    'Start switchboard serve on this data directory with the same key.',
  ].join('\n');
}

function countLines(counts: StoreCounts): string[] {
  return Object.entries(counts).map(([table, count]) => `  ${table.padEnd(8)}  ${count}`);
}

function keyWhere(config: Config): string {
  if (config.secretKeyCommand) return 'the key SWITCHBOARD_SECRET_KEY_COMMAND prints';
  if (config.secretKey) return 'the SWITCHBOARD_SECRET_KEY used here';
  return `a copy of the key file ${join(config.dataDir, 'secret.key')} (or that key in SWITCHBOARD_SECRET_KEY where it is restored)`;
}

function refusePostgres(config: Config, command: 'backup' | 'restore'): void {
  if (!config.databaseUrl) return;
  const tool = command === 'backup' ? 'pg_dump' : 'pg_restore';
  throw new InputError(
    `db ${command} works on the SQLite store of a data directory, and this store is PostgreSQL (SWITCHBOARD_DATABASE_URL or --database-url): ` +
      `use ${tool}, and keep the key with the dump (docs/accounts.md, "Backups and restores"). Nothing was done.`,
    'database-url',
  );
}

function keyAdvice(key: CopyResult['key']): string {
  if (!key) return 'The store held no secrets yet: the first instance to open the PostgreSQL store sets its key.';
  const head = 'The secrets were copied still encrypted: every instance using the PostgreSQL store needs the same key,';
  return key.source === 'secretKey'
    ? `${head} the SWITCHBOARD_SECRET_KEY used here.`
    : `${head} the one in ${key.keyFile}: copy that file into each instance's data directory, or set SWITCHBOARD_SECRET_KEY to its contents.`;
}

/** --to names a PostgreSQL database; the value is never repeated, as it may hold a password. */
function checkTargetUrl(value: string): string {
  const fix = 'give --to a PostgreSQL URL such as postgres://USER:PASSWORD@HOST:5432/DATABASE (postgres:// or postgresql://)';
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new InputError(`--to is not a URL: ${fix}.`, 'to');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw new InputError(`--to must be a postgres:// or postgresql:// URL, not ${url.protocol}//: ${fix}.`, 'to');
  if (!url.hostname || url.pathname.length <= 1) throw new InputError(`--to must name a host and a database: ${fix}.`, 'to');
  return value.trim();
}
