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
import type { Queryable, Sql, Tx } from './connection.js';

type FullRow = SubscriptionRow & { secret_enc: string | null; failed_attempts: number };

export class PgSubscriptionStore implements SubscriptionStore {
  /** Whose subscriptions this view reads and writes; null for every owner's. */
  private readonly o: string | null;
  constructor(
    private readonly sql: Sql,
    private readonly key: Buffer,
    /** Throws when the store's key changed since this process opened it (secrets rotate). */
    private readonly guard: (tx: Tx) => Promise<void>,
    private readonly clock: () => number = Date.now,
    owner: Owner = undefined,
  ) {
    this.o = owner ?? null;
  }

  private own(db: Queryable = this.sql) {
    return db`(${this.o}::text IS NULL OR owner = ${this.o})`;
  }

  private async row(id: string, db: Queryable = this.sql, lock = db``): Promise<FullRow | undefined> {
    const [row] = await db<FullRow[]>`SELECT * FROM event_subscriptions WHERE id = ${id} AND ${this.own(db)} ${lock}`;
    return row;
  }

  /**
   * The trigger's row is locked first, as a commit locks it: a commit on the trigger under way ends before the start
   * is read, and one that waited for this transaction sees the trigger's count of subscriptions changed and reads
   * the subscriptions again (PgTriggerStore.append).
   */
  async upsert(input: NewEventSubscription): Promise<{ subscription: EventSubscription; created: boolean }> {
    const { row, created } = await this.sql.begin(async (tx) => {
      const [trigger] = await tx`SELECT 1 FROM triggers WHERE id = ${input.triggerId} AND ${this.own(tx)} FOR NO KEY UPDATE`;
      if (!trigger) throw noTrigger(input.triggerId);
      const now = this.clock();
      const before = await this.row(input.id, tx, tx`FOR UPDATE`);
      const secrets = nextSecrets(before && openSecrets(this.key, before.id, before.secret_enc), input, now);
      if (secrets) await this.guard(tx);
      const sealed = sealSecrets(this.key, input.id, secrets);
      if (before) {
        const [row] = await tx<FullRow[]>`
          UPDATE event_subscriptions SET trigger_id = ${input.triggerId}, client_name = COALESCE(${input.clientName ?? null}, client_name), secret_enc = ${sealed},
            refresh_before = ${input.refreshBefore}, status = 'active', failed_since = NULL, failed_attempts = 0, updated_at = ${now}
          WHERE id = ${input.id} RETURNING *`;
        if (before.trigger_id !== input.triggerId) {
          await this.count(tx, before.trigger_id, -1);
          await this.count(tx, input.triggerId, 1);
        }
        return { row: row!, created: false };
      }
      const [row] = await tx<FullRow[]>`
        INSERT INTO event_subscriptions (id, owner, mode, name, arguments_json, url, trigger_id, client_name, secret_enc, refresh_before, start_event_id, created_at, updated_at)
        VALUES (${input.id}, ${this.o ?? PERSONAL_OWNER}, ${input.mode}, ${input.name}, ${JSON.stringify(input.arguments)}::text::json, ${input.url}, ${input.triggerId},
          ${input.clientName ?? null}, ${sealed}, ${input.refreshBefore}, (SELECT COALESCE(max(id), 0) FROM events), ${now}, ${now})
        RETURNING *`;
      await this.count(tx, input.triggerId, 1);
      return { row: row!, created: true };
    });
    return { subscription: toSubscription(row), created };
  }

  /** Keeps the trigger's count of subscriptions riding on it. */
  private async count(tx: Tx, triggerId: string, by: 1 | -1): Promise<void> {
    await tx`UPDATE triggers SET subscriptions = GREATEST(subscriptions + ${by}, 0) WHERE id = ${triggerId}`;
  }

  async get(id: string): Promise<EventSubscription | undefined> {
    const row = await this.row(id);
    return row && toSubscription(row);
  }

  async list(filter: { triggerId?: string; owner?: string } = {}): Promise<EventSubscription[]> {
    const rows = await this.sql<SubscriptionRow[]>`
      SELECT * FROM event_subscriptions
      WHERE (${filter.triggerId ?? null}::text IS NULL OR trigger_id = ${filter.triggerId ?? null})
        AND (${filter.owner ?? null}::text IS NULL OR owner = ${filter.owner ?? null}) AND ${this.own()}
      ORDER BY created_at, id`;
    return rows.map(toSubscription);
  }

  async remove(id: string): Promise<EventSubscription | undefined> {
    const row = await this.sql.begin(async (tx) => {
      const found = await this.row(id, tx, tx`FOR UPDATE`);
      if (!found) return undefined;
      await tx`UPDATE deliveries SET state = 'cancelled' WHERE subscription_id = ${id} AND state = 'pending'`;
      await tx`DELETE FROM event_subscriptions WHERE id = ${id}`;
      await this.count(tx, found.trigger_id, -1);
      return found;
    });
    return row && toSubscription(row);
  }

