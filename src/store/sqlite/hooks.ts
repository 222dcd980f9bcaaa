import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { DecryptedSecrets, encryptSecret } from '../crypto.js';
import { toHook, toTrigger, type HookRow, type TriggerRow } from '../rows.js';
import type { Hook, HookStore, Trigger } from '../types.js';

export class SqliteHookStore implements HookStore {
  private readonly secrets: DecryptedSecrets;

  constructor(
    private readonly db: Database.Database,
    private readonly key: Buffer,
    /** Throws when the store's key changed since this connection opened (secrets rotate). */
    private readonly guard: () => void = () => undefined,
  ) {
    this.secrets = new DecryptedSecrets(key);
  }

  async find(provider: string, accountId: string, target: string): Promise<Hook | undefined> {
    const row = this.db.prepare('SELECT * FROM hooks WHERE provider = ? AND account_id = ? AND target = ?').get(provider, accountId, target) as HookRow | undefined;
    return row && toHook(row);
  }

  async get(id: string): Promise<Hook | undefined> {
    const row = this.db.prepare('SELECT * FROM hooks WHERE id = ?').get(id) as HookRow | undefined;
    return row && toHook(row);
  }

  async create(input: { provider: string; accountId: string; target: string; events: string[] }): Promise<{ hook: Hook; secret: string }> {
    const id = 'hk_' + randomBytes(8).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    this.db.transaction(() => {
      this.guard();
      this.db
        .prepare('INSERT INTO hooks (id, provider, account_id, target, events_json, secret_enc, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(id, input.provider, input.accountId, input.target, JSON.stringify(input.events), encryptSecret(this.key, secret, id), new Date().toISOString());
    }).immediate();
    return { hook: (await this.get(id))!, secret };
  }

  async update(id: string, patch: { remoteId?: string; events?: string[] }): Promise<void> {
    if (patch.remoteId !== undefined) this.db.prepare('UPDATE hooks SET remote_id = ? WHERE id = ?').run(patch.remoteId, id);
    if (patch.events) this.db.prepare('UPDATE hooks SET events_json = ? WHERE id = ?').run(JSON.stringify(patch.events), id);
  }

  async secret(id: string): Promise<string> {
    const row = this.db.prepare('SELECT secret_enc FROM hooks WHERE id = ?').get(id) as { secret_enc: string } | undefined;
    if (!row) throw new Error(`No hook ${id}`);
    return this.secrets.get(row.secret_enc, id);
  }

  async remove(id: string): Promise<void> {
    this.db.prepare('DELETE FROM hooks WHERE id = ?').run(id);
  }

  async triggers(id: string): Promise<Trigger[]> {
    const rows = this.db.prepare("SELECT * FROM triggers WHERE json_extract(provider_refs_json, '$.hookId') = ? ORDER BY created_at").all(id) as TriggerRow[];
    return rows.map(toTrigger);
  }

  async intake(id: string): Promise<{ secret: string; triggers: Trigger[] } | undefined> {
    const row = this.db.prepare('SELECT secret_enc FROM hooks WHERE id = ?').get(id) as { secret_enc: string } | undefined;
    return row && { secret: this.secrets.get(row.secret_enc, id), triggers: await this.triggers(id) };
  }
}
