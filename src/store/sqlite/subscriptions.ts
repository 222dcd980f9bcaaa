import type Database from 'better-sqlite3';
import { PERSONAL_OWNER, type Owner } from '../owner.js';
import {
  nextSecrets,
  noSubscription,
  noTrigger,
  openSecrets,
  PRUNED_THROUGH_KEY,
  sealSecrets,
  SUBSCRIPTION_WINDOW_MS,
  suspends,
  toSubscription,
  type SubscriptionRow,
} from '../subscription-rules.js';
import type { DeliveryOutcome, EventSubscription, NewEventSubscription, ReplayResult, SubscriptionSecrets, SubscriptionStore } from '../types.js';

/** The subscriptions of the view's owner; every owner's when @owner is NULL. */
const OWN = '(@owner IS NULL OR owner = @owner)';

type FullRow = SubscriptionRow & { secret_enc: string | null; failed_attempts: number };

export class SqliteSubscriptionStore implements SubscriptionStore {
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

  private row(id: string): FullRow | undefined {
    return this.db.prepare(`SELECT * FROM event_subscriptions WHERE id = ? AND ${OWN}`).get(id, this.scope) as FullRow | undefined;
  }

  async upsert(input: NewEventSubscription): Promise<{ subscription: EventSubscription; created: boolean }> {
    const write = this.db.transaction((): boolean => {
      if (!this.db.prepare(`SELECT 1 FROM triggers WHERE id = ? AND ${OWN}`).get(input.triggerId, this.scope)) throw noTrigger(input.triggerId);
      const now = this.clock();
      const before = this.row(input.id);
      const secrets = nextSecrets(before && openSecrets(this.key, before.id, before.secret_enc), input, now);
      if (secrets) this.guard();
      const sealed = sealSecrets(this.key, input.id, secrets);
      if (before) {
        this.db
          .prepare(
            `UPDATE event_subscriptions SET trigger_id = ?, client_name = COALESCE(?, client_name), secret_enc = ?, refresh_before = ?,
               status = 'active', failed_since = NULL, failed_attempts = 0, updated_at = ? WHERE id = ?`,
          )
          .run(input.triggerId, input.clientName ?? null, sealed, input.refreshBefore, now, input.id);
        if (before.trigger_id !== input.triggerId) this.count(before.trigger_id, -1).count(input.triggerId, 1);
        return false;
      }
      const start = (this.db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM events').get() as { id: number }).id;
      this.db
        .prepare(
          `INSERT INTO event_subscriptions (id, owner, mode, name, arguments_json, url, trigger_id, client_name, secret_enc, refresh_before, start_event_id, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(input.id, this.owner ?? PERSONAL_OWNER, input.mode, input.name, JSON.stringify(input.arguments), input.url, input.triggerId, input.clientName ?? null, sealed, input.refreshBefore, start, now, now);
      this.count(input.triggerId, 1);
      return true;
    });
    const created = write.immediate();
    return { subscription: toSubscription(this.row(input.id)!), created };
  }

  /** Keeps the trigger's count of subscriptions riding on it. */
  private count(triggerId: string, by: 1 | -1): this {
    this.db.prepare('UPDATE triggers SET subscriptions = MAX(subscriptions + ?, 0) WHERE id = ?').run(by, triggerId);
    return this;
  }

  async get(id: string): Promise<EventSubscription | undefined> {
    const row = this.row(id);
    return row && toSubscription(row);
  }

  async list(filter: { triggerId?: string; owner?: string } = {}): Promise<EventSubscription[]> {
    const rows = this.db
      .prepare(
        `SELECT * FROM event_subscriptions WHERE (@triggerId IS NULL OR trigger_id = @triggerId) AND (@of IS NULL OR owner = @of) AND ${OWN}
         ORDER BY created_at, id`,
      )
      .all({ triggerId: filter.triggerId ?? null, of: filter.owner ?? null, ...this.scope }) as SubscriptionRow[];
    return rows.map(toSubscription);
  }

  async remove(id: string): Promise<EventSubscription | undefined> {
    return this.db
      .transaction(() => {
        const row = this.row(id);
        if (!row) return undefined;
        this.db.prepare("UPDATE deliveries SET state = 'cancelled' WHERE subscription_id = ? AND state = 'pending'").run(id);
        this.db.prepare('DELETE FROM event_subscriptions WHERE id = ?').run(id);
        this.count(row.trigger_id, -1);
        return toSubscription(row);
      })
      .immediate();
  }

  async secrets(id: string): Promise<SubscriptionSecrets | undefined> {
    const row = this.row(id);
    return row && openSecrets(this.key, row.id, row.secret_enc);
  }

  async expired(now: number): Promise<EventSubscription[]> {
    const rows = this.db
      .prepare(`SELECT * FROM event_subscriptions WHERE refresh_before IS NOT NULL AND refresh_before <= @now AND ${OWN} ORDER BY refresh_before, id`)
      .all({ now, ...this.scope }) as SubscriptionRow[];
    return rows.map(toSubscription);
  }

  async recordOutcome(id: string, outcome: DeliveryOutcome): Promise<void> {
    this.db
      .transaction(() => {
        const row = this.row(id);
        if (!row) return;
        const since = row.failed_since ?? outcome.at;
        const failures = row.failed_attempts + 1;
        const status = suspends(since, failures, outcome.at) ? 'suspended' : row.status;
        this.db
          .prepare('UPDATE event_subscriptions SET last_error = ?, failed_since = ?, failed_attempts = ?, status = ?, updated_at = ? WHERE id = ?')
          .run(outcome.error, since, failures, status, this.clock(), id);
      })
      .immediate();
  }

  async countByOwner(owner: string): Promise<number> {
    return (this.db.prepare('SELECT count(*) AS n FROM event_subscriptions WHERE owner = ?').get(owner) as { n: number }).n;
  }

  async verifiedCallback(owner: string, url: string, now = this.clock()): Promise<number | undefined> {
    const row = this.db.prepare('SELECT until FROM verified_callbacks WHERE owner = ? AND url = ? AND until > ?').get(owner, url, now) as { until: number } | undefined;
    return row?.until;
  }

  async rememberCallback(owner: string, url: string, until: number): Promise<void> {
    this.db.prepare('INSERT INTO verified_callbacks (owner, url, until) VALUES (?, ?, ?) ON CONFLICT (owner, url) DO UPDATE SET until = excluded.until').run(owner, url, until);
  }

  async watermark(id: string): Promise<number> {
    return this.db.transaction(() => {
      if (!this.row(id)) return 0;
      const pending = this.db
        .prepare("SELECT MIN(d.event_id) AS id FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.subscription_id = ? AND d.state = 'pending'")
        .get(id) as { id: number | null };
      if (pending.id !== null) return pending.id - 1;
      return (this.db.prepare('SELECT COALESCE(MAX(id), 0) AS id FROM events').get() as { id: number }).id;
    })();
  }

  async replay(id: string, range: { after: number; notBefore?: string }): Promise<ReplayResult> {
    const run = this.db.transaction((): ReplayResult => {
      const sub = this.row(id);
      if (!sub) throw noSubscription(id);
      const now = this.clock();
      const p = { sub: id, trigger: sub.trigger_id, after: range.after, notBefore: range.notBefore ?? null, now, giveUp: now + SUBSCRIPTION_WINDOW_MS, url: sub.url };
      const created = (this.db.prepare('SELECT created_at FROM triggers WHERE id = ?').get(sub.trigger_id) as { created_at: string }).created_at;
      const triggerStart = (this.db.prepare('SELECT id FROM events WHERE received_at < ? ORDER BY id DESC LIMIT 1').get(created) as { id: number } | undefined)?.id ?? 0;
      const pruned = Number((this.db.prepare('SELECT value FROM meta WHERE key = ?').get(PRUNED_THROUGH_KEY) as { value: string } | undefined)?.value ?? 0);
      const cut =
        p.notBefore !== null &&
        this.db.prepare('SELECT 1 FROM events WHERE trigger_id = @trigger AND id > @after AND received_at < @notBefore LIMIT 1').get(p) !== undefined;
      const truncated = range.after < triggerStart || range.after < pruned || cut;
      if (sub.mode !== 'webhook' || sub.url === null) return { enqueued: 0, truncated };
      const wanted = 'trigger_id = @trigger AND id > @after AND (@notBefore IS NULL OR received_at >= @notBefore)';
      const added = this.db
        .prepare(
          `INSERT OR IGNORE INTO deliveries (event_id, trigger_id, url, next_attempt_at, give_up_at, subscription_id)
           SELECT id, trigger_id, @url, @now, @giveUp, @sub FROM events WHERE ${wanted} ORDER BY id`,
        )
        .run(p).changes;
      const revived = this.db
        .prepare(
          `UPDATE deliveries SET state = 'pending', attempts = 0, next_attempt_at = @now, give_up_at = @giveUp, claimed_by = NULL, claimed_until = NULL
           WHERE subscription_id = @sub AND state IN ('failed', 'expired', 'cancelled') AND event_id IN (SELECT id FROM events WHERE ${wanted})`,
        )
        .run(p).changes;
      return { enqueued: added + revived, truncated };
    });
    return run.immediate();
  }
}
