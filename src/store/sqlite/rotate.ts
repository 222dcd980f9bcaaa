import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { InputError } from '../../errors.js';
import { reencryptChainKey } from '../audit-chain.js';
import { newKeyCheck, reencryptSecret, SECRET_TABLES, SHORT_LIVED_TABLES, type Rekeying, type RotateCounts } from '../rekeying.js';
import { INSTANCE_LEASE_PREFIX } from '../types.js';
import { DB_FILE_NAME } from './database.js';
import { openSqliteStore } from './index.js';

/** `secrets rotate` on a SQLite store: the current key is proven by opening the store first. */
export async function openSqliteRekeying(o: { dataDir: string; secretKey?: string }): Promise<Rekeying> {
  if (!existsSync(join(o.dataDir, DB_FILE_NAME))) {
    throw new InputError(`There is no Switchboard store in ${o.dataDir}: nothing to rotate. (Set --data-dir or SWITCHBOARD_DATA_DIR to the store's directory.)`, 'data-dir');
  }
  const store = await openSqliteStore({ dataDir: o.dataDir, secretKey: o.secretKey });
  return { ...sqliteRekeying(store.db), close: () => store.close() };
}

function sqliteRekeying(db: Database.Database): Omit<Rekeying, 'close'> {
  return {
    async serverRunning() {
      return db.prepare('SELECT 1 FROM leases WHERE name LIKE ? AND expires_at > ?').get(`${INSTANCE_LEASE_PREFIX}%`, Date.now()) !== undefined;
    },
    async reencrypt(from, to) {
      // Old ciphertext and dropped rows are overwritten with zeros rather than left in free pages.
      db.pragma('secure_delete = ON');
      return db
        .transaction((): RotateCounts => {
          const [accounts, triggers, hooks, subscriptions] = SECRET_TABLES.map(([table, what]) => {
            const rows = db.prepare(`SELECT id, secret_enc FROM ${table} WHERE secret_enc IS NOT NULL`).all() as Array<{ id: string; secret_enc: string }>;
            const update = db.prepare(`UPDATE ${table} SET secret_enc = ? WHERE id = ?`);
            for (const row of rows) update.run(reencryptSecret(row, what, from, to), row.id);
            return rows.length;
          });
          const salesCache = db.prepare('DELETE FROM sales_cache').run().changes;
          const chain = db.prepare('SELECT key_enc FROM audit_chain WHERE id = 1').get() as { key_enc: string | null } | undefined;
          if (chain?.key_enc) db.prepare('UPDATE audit_chain SET key_enc = ? WHERE id = 1').run(reencryptChainKey(chain.key_enc, from, to));
          for (const table of SHORT_LIVED_TABLES) db.prepare(`DELETE FROM ${table}`).run();
          db.prepare("UPDATE meta SET value = ? WHERE key = 'key_check'").run(newKeyCheck(to));
          return { accounts: accounts!, triggers: triggers!, hooks: hooks!, subscriptions: subscriptions!, salesCache };
        })
        .immediate();
    },
  };
}
