import type { Config } from './config.js';
import { InputError } from './errors.js';
import { copyStore, migrateStore, SKIPPED_TABLES, type CopyResult } from './store/index.js';

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
