import type Database from 'better-sqlite3';
import { consumerOf, ownedConsumer, type Owner } from '../owner.js';
import { toEvent, type EventRow } from '../rows.js';
import { LAST_DELIVERY_PRECISION_MS, PRUNED_THROUGH_KEY } from '../subscription-rules.js';
import type { ConsumerFailure, EventStore, TriggerEvent } from '../types.js';

/** The view owner's events; every owner's when @owner is NULL. */
const OWN = '(@owner IS NULL OR owner = @owner)';
/** The view owner's consumers (see ownedConsumer): the personal owner's names have no '/', a person's start with their id and '/'. */
const OWN_CONSUMERS = "(@owner IS NULL OR (@owner = '' AND instr(consumer, '/') = 0) OR (@owner <> '' AND substr(consumer, 1, length(@owner) + 1) = @owner || '/'))";

/** A delivered attempt's subscription needs its success written: failures to clear, or its last one older than the precision. */
const SUCCESS_UNRECORDED = `(last_delivery_at IS NULL OR last_delivery_at < @at - ${LAST_DELIVERY_PRECISION_MS} OR failed_since IS NOT NULL OR failed_attempts > 0)`;

type FailureRow = EventRow & { consumer: string; attempts: number; last_error: string; failed_at: string; retry_requested_at: string | null };

export class SqliteEventStore implements EventStore {
  private readonly scope: { owner: string | null };
  constructor(
    private readonly db: Database.Database,
    private readonly key: Buffer,
    private readonly clock: () => number = Date.now,
    private readonly owner: Owner = undefined,
  ) {
    this.scope = { owner: owner ?? null };
  }

  /** A consumer's stored name: kept apart per owner. */
  private consumer(name: string): string {
    return this.owner === undefined ? name : ownedConsumer(this.owner, name);
  }

  async after(cursor: number, options: { triggerIds?: string[]; limit: number; payloads?: boolean }): Promise<TriggerEvent[]> {
    const ids = options.triggerIds?.length ? options.triggerIds : null;
    // Without payloads (the log's tail: notices need the summary only) a row is a few dozen bytes, not kilobytes.
    const columns = options.payloads === false ? `id, trigger_id, kind, dedupe_key, occurred_at, received_at, summary, 'null' AS payload_json` : '*';
    const rows = ids
      ? (this.db
          .prepare(`SELECT ${columns} FROM events WHERE id > ? AND trigger_id IN (SELECT value FROM json_each(?)) AND ${OWN} ORDER BY id LIMIT ?`)
          .all(cursor, JSON.stringify(ids), options.limit, this.scope) as EventRow[])
      : (this.db.prepare(`SELECT ${columns} FROM events WHERE id > ? AND ${OWN} ORDER BY id LIMIT ?`).all(cursor, options.limit, this.scope) as EventRow[]);
    return rows.map(toEvent);
  }

  /** One SQLite file has no one to push commits: readers poll it. */
  async watchCommits(): Promise<undefined> {
    return undefined;
  }

  async latest(triggerId: string, limit: number): Promise<TriggerEvent[]> {
    const rows = this.db.prepare(`SELECT * FROM events WHERE trigger_id = ? AND ${OWN} ORDER BY id DESC LIMIT ?`).all(triggerId, limit, this.scope) as EventRow[];
    return rows.map(toEvent);
  }

  async lastId(receivedBefore?: string): Promise<number> {
    if (receivedBefore === undefined) return (this.db.prepare(`SELECT COALESCE(MAX(id), 0) AS id FROM events WHERE ${OWN}`).get(this.scope) as { id: number }).id;
    // Newest first: only the events received since then are read.
    const row = this.db.prepare(`SELECT id FROM events WHERE received_at < ? AND ${OWN} ORDER BY id DESC LIMIT 1`).get(receivedBefore, this.scope) as { id: number } | undefined;
    return row?.id ?? 0;
  }

  async cursor(consumer: string): Promise<number | undefined> {
    const row = this.db.prepare('SELECT cursor FROM consumers WHERE name = ?').get(this.consumer(consumer)) as { cursor: number } | undefined;
    return row?.cursor;
  }

  async setCursor(consumer: string, cursor: number): Promise<void> {
    this.writeCursor(this.consumer(consumer), cursor);
  }

  private writeCursor(consumer: string, cursor: number): void {
    this.db
      .prepare(
        `INSERT INTO consumers (name, cursor, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET cursor = MAX(cursor, excluded.cursor), updated_at = excluded.updated_at`,
      )
      .run(consumer, cursor, new Date(this.clock()).toISOString());
  }

