import type Database from 'better-sqlite3';
import { decryptSecret, encryptSecret } from '../crypto.js';
import { PERSONAL_OWNER, type Owner } from '../owner.js';
import { TRIGGER_RUNS } from './work.js';
import { toTrigger, type TriggerRow } from '../rows.js';
import { SUBSCRIPTION_WINDOW_MS } from '../subscription-rules.js';
import { checkRefKey, countsByTrigger, FORWARD_WINDOW_MS, noAccount } from '../trigger-rules.js';
import { newTriggerId, type CommitInput, type CommitItem, type NewTrigger, type Trigger, type TriggerEvent, type TriggerSecrets, type TriggerStore } from '../types.js';

/** The triggers of the view's owner; every owner's when @owner is NULL. */
const OWN = '(@owner IS NULL OR owner = @owner)';

/** The accounts a view's owner may put a trigger on: their own and those shared with them. */
const USABLE_ACCOUNT = "(@owner IS NULL OR owner = @owner OR id IN (SELECT account_id FROM account_grants WHERE grantee IN (@owner, '*')))";

interface TriggerTarget {
  kind: string;
  forward_url: string | null;
  owner: string;
  /** Its webhook subscriptions that take deliveries now. */
  subscribers: Array<{ id: string; url: string }>;
}

export class SqliteTriggerStore implements TriggerStore {
  private readonly scope: { owner: string | null };
  constructor(
    private readonly db: Database.Database,
    private readonly key: Buffer,
    private readonly clock: () => number = Date.now,
    /** Throws when the store's key changed since this connection opened (secrets rotate). */
    private readonly guard: () => void = () => undefined,
    private readonly owner: Owner = undefined,
  ) {
    this.scope = { owner: owner ?? null };
  }

