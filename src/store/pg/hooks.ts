import { randomBytes } from 'node:crypto';
import { DecryptedSecrets, encryptSecret } from '../crypto.js';
import type { Hook, HookStore, Trigger } from '../types.js';
import type { Sql, Tx } from './connection.js';
import { toHook, toTrigger, type HookRow, type TriggerRow } from '../rows.js';

export class PgHookStore implements HookStore {
  private readonly secrets: DecryptedSecrets;

  constructor(
    private readonly sql: Sql,
    private readonly key: Buffer,
    /** Throws when the store's key changed since this process opened it (secrets rotate). */
    private readonly guard: (tx: Tx) => Promise<void>,
  ) {
    this.secrets = new DecryptedSecrets(key);
  }

  async find(provider: string, accountId: string, target: string): Promise<Hook | undefined> {
    const [row] = await this.sql<HookRow[]>`SELECT * FROM hooks WHERE provider = ${provider} AND account_id = ${accountId} AND target = ${target}`;
    return row && toHook(row);
  }

  async get(id: string): Promise<Hook | undefined> {
    const [row] = await this.sql<HookRow[]>`SELECT * FROM hooks WHERE id = ${id}`;
    return row && toHook(row);
  }

  async create(input: { provider: string; accountId: string; target: string; events: string[] }): Promise<{ hook: Hook; secret: string }> {
    const id = 'hk_' + randomBytes(8).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    const [row] = await this.sql.begin(async (tx) => {
      await this.guard(tx);
      return tx<HookRow[]>`
        INSERT INTO hooks (id, provider, account_id, target, events_json, secret_enc, created_at)
        VALUES (${id}, ${input.provider}, ${input.accountId}, ${input.target}, ${JSON.stringify(input.events)}::text::json,
          ${encryptSecret(this.key, secret, id)}, ${new Date().toISOString()})
        RETURNING *`;
    });
    return { hook: toHook(row), secret };
  }

  async update(id: string, patch: { remoteId?: string; events?: string[] }): Promise<void> {
    if (patch.remoteId !== undefined) await this.sql`UPDATE hooks SET remote_id = ${patch.remoteId} WHERE id = ${id}`;
    if (patch.events) await this.sql`UPDATE hooks SET events_json = ${JSON.stringify(patch.events)}::text::json WHERE id = ${id}`;
  }

  async secret(id: string): Promise<string> {
    const [row] = await this.sql<{ secret_enc: string }[]>`SELECT secret_enc FROM hooks WHERE id = ${id}`;
    if (!row) throw new Error(`No hook ${id}`);
    return this.secrets.get(row.secret_enc, id);
  }

  async remove(id: string): Promise<void> {
    await this.sql`DELETE FROM hooks WHERE id = ${id}`;
  }

  async triggers(id: string): Promise<Trigger[]> {
    const rows = await this.sql<TriggerRow[]>`SELECT * FROM triggers WHERE provider_refs_json ->> 'hookId' = ${id} ORDER BY created_at, seq`;
    return rows.map(toTrigger);
  }

  async intake(id: string): Promise<{ secret: string; triggers: Trigger[] } | undefined> {
    // One round trip: the hook's secret on every row, beside each of its triggers (none: one row of NULLs).
    const rows = await this.sql<Array<TriggerRow & { hook_secret_enc: string }>>`
      SELECT h.secret_enc AS hook_secret_enc, t.* FROM hooks h LEFT JOIN triggers t ON t.provider_refs_json ->> 'hookId' = h.id
      WHERE h.id = ${id} ORDER BY t.created_at, t.seq`;
    if (!rows.length) return undefined;
    return { secret: this.secrets.get(rows[0]!.hook_secret_enc, id), triggers: rows.filter((row) => row.id !== null).map(toTrigger) };
  }
}