  async secrets(id: string): Promise<SubscriptionSecrets | undefined> {
    const row = await this.row(id);
    return row && openSecrets(this.key, row.id, row.secret_enc);
  }

  async expired(now: number): Promise<EventSubscription[]> {
    const rows = await this.sql<SubscriptionRow[]>`
      SELECT * FROM event_subscriptions WHERE refresh_before IS NOT NULL AND refresh_before <= ${now} AND ${this.own()} ORDER BY refresh_before, id`;
    return rows.map(toSubscription);
  }

  async recordOutcome(id: string, outcome: DeliveryOutcome): Promise<void> {
    await this.sql.begin(async (tx) => {
      const row = await this.row(id, tx, tx`FOR UPDATE`);
      if (!row) return;
      const since = row.failed_since ?? outcome.at;
      const failures = row.failed_attempts + 1;
      const status = suspends(since, failures, outcome.at) ? 'suspended' : row.status;
      await tx`
        UPDATE event_subscriptions SET last_error = ${outcome.error}, failed_since = ${since}, failed_attempts = ${failures}, status = ${status}, updated_at = ${this.clock()}
        WHERE id = ${id}`;
    });
  }

  async countByOwner(owner: string): Promise<number> {
    const [{ n }] = await this.sql<[{ n: number }]>`SELECT count(*)::int AS n FROM event_subscriptions WHERE owner = ${owner}`;
    return n;
  }

  async verifiedCallback(owner: string, url: string, now = this.clock()): Promise<number | undefined> {
    const [row] = await this.sql<{ until: number }[]>`SELECT until FROM verified_callbacks WHERE owner = ${owner} AND url = ${url} AND until > ${now}`;
    return row?.until;
  }

  async rememberCallback(owner: string, url: string, until: number): Promise<void> {
    await this.sql`
      INSERT INTO verified_callbacks (owner, url, until) VALUES (${owner}, ${url}, ${until})
      ON CONFLICT (owner, url) DO UPDATE SET until = excluded.until`;
  }

  // Ids are given out in commit order (see lockEventLog): every event at or below the log's newest id is committed,
  // with the deliveries its commit enqueued. One statement, so one snapshot.
  async watermark(id: string): Promise<number> {
    const [row] = await this.sql<[{ found: boolean; pending: number | null; head: number }]>`
      SELECT EXISTS (SELECT 1 FROM event_subscriptions WHERE id = ${id} AND ${this.own()}) AS found,
        (SELECT min(d.event_id) FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.subscription_id = ${id} AND d.state = 'pending') AS pending,
        (SELECT COALESCE(max(id), 0) FROM events) AS head`;
    if (!row.found) return 0;
    return row.pending !== null ? row.pending - 1 : row.head;
  }

  async replay(id: string, range: { after: number; notBefore?: string }): Promise<ReplayResult> {
    return this.sql.begin(async (tx) => {
      const sub = await this.row(id, tx, tx`FOR UPDATE`);
      if (!sub) throw noSubscription(id);
      const now = this.clock();
      const notBefore = range.notBefore ?? null;
      const [{ trigger_start, pruned, cut }] = await tx<[{ trigger_start: number; pruned: number; cut: boolean }]>`
        SELECT COALESCE((SELECT e.id FROM events e, triggers t WHERE t.id = ${sub.trigger_id} AND e.received_at < t.created_at ORDER BY e.id DESC LIMIT 1), 0) AS trigger_start,
          COALESCE((SELECT value::bigint FROM meta WHERE key = ${PRUNED_THROUGH_KEY}), 0) AS pruned,
          ${notBefore}::text IS NOT NULL AND EXISTS (
            SELECT 1 FROM events WHERE trigger_id = ${sub.trigger_id} AND id > ${range.after} AND received_at < ${notBefore}) AS cut`;
      const truncated = range.after < trigger_start || range.after < pruned || cut;
      if (sub.mode !== 'webhook' || sub.url === null) return { enqueued: 0, truncated };
      const wanted = tx`trigger_id = ${sub.trigger_id} AND id > ${range.after} AND (${notBefore}::text IS NULL OR received_at >= ${notBefore})`;
      const added = await tx`
        INSERT INTO deliveries (event_id, trigger_id, url, next_attempt_at, give_up_at, subscription_id)
        SELECT id, trigger_id, ${sub.url}, ${now}, ${now + SUBSCRIPTION_WINDOW_MS}, ${id} FROM events WHERE ${wanted} ORDER BY id FOR KEY SHARE
        ON CONFLICT DO NOTHING`;
      const revived = await tx`
        UPDATE deliveries SET state = 'pending', attempts = 0, next_attempt_at = ${now}, give_up_at = ${now + SUBSCRIPTION_WINDOW_MS}, claimed_by = NULL, claimed_until = NULL
        WHERE subscription_id = ${id} AND state IN ('failed', 'expired', 'cancelled') AND event_id IN (SELECT id FROM events WHERE ${wanted})`;
      return { enqueued: added.count + revived.count, truncated };
    });
  }
}