  async create(input: NewTrigger): Promise<Trigger> {
    const id = input.id ?? newTriggerId();
    const secrets = input.secrets && Object.keys(input.secrets).length ? encryptSecret(this.key, JSON.stringify(input.secrets), id) : null;
    const insert = this.db.transaction((...values: unknown[]) => {
      if (secrets !== null) this.guard();
      if (!this.db.prepare(`SELECT 1 FROM accounts WHERE id = ? AND ${USABLE_ACCOUNT}`).get(input.accountId, this.scope)) throw noAccount(input.accountId);
      this.db
        .prepare(
          `INSERT INTO triggers (id, owner, kind, account_id, config_json, forward_url, secret_enc, provider_refs_json, state_json, created_at, origin)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(...values);
    });
    try {
      insert.immediate(
        id,
        this.owner ?? PERSONAL_OWNER,
        input.kind,
        input.accountId,
        JSON.stringify(input.config),
        input.forwardUrl ?? null,
        secrets,
        JSON.stringify(input.providerRefs ?? {}),
        JSON.stringify(input.state ?? {}),
        new Date(this.clock()).toISOString(),
        input.origin ?? null,
      );
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw noAccount(input.accountId);
      throw error;
    }
    return (await this.get(id))!;
  }

  async get(id: string): Promise<Trigger | undefined> {
    const row = this.db.prepare(`SELECT * FROM triggers WHERE id = ? AND ${OWN}`).get(id, this.scope) as TriggerRow | undefined;
    return row && toTrigger(row);
  }

  async list(filter: { accountId?: string; kind?: string } = {}): Promise<Trigger[]> {
    const rows = this.db
      .prepare(
        `SELECT * FROM triggers WHERE (@accountId IS NULL OR account_id = @accountId) AND (@kind IS NULL OR kind = @kind) AND ${OWN}
         ORDER BY created_at, rowid`,
      )
      .all({ accountId: filter.accountId ?? null, kind: filter.kind ?? null, ...this.scope }) as TriggerRow[];
    return rows.map(toTrigger);
  }

  async remove(id: string): Promise<Trigger | undefined> {
    const found = await this.get(id);
    if (!found) return undefined;
    this.db.transaction(() => {
      this.db.prepare("UPDATE deliveries SET state = 'cancelled' WHERE trigger_id = ? AND state = 'pending'").run(id);
      this.db.prepare('DELETE FROM triggers WHERE id = ?').run(id);
    })();
    return found;
  }

  async secrets(id: string): Promise<TriggerSecrets> {
    const row = this.db.prepare(`SELECT secret_enc FROM triggers WHERE id = ? AND ${OWN}`).get(id, this.scope) as { secret_enc: string | null } | undefined;
    return row?.secret_enc ? JSON.parse(decryptSecret(this.key, row.secret_enc, id)) : {};
  }

  async setSecrets(id: string, secrets: TriggerSecrets): Promise<void> {
    this.db.transaction(() => {
      this.guard();
      this.db.prepare(`UPDATE triggers SET secret_enc = ? WHERE id = ? AND ${OWN}`).run(encryptSecret(this.key, JSON.stringify(secrets), id), id, this.scope);
    }).immediate();
  }

  async update(id: string, patch: { state?: Record<string, unknown>; providerRefs?: Record<string, unknown> }): Promise<void> {
    if (patch.state) this.db.prepare(`UPDATE triggers SET state_json = ? WHERE id = ? AND ${OWN}`).run(JSON.stringify(patch.state), id, this.scope);
    if (patch.providerRefs) this.db.prepare(`UPDATE triggers SET provider_refs_json = ? WHERE id = ? AND ${OWN}`).run(JSON.stringify(patch.providerRefs), id, this.scope);
  }

  async note(id: string, note: { set?: Record<string, unknown>; count?: { key: string; by: number } }): Promise<void> {
    const set = Object.entries(note.set ?? {});
    for (const key of [...set.map(([k]) => k), ...(note.count ? [note.count.key] : [])]) checkRefKey(key);
    this.db.transaction(() => {
      if (set.length) {
        const paths = set.map(() => '?, json(?)').join(', ');
        this.db.prepare(`UPDATE triggers SET provider_refs_json = json_set(provider_refs_json, ${paths}) WHERE id = ? AND ${OWN}`).run(...set.flatMap(([k, v]) => [`$.${k}`, JSON.stringify(v)]), id, this.scope);
      }
      if (note.count) {
        const path = `$.${note.count.key}`;
        this.db
          .prepare(`UPDATE triggers SET provider_refs_json = json_set(provider_refs_json, ?, COALESCE(json_extract(provider_refs_json, ?), 0) + ?) WHERE id = ? AND ${OWN}`)
          .run(path, path, note.count.by, id, this.scope);
      }
    }).immediate();
  }

  async commit(triggerId: string, input: CommitInput): Promise<TriggerEvent[]> {
    return this.db.transaction(() => this.append([{ triggerId, input }], this.clock())[0]!).immediate();
  }

  async commitMany(items: CommitItem[]): Promise<Array<PromiseSettledResult<TriggerEvent[]>>> {
    const now = this.clock();
    try {
      const added = this.db.transaction(() => this.append(items, now)).immediate();
      return added.map((value) => ({ status: 'fulfilled', value }));
    } catch (error) {
      if (items.length < 2) return [{ status: 'rejected', reason: error }];
    }
    // An item failed and the batch was undone: each again in a savepoint of its own, so only the failing one is lost.
    const one = this.db.transaction((item: CommitItem) => this.append([item], now)[0]!);
    return this.db
      .transaction(() =>
        items.map((item): PromiseSettledResult<TriggerEvent[]> => {
          try {
            return { status: 'fulfilled', value: one(item) };
          } catch (reason) {
            return { status: 'rejected', reason };
          }
        }),
      )
      .immediate();
  }

  /** The items' events, in input order, and each trigger's counts and state, inside the caller's transaction. */
  private append(items: CommitItem[], now: number): TriggerEvent[][] {
    const receivedAt = new Date(now).toISOString();
    const selectTrigger = this.db.prepare(`SELECT kind, forward_url, owner, subscriptions FROM triggers WHERE id = ? AND ${OWN} AND ${TRIGGER_RUNS}`);
    const selectSubscribers = this.db.prepare(
      `SELECT id, url FROM event_subscriptions WHERE trigger_id = ? AND mode = 'webhook' AND status = 'active' AND (refresh_before IS NULL OR refresh_before > ?)`,
    );
    const triggers = new Map<string, TriggerTarget | undefined>();
    for (const { triggerId } of items) {
      if (triggers.has(triggerId)) continue;
      const row = selectTrigger.get(triggerId, this.scope) as (Omit<TriggerTarget, 'subscribers'> & { subscriptions: number }) | undefined;
      const subscribers = row?.subscriptions ? (selectSubscribers.all(triggerId, now) as TriggerTarget['subscribers']) : [];
      triggers.set(triggerId, row && { ...row, subscribers });
    }
    const insertEvent = this.db.prepare(
      `INSERT OR IGNORE INTO events (trigger_id, owner, kind, dedupe_key, occurred_at, received_at, summary, payload_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertDelivery = this.db.prepare(
      `INSERT OR IGNORE INTO deliveries (event_id, trigger_id, url, next_attempt_at, give_up_at, subscription_id) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    const added = items.map(({ triggerId, input }) => {
      const trigger = triggers.get(triggerId);
      const events: TriggerEvent[] = [];
      for (const e of trigger ? input.events : []) {
        const result = insertEvent.run(triggerId, trigger!.owner, trigger!.kind, e.dedupeKey, e.occurredAt, receivedAt, e.summary, JSON.stringify(e.payload));
        if (result.changes === 0) continue;
        const id = Number(result.lastInsertRowid);
        events.push({ id, triggerId, kind: trigger!.kind, dedupeKey: e.dedupeKey, occurredAt: e.occurredAt, receivedAt, summary: e.summary, payload: e.payload });
        if (trigger!.forward_url) insertDelivery.run(id, triggerId, trigger!.forward_url, now, now + FORWARD_WINDOW_MS, null);
        for (const s of trigger!.subscribers) insertDelivery.run(id, triggerId, s.url, now, now + SUBSCRIPTION_WINDOW_MS, s.id);
      }
      return events;
    });
    const states = items.map(({ input }) => (input.state ? JSON.stringify(input.state) : null));
    const count = this.db.prepare(
      `UPDATE triggers SET fired = fired + @fired, skipped = skipped + @skipped,
         errors = errors + @failed, last_error = CASE WHEN @hasError THEN @error ELSE last_error END,
         status = CASE WHEN @hasError AND @error IS NOT NULL THEN 'failing' WHEN @hasError THEN 'active' ELSE status END,
         last_event_at = CASE WHEN @fired > 0 THEN @receivedAt ELSE last_event_at END,
         state_json = COALESCE(@state, state_json)
       WHERE id = @id`,
    );
    for (const [id, c] of countsByTrigger(items, states, added, (id) => triggers.get(id) !== undefined)) {
      count.run({ id, fired: c.fired, skipped: c.skipped, failed: c.failed, hasError: c.hasError ? 1 : 0, error: c.error, receivedAt, state: c.state });
    }
    return added;
  }
}
