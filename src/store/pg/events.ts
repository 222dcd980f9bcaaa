import { consumerOf, ownedConsumer, type Owner } from '../owner.js';
import { toEvent, type EventRow } from '../rows.js';
import { LAST_DELIVERY_PRECISION_MS, PRUNED_THROUGH_KEY } from '../subscription-rules.js';
import type { ConsumerFailure, EventStore, TriggerEvent } from '../types.js';
import { COMMITS_CHANNEL, type Queryable, type Sql } from './connection.js';

type FailureRow = EventRow & { consumer: string; attempts: number; last_error: string; failed_at: string; retry_requested_at: string | null };

export class PgEventStore implements EventStore {
  /** Whose events and consumers this view reads and writes; null for every owner's. */
  private readonly o: string | null;
  constructor(
    private readonly sql: Sql,
    private readonly key: Buffer,
    private readonly clock: () => number = Date.now,
    private readonly owner: Owner = undefined,
  ) {
    this.o = owner ?? null;
  }

  private own(column = this.sql`owner`) {
    return this.sql`(${this.o}::text IS NULL OR ${column} = ${this.o})`;
  }

  /** A consumer's stored name: kept apart per owner (see ownedConsumer). */
  private consumer(name: string): string;
  private consumer(name: string | undefined): string | null;
  private consumer(name: string | undefined): string | null {
    if (name === undefined) return null;
    return this.owner === undefined ? name : ownedConsumer(this.owner, name);
  }

  /** The view owner's consumers: the personal owner's names have no '/', a person's start with their id and '/'. */
  private ownConsumers(column: string) {
    const c = this.sql(column);
    return this.sql`(${this.o}::text IS NULL OR (${this.o} = '' AND strpos(${c}, '/') = 0) OR (${this.o} <> '' AND left(${c}, length(${this.o}) + 1) = ${this.o} || '/'))`;
  }

  // Ids are given out in commit order (see lockEventLog), so a reader that saw id n has seen every event below n.
  async after(cursor: number, options: { triggerIds?: string[]; limit: number; payloads?: boolean }): Promise<TriggerEvent[]> {
    const ids = options.triggerIds?.length ? options.triggerIds : null;
    // Without payloads (the log's tail: notices need the summary only) a row is a few dozen bytes, not kilobytes.
    const payload = options.payloads === false ? this.sql`NULL::json AS payload_json` : this.sql`payload_json`;
    const rows = await this.sql<EventRow[]>`
      SELECT id, trigger_id, kind, dedupe_key, occurred_at, received_at, summary, ${payload} FROM events
      WHERE id > ${cursor} ${ids ? this.sql`AND trigger_id = ANY(${ids}::text[])` : this.sql``} AND ${this.own()}
      ORDER BY id LIMIT ${options.limit}`;
    return rows.map(toEvent);
  }

  /** Every commit that appends to the log notifies (lockEventLog); postgres.js listens again after a reconnect and calls onlisten then. */
  async watchCommits(listener: () => void): Promise<() => Promise<void>> {
    const { unlisten } = await this.sql.listen(COMMITS_CHANNEL, () => listener(), () => listener());
    return unlisten;
  }

  async latest(triggerId: string, limit: number): Promise<TriggerEvent[]> {
    const rows = await this.sql<EventRow[]>`SELECT * FROM events WHERE trigger_id = ${triggerId} AND ${this.own()} ORDER BY id DESC LIMIT ${limit}`;
    return rows.map(toEvent);
  }

  async lastId(receivedBefore?: string): Promise<number> {
    const [row] =
      receivedBefore === undefined
        ? await this.sql<{ id: number }[]>`SELECT COALESCE(max(id), 0) AS id FROM events WHERE ${this.own()}`
        : // Newest first: only the events received since then are read.
          await this.sql<{ id: number }[]>`SELECT id FROM events WHERE received_at < ${receivedBefore} AND ${this.own()} ORDER BY id DESC LIMIT 1`;
    return row?.id ?? 0;
  }

  async cursor(consumer: string): Promise<number | undefined> {
    const [row] = await this.sql<{ cursor: number }[]>`SELECT cursor FROM consumers WHERE name = ${this.consumer(consumer)}`;
    return row?.cursor;
  }

  async setCursor(consumer: string, cursor: number): Promise<void> {
    await this.writeCursor(this.sql, this.consumer(consumer), cursor);
  }

  private async writeCursor(db: Queryable, consumer: string, cursor: number): Promise<void> {
    await db`
      INSERT INTO consumers (name, cursor, updated_at) VALUES (${consumer}, ${cursor}, ${this.now()})
      ON CONFLICT (name) DO UPDATE SET cursor = GREATEST(consumers.cursor, excluded.cursor), updated_at = excluded.updated_at`;
  }

