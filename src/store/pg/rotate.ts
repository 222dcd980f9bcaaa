import { InputError } from '../../errors.js';
import { INSTANCE_LEASE_PREFIX } from '../types.js';
import { reencryptChainKey } from '../audit-chain.js';
import { newKeyCheck, reencryptSecret, SECRET_TABLES, SHORT_LIVED_TABLES, type Rekeying, type RotateCounts } from '../rekeying.js';
import { connect, connectionError, displayUrl, NOW_MS } from './connection.js';
import { openPgStore, type PgStoreOptions } from './index.js';

/** `secrets rotate` on a PostgreSQL store: the current key is proven by opening the store first. */
export async function openPgRekeying(options: PgStoreOptions): Promise<Rekeying> {
  const sql = connect(options.databaseUrl);
  try {
    const [{ found }] = await sql<[{ found: boolean }]>`SELECT to_regclass('meta') IS NOT NULL AS found`;
    if (!found) {
      throw new InputError(
        `There is no Switchboard store in the database ${displayUrl(options.databaseUrl)}: nothing to rotate. (Set SWITCHBOARD_DATABASE_URL or --database-url to the store's database.)`,
        'database-url',
      );
    }
    await (await openPgStore(options)).close();
  } catch (error) {
    await sql.end({ timeout: 0 });
    throw connectionError(error, options.databaseUrl);
  }
  return {
    async serverRunning() {
      const rows = await sql`SELECT 1 FROM leases WHERE name LIKE ${INSTANCE_LEASE_PREFIX + '%'} AND expires_at > ${sql.unsafe(NOW_MS)}`;
      return rows.length > 0;
    },
    async reencrypt(from, to) {
      return (await sql.begin(async (tx) => {
        // Taken before the secrets are read: a secret written meanwhile (under the key check's share lock) is
        // committed first and re-encrypted here; one written after waits, then finds the key changed.
        await tx`SELECT value FROM meta WHERE key = 'key_check' FOR UPDATE`;
        const counts: number[] = [];
        for (const [table, what] of SECRET_TABLES) {
          const rows = await tx<Array<{ id: string; secret_enc: string }>>`
            SELECT id, secret_enc FROM ${tx(table)} WHERE secret_enc IS NOT NULL FOR UPDATE`;
          for (const row of rows) await tx`UPDATE ${tx(table)} SET secret_enc = ${reencryptSecret(row, what, from, to)} WHERE id = ${row.id}`;
          counts.push(rows.length);
        }
        const salesCache = (await tx`DELETE FROM sales_cache`).count;
        const [chain] = await tx<Array<{ key_enc: string | null }>>`SELECT key_enc FROM audit_chain WHERE id = 1 FOR UPDATE`;
        if (chain?.key_enc) await tx`UPDATE audit_chain SET key_enc = ${reencryptChainKey(chain.key_enc, from, to)} WHERE id = 1`;
        for (const table of SHORT_LIVED_TABLES) await tx`DELETE FROM ${tx(table)}`;
        await tx`UPDATE meta SET value = ${newKeyCheck(to)} WHERE key = 'key_check'`;
        const [accounts, triggers, hooks, subscriptions] = counts;
        return { accounts: accounts!, triggers: triggers!, hooks: hooks!, subscriptions: subscriptions!, salesCache };
      })) as RotateCounts;
    },
    close: () => sql.end({ timeout: 5 }),
  };
}
