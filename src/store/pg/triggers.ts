import { InputError } from '../../errors.js';
import { decryptSecret, encryptSecret } from '../crypto.js';
import { toTrigger, type TriggerRow } from '../rows.js';
import { FORWARD_WINDOW_MS } from '../triggers.js';
import { newTriggerId, type CommitInput, type NewTrigger, type Trigger, type TriggerEvent, type TriggerSecrets, type TriggerStore } from '../types.js';
import { COMMITS_CHANNEL, LOCK_SPACE, LOCKS, type Sql, type Tx } from './connection.js';

/**
 * Appending to the event log takes the log's lock, held until the transaction ends: ids are handed out in the
 * order transactions commit. Without it, a transaction that drew id 1 could commit after one that drew id 2, and
 * a reader that had already moved its cursor to 2 would never see 1. The notification goes out at commit, to
 * every instance listening (watchCommits).
 */
export async function lockEventLog(tx: Tx): Promise<void> {
  await tx`SELECT pg_advisory_xact_lock(${LOCK_SPACE}, ${LOCKS.eventLog}), pg_notify(${COMMITS_CHANNEL}, '')`;
}

export class PgTriggerStore implements TriggerStore {
  constructor(
    private readonly sql: Sql,
    private readonly key: Buffer,
    /** Throws when the store's key changed since this process opened it (secrets rotate). */
    private readonly guard: (tx: Tx) => Promise<void>,
    private readonly clock: () => number = Date.now,
  ) {}

  async create(input: NewTrigger): Promise<Trigger> {
    const id = input.id ?? newTriggerId();
    const secrets = input.secrets && Object.keys(input.secrets).length ? encryptSecret(this.key, JSON.stringify(input.secrets), id) : null;
    try {
      const [row] = await this.sql.begin(async (tx) => {
        if (secrets !== null) await this.guard(tx);
        return tx<TriggerRow[]>`
          INSERT INTO triggers (id, kind, account_id, config_json, forward_url, secret_enc, provider_refs_json, state_json, created_at)
          VALUES (${id}, ${input.kind}, ${input.accountId}, ${JSON.stringify(input.config)}::text::json, ${input.forwardUrl ?? null}, ${secrets},
            ${JSON.stringify(input.providerRefs ?? {})}::text::json, ${JSON.stringify(input.state ?? {})}::text::json, ${new Date(this.clock()).toISOString()})
          RETURNING *`;
      });
      return toTrigger(row);
    } catch (error) {
      if ((error as { code?: string }).code === '23503') {
        throw new InputError(`No account ${input.accountId}; accounts_list shows the connected accounts.`, 'account');
      }
      throw error;
    }
  }

  async get(id: string): Promise<Trigger | undefined> {
    const [row] = await this.sql<TriggerRow[]>`SELECT * FROM triggers WHERE id = ${id}`;
    return row && toTrigger(row);
  }

  async list(filter: { accountId?: string; kind?: string } = {}): Promise<Trigger[]> {
    const rows = await this.sql<TriggerRow[]>`
      SELECT * FROM triggers
      WHERE (${filter.accountId ?? null}::text IS NULL OR account_id = ${filter.accountId ?? null})
        AND (${filter.kind ?? null}::text IS NULL OR kind = ${filter.kind ?? null})
      ORDER BY created_at, seq`;
    return rows.map(toTrigger);
  }

  async remove(id: string): Promise<Trigger | undefined> {
    const [row] = await this.sql.begin(async (tx) => {
      await tx`UPDATE deliveries SET state = 'cancelled' WHERE trigger_id = ${id} AND state = 'pending'`;
      return tx<TriggerRow[]>`DELETE FROM triggers WHERE id = ${id} RETURNING *`;
    });
    return row && toTrigger(row);
  }

  async secrets(id: string): Promise<TriggerSecrets> {
    const [row] = await this.sql<{ secret_enc: string | null }[]>`SELECT secret_enc FROM triggers WHERE id = ${id}`;
    return row?.secret_enc ? JSON.parse(decryptSecret(this.key, row.secret_enc, id)) : {};
  }

  async setSecrets(id: string, secrets: TriggerSecrets): Promise<void> {
    await this.sql.begin(async (tx) => {
      await this.guard(tx);
      await tx`UPDATE triggers SET secret_enc = ${encryptSecret(this.key, JSON.stringify(secrets), id)} WHERE id = ${id}`;
    });
  }

  async update(id: string, patch: { state?: Record<string, unknown>; providerRefs?: Record<string, unknown> }): Promise<void> {
    if (patch.state) await this.sql`UPDATE triggers SET state_json = ${JSON.stringify(patch.state)}::text::json WHERE id = ${id}`;
    if (patch.providerRefs) await this.sql`UPDATE triggers SET provider_refs_json = ${JSON.stringify(patch.providerRefs)}::text::json WHERE id = ${id}`;
  }

  async commit(triggerId: string, input: CommitInput): Promise<TriggerEvent[]> {
    const now = this.clock();
    const receivedAt = new Date(now).toISOString();
    return this.sql.begin(async (tx) => {
      // The trigger's row first (one commit per trigger at a time), the log's lock only for the appending itself.
      const [trigger] = await tx<{ kind: string; forward_url: string | null }[]>`
        SELECT kind, forward_url FROM triggers WHERE id = ${triggerId} FOR NO KEY UPDATE`;
      if (!trigger) return [];
      const added: TriggerEvent[] = [];
      if (input.events.length) await lockEventLog(tx);
      for (const e of input.events) {
        const [row] = await tx<{ id: number }[]>`
          INSERT INTO events (trigger_id, kind, dedupe_key, occurred_at, received_at, summary, payload_json)
          VALUES (${triggerId}, ${trigger.kind}, ${e.dedupeKey}, ${e.occurredAt}, ${receivedAt}, ${e.summary}, ${JSON.stringify(e.payload)}::text::json)
          ON CONFLICT (trigger_id, dedupe_key) DO NOTHING RETURNING id`;
        if (!row) continue;
        added.push({ id: row.id, triggerId, kind: trigger.kind, dedupeKey: e.dedupeKey, occurredAt: e.occurredAt, receivedAt, summary: e.summary, payload: e.payload });
        if (trigger.forward_url) {
          await tx`INSERT INTO deliveries (event_id, trigger_id, url, next_attempt_at, give_up_at)
            VALUES (${row.id}, ${triggerId}, ${trigger.forward_url}, ${now}, ${now + FORWARD_WINDOW_MS}) ON CONFLICT DO NOTHING`;
        }
      }
      const hasError = input.error !== undefined;
      const error = input.error ?? null;
      await tx`
        UPDATE triggers SET fired = fired + ${added.length}, skipped = skipped + ${input.skipped ?? 0},
          errors = errors + ${input.error ? 1 : 0}, last_error = CASE WHEN ${hasError} THEN ${error}::text ELSE last_error END,
          status = CASE WHEN ${hasError} AND ${error}::text IS NOT NULL THEN 'failing' WHEN ${hasError} THEN 'active' ELSE status END,
          last_event_at = CASE WHEN ${added.length} > 0 THEN ${receivedAt} ELSE last_event_at END,
          state_json = COALESCE(${input.state ? JSON.stringify(input.state) : null}::text::json, state_json)
        WHERE id = ${triggerId}`;
      return added;
    }) as Promise<TriggerEvent[]>;
  }
}