  async recordFailure(consumer: string, eventId: number, failure: { attempts: number; error: string }): Promise<void> {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO consumer_failures (consumer, event_id, attempts, last_error, failed_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (consumer, event_id) DO UPDATE SET attempts = attempts + excluded.attempts, last_error = excluded.last_error,
             failed_at = excluded.failed_at, retry_requested_at = NULL`,
        )
        .run(this.consumer(consumer), eventId, failure.attempts, failure.error, new Date(this.clock()).toISOString());
      this.writeCursor(this.consumer(consumer), eventId);
    })();
  }

  async failures(filter: { consumer?: string } = {}): Promise<ConsumerFailure[]> {
    const rows = this.db
      .prepare(
        `SELECT f.consumer, f.attempts, f.last_error, f.failed_at, f.retry_requested_at, e.* FROM consumer_failures f JOIN events e ON e.id = f.event_id
         WHERE (? IS NULL OR f.consumer = ?) AND ${OWN_CONSUMERS.replaceAll('consumer', 'f.consumer')} ORDER BY f.event_id, f.consumer`,
      )
      .all(this.keyOrNull(filter.consumer), this.keyOrNull(filter.consumer), this.scope) as FailureRow[];
    return rows.map((r) => ({
      consumer: consumerOf(this.owner, r.consumer),
      event: toEvent(r),
      attempts: r.attempts,
      lastError: r.last_error,
      failedAt: r.failed_at,
      retryRequestedAt: r.retry_requested_at,
    }));
  }

  async requestRetry(filter: { consumer?: string; eventId?: number }): Promise<number> {
    return this.db
      .prepare(`UPDATE consumer_failures SET retry_requested_at = ? WHERE (? IS NULL OR consumer = ?) AND (? IS NULL OR event_id = ?) AND ${OWN_CONSUMERS}`)
      .run(new Date(this.clock()).toISOString(), this.keyOrNull(filter.consumer), this.keyOrNull(filter.consumer), filter.eventId ?? null, filter.eventId ?? null, this.scope)
      .changes;
  }

  async nextRetry(consumer: string): Promise<TriggerEvent | undefined> {
    const row = this.db
      .prepare(
        `SELECT e.* FROM consumer_failures f JOIN events e ON e.id = f.event_id
         WHERE f.consumer = ? AND f.retry_requested_at IS NOT NULL ORDER BY f.event_id LIMIT 1`,
      )
      .get(this.consumer(consumer)) as EventRow | undefined;
    return row && toEvent(row);
  }

  async clearFailure(consumer: string, eventId: number): Promise<void> {
    this.db.prepare('DELETE FROM consumer_failures WHERE consumer = ? AND event_id = ?').run(this.consumer(consumer), eventId);
  }

  private keyOrNull(consumer: string | undefined): string | null {
    return consumer === undefined ? null : this.consumer(consumer);
  }

  async recordAttempt(
    deliveryId: number,
    a: { status?: number; error?: string; durationMs: number; nextAttemptAt: number | null; delivered: boolean },
  ): Promise<void> {
    const at = this.clock();
    const state = a.delivered ? 'delivered' : a.nextAttemptAt === null ? 'failed' : 'pending';
    this.db.transaction(() => {
      const row = this.db
        .prepare(
          `UPDATE deliveries SET attempts = attempts + 1, state = ?, next_attempt_at = COALESCE(?, next_attempt_at), last_status = ?, last_error = ?,
             claimed_by = NULL, claimed_until = NULL
           WHERE id = ? RETURNING attempts, subscription_id`,
        )
        .get(state, a.nextAttemptAt, a.status ?? null, a.error ?? null, deliveryId) as { attempts: number; subscription_id: string | null } | undefined;
      if (!row) return;
      this.db
        .prepare('INSERT INTO delivery_attempts (delivery_id, attempt, at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?)')
        .run(deliveryId, row.attempts, new Date(at).toISOString(), a.status ?? null, a.error ?? null, Math.round(a.durationMs));
      if (a.delivered && row.subscription_id !== null) {
        this.db
          .prepare(`UPDATE event_subscriptions SET last_delivery_at = @at, failed_since = NULL, failed_attempts = 0, updated_at = @at WHERE id = @id AND ${SUCCESS_UNRECORDED}`)
          .run({ at, id: row.subscription_id });
      }
    })();
  }

  async deferDelivery(deliveryId: number, until: number): Promise<void> {
    this.db
      .prepare("UPDATE deliveries SET next_attempt_at = ?, give_up_at = MAX(give_up_at, ?), claimed_by = NULL, claimed_until = NULL WHERE id = ? AND state = 'pending'")
      .run(until, until, deliveryId);
  }

  async attempts(eventId: number): Promise<Array<{ attempt: number; status: number | null; error: string | null; at: string }>> {
    return this.db
      .prepare(
        `SELECT a.attempt, a.status, a.error, a.at FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
         WHERE d.event_id = ? AND d.event_id IN (SELECT id FROM events WHERE ${OWN}) ORDER BY a.id`,
      )
      .all(eventId, this.scope) as Array<{ attempt: number; status: number | null; error: string | null; at: string }>;
  }

  async prune(before: string): Promise<number> {
    const boundary = await this.lastId(before);
    const batch = this.db.transaction((): number => {
      const ids = (
        this.db
          .prepare(
            `SELECT id FROM events e WHERE id <= @boundary AND received_at < @before AND ${OWN}
               AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.state = 'pending')
               AND NOT EXISTS (SELECT 1 FROM consumer_failures f WHERE f.event_id = e.id)
             ORDER BY id LIMIT ${PRUNE_BATCH}`,
          )
          .all({ boundary, before, ...this.scope }) as Array<{ id: number }>
      ).map((r) => r.id);
      if (!ids.length) return 0;
      const list = JSON.stringify(ids);
      // Their attempts go with them (ON DELETE CASCADE).
      this.db.prepare('DELETE FROM deliveries WHERE event_id IN (SELECT value FROM json_each(?))').run(list);
      this.db.prepare('DELETE FROM events WHERE id IN (SELECT value FROM json_each(?))').run(list);
      this.db
        .prepare(
          `INSERT INTO meta (key, value) VALUES (?, ?)
           ON CONFLICT (key) DO UPDATE SET value = MAX(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))`,
        )
        .run(PRUNED_THROUGH_KEY, String(ids.at(-1)));
      return ids.length;
    });
    let removed = 0;
    for (let n = PRUNE_BATCH; boundary > 0 && n === PRUNE_BATCH; removed += n) n = batch.immediate();
    return removed;
  }

  async prunedThrough(): Promise<number> {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(PRUNED_THROUGH_KEY) as { value: string } | undefined;
    return Number(row?.value ?? 0);
  }
}

/** Events one prune transaction removes at most, so a large first prune never holds the writer's lock for long. */
const PRUNE_BATCH = 1000;