  async recordFailure(consumer: string, eventId: number, failure: { attempts: number; error: string }): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`
        INSERT INTO consumer_failures (consumer, event_id, attempts, last_error, failed_at)
        VALUES (${this.consumer(consumer)}, ${eventId}, ${failure.attempts}, ${failure.error}, ${this.now()})
        ON CONFLICT (consumer, event_id) DO UPDATE SET attempts = consumer_failures.attempts + excluded.attempts,
          last_error = excluded.last_error, failed_at = excluded.failed_at, retry_requested_at = NULL`;
      await this.writeCursor(tx, this.consumer(consumer), eventId);
    });
  }

  async failures(filter: { consumer?: string } = {}): Promise<ConsumerFailure[]> {
    const consumer = this.consumer(filter.consumer);
    const rows = await this.sql<FailureRow[]>`
      SELECT f.consumer, f.attempts, f.last_error, f.failed_at, f.retry_requested_at, e.*
      FROM consumer_failures f JOIN events e ON e.id = f.event_id
      WHERE (${consumer}::text IS NULL OR f.consumer = ${consumer}) AND ${this.ownConsumers('f.consumer')} ORDER BY f.event_id, f.consumer`;
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
    const consumer = this.consumer(filter.consumer);
    const eventId = filter.eventId ?? null;
    const result = await this.sql`
      UPDATE consumer_failures SET retry_requested_at = ${this.now()}
      WHERE (${consumer}::text IS NULL OR consumer = ${consumer}) AND (${eventId}::bigint IS NULL OR event_id = ${eventId}) AND ${this.ownConsumers('consumer')}`;
    return result.count;
  }

  async nextRetry(consumer: string): Promise<TriggerEvent | undefined> {
    const [row] = await this.sql<EventRow[]>`
      SELECT e.* FROM consumer_failures f JOIN events e ON e.id = f.event_id
      WHERE f.consumer = ${this.consumer(consumer)} AND f.retry_requested_at IS NOT NULL ORDER BY f.event_id LIMIT 1`;
    return row && toEvent(row);
  }

  async clearFailure(consumer: string, eventId: number): Promise<void> {
    await this.sql`DELETE FROM consumer_failures WHERE consumer = ${this.consumer(consumer)} AND event_id = ${eventId}`;
  }

  async recordAttempt(
    deliveryId: number,
    a: { status?: number; error?: string; durationMs: number; nextAttemptAt: number | null; delivered: boolean },
  ): Promise<void> {
    const at = this.clock();
    const state = a.delivered ? 'delivered' : a.nextAttemptAt === null ? 'failed' : 'pending';
    // One statement, so one round trip; a delivered attempt's subscription is written only when its success needs it.
    await this.sql`
      WITH attempted AS (
        UPDATE deliveries SET attempts = attempts + 1, state = ${state}, next_attempt_at = COALESCE(${a.nextAttemptAt}::bigint, next_attempt_at),
          last_status = ${a.status ?? null}, last_error = ${a.error ?? null}, claimed_by = NULL, claimed_until = NULL
        WHERE id = ${deliveryId} RETURNING id, attempts, subscription_id),
      logged AS (
        INSERT INTO delivery_attempts (delivery_id, attempt, at, status, error, duration_ms)
        SELECT id, attempts, ${this.now()}::text, ${a.status ?? null}::integer, ${a.error ?? null}::text, ${Math.round(a.durationMs)}::integer FROM attempted)
      UPDATE event_subscriptions s SET last_delivery_at = ${at}, failed_since = NULL, failed_attempts = 0, updated_at = ${at}
      FROM attempted WHERE ${a.delivered}::boolean AND s.id = attempted.subscription_id
        AND (s.last_delivery_at IS NULL OR s.last_delivery_at < ${at - LAST_DELIVERY_PRECISION_MS} OR s.failed_since IS NOT NULL OR s.failed_attempts > 0)`;
  }

  async deferDelivery(deliveryId: number, until: number): Promise<void> {
    await this.sql`
      UPDATE deliveries SET next_attempt_at = ${until}, give_up_at = GREATEST(give_up_at, ${until}::bigint), claimed_by = NULL, claimed_until = NULL
      WHERE id = ${deliveryId} AND state = 'pending'`;
  }

  async attempts(eventId: number): Promise<Array<{ attempt: number; status: number | null; error: string | null; at: string }>> {
    return this.sql<Array<{ attempt: number; status: number | null; error: string | null; at: string }>>`
      SELECT a.attempt, a.status, a.error, a.at FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
      WHERE d.event_id = ${eventId} AND d.event_id IN (SELECT id FROM events WHERE ${this.own()}) ORDER BY a.id`;
  }

  async prune(before: string): Promise<number> {
    const boundary = await this.lastId(before);
    let removed = 0;
    for (let n = PRUNE_BATCH; boundary > 0 && n === PRUNE_BATCH; removed += n) {
      n = await this.sql.begin(async (tx) => {
        // Locked, so a replay enqueuing a delivery for one of them meanwhile (it key-share locks them) is not lost with it.
        const ids = (
          await tx<{ id: number }[]>`
            SELECT id FROM events e WHERE id <= ${boundary} AND received_at < ${before} AND ${this.own()}
              AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.state = 'pending')
              AND NOT EXISTS (SELECT 1 FROM consumer_failures f WHERE f.event_id = e.id)
            ORDER BY id LIMIT ${PRUNE_BATCH} FOR UPDATE SKIP LOCKED`
        ).map((r) => Number(r.id));
        if (!ids.length) return 0;
        // Their attempts go with them (ON DELETE CASCADE).
        await tx`DELETE FROM deliveries WHERE event_id = ANY(${ids}::bigint[])`;
        await tx`DELETE FROM events WHERE id = ANY(${ids}::bigint[])`;
        await tx`
          INSERT INTO meta (key, value) VALUES (${PRUNED_THROUGH_KEY}, ${String(ids.at(-1))})
          ON CONFLICT (key) DO UPDATE SET value = GREATEST(meta.value::bigint, excluded.value::bigint)::text`;
        return ids.length;
      });
    }
    return removed;
  }

  async prunedThrough(): Promise<number> {
    const [row] = await this.sql<{ value: string }[]>`SELECT value FROM meta WHERE key = ${PRUNED_THROUGH_KEY}`;
    return Number(row?.value ?? 0);
  }

  private now(): string {
    return new Date(this.clock()).toISOString();
  }
}

/** Events one prune transaction removes at most, so a large first prune never holds its locks for long. */
const PRUNE_BATCH = 1000;
