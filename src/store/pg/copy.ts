import { InputError } from '../../errors.js';
import type { CopiedTable, CopySource } from '../copy-tables.js';
import { connect, connectionError, displayUrl, type Tx } from './connection.js';
import { migrate } from './migrations.js';
import { lockEventLog } from './triggers.js';

/** The PostgreSQL side of `db copy`: migrates the target, then writes every row of the source in one transaction. */
export async function copyInto(url: string, source: CopySource): Promise<{ to: string; schema: number; counts: Record<string, number> }> {
  const sql = connect(url);
  try {
    const { to: schema } = await migrate(sql);
    const counts = await sql.begin(async (tx) => {
      // An instance on the empty database adds no account meanwhile, and appends no event; a second copy waits
      // here for the first, then finds its rows and is refused.
      await tx`LOCK TABLE accounts IN SHARE ROW EXCLUSIVE MODE`;
      await lockEventLog(tx);
      await refuseUnlessEmpty(tx, url, source.tables);
      const counts: Record<string, number> = {};
      for (const table of source.tables) counts[table.name] = await copyTable(tx, table, source);
      return counts;
    });
    return { to: displayUrl(url), schema, counts: counts as Record<string, number> };
  } catch (error) {
    throw connectionError(error, url, 'to');
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function refuseUnlessEmpty(tx: Tx, url: string, tables: readonly CopiedTable[]): Promise<void> {
  const holding: string[] = [];
  for (const table of tables) {
    if (table.replaceOn) continue;
    const [{ held }] = await tx.unsafe<[{ held: boolean }]>(`SELECT EXISTS (SELECT 1 FROM ${table.name}) AS held`);
    if (held) holding.push(table.name);
  }
  if (!holding.length) return;
  throw new InputError(
    `The database ${displayUrl(url)} is not empty (it holds ${holding.join(', ')}); copy into a new database (createdb NAME, then --to …/NAME). Nothing was copied.`,
    'to',
  );
}

async function copyTable(tx: Tx, table: CopiedTable, source: CopySource): Promise<number> {
  const width = table.columns.length;
  const replace = table.replaceOn
    ? ` ON CONFLICT (${table.replaceOn}) DO UPDATE SET ${table.columns.map((c) => `${c} = excluded.${c}`).join(', ')}`
    : '';
  let copied = 0;
  let highestId = 0;
  for (const rows of source.batches(table)) {
    const values = rows.map((_, r) => `(${table.columns.map((_, c) => `$${r * width + c + 1}`).join(', ')})`).join(', ');
    const parameters = rows.flatMap((row) => table.columns.map((column) => row[column] ?? null));
    // Names come from the fixed table list, never from input. The ids are kept, identity columns included.
    await tx.unsafe(`INSERT INTO ${table.name} (${table.columns.join(', ')}) OVERRIDING SYSTEM VALUE VALUES ${values}${replace}`, parameters as never[]).catch((error: Error & { code?: string }) => {
      // A row PostgreSQL refuses (text SQLite kept in a json column): which table, and that nothing was written.
      throw Object.assign(new Error(`PostgreSQL refused a row of ${table.name}: ${error.message}. Nothing was copied.`), { code: error.code });
    });
    copied += rows.length;
    if (table.identity) highestId = Math.max(highestId, ...rows.map((row) => row.id as number));
  }
  const last = Math.max(highestId, table.identity ? source.lastId(table) : 0);
  if (last > 0) await tx`SELECT setval(pg_get_serial_sequence(${table.name}, 'id'), ${last})`;
  return copied;
}
