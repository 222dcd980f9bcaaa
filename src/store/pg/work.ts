import { PAYLOAD_ONCE, toDeliveries, toTrigger, type DeliveryRow, type TriggerRow } from '../rows.js';
import type { Delivery, Trigger, WorkStore } from '../types.js';
import { NOW_MS, type Sql } from './connection.js';

/**
 * Claims with FOR UPDATE SKIP LOCKED: instances claiming at the same moment each take rows the others have not
 * locked, instead of queueing behind each other. Every time here is the database's clock.
 */
/** A trigger runs while its owner may: not a disabled person, and still allowed the account (see the SQLite store's TRIGGER_RUNS). */
export const TRIGGER_RUNS = `NOT EXISTS (SELECT 1 FROM team_users u WHERE u.id = triggers.owner AND u.disabled)
  AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = triggers.account_id
    AND (a.owner = triggers.owner OR EXISTS (SELECT 1 FROM account_grants g WHERE g.account_id = a.id AND g.grantee IN (triggers.owner, '*'))))`;

export class PgWorkStore implements WorkStore {
  private readonly now: ReturnType<Sql['unsafe']>;

  constructor(
    private readonly sql: Sql,
    private readonly key: Buffer,
  ) {
    this.now = sql.unsafe(NOW_MS);
  }

  async claimPolls(holder: string, kinds: string[], limit: number, ttlMs: number): Promise<Trigger[]> {
    const rows = await this.sql<TriggerRow[]>`
      WITH due AS (
        SELECT id FROM triggers
        WHERE kind = ANY(${kinds}::text[]) AND COALESCE(next_poll_at, 0) <= ${this.now} AND COALESCE(claimed_until, 0) < ${this.now}
          AND ${this.sql.unsafe(TRIGGER_RUNS)}
        ORDER BY COALESCE(next_poll_at, 0), seq LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      UPDATE triggers t SET claimed_by = ${holder}, claimed_until = ${this.now} + ${ttlMs}, poll_again = false
      FROM due WHERE t.id = due.id
      RETURNING t.*`;
    return rows.map(toTrigger);
  }

  async finishPoll(triggerId: string, holder: string, delayMs: number): Promise<void> {
    await this.sql`
      UPDATE triggers SET next_poll_at = CASE WHEN poll_again THEN 0 ELSE ${this.now} + ${delayMs} END,
        poll_again = false, claimed_by = NULL, claimed_until = NULL
      WHERE id = ${triggerId} AND claimed_by = ${holder}`;
  }

  async pollSoon(triggerId: string): Promise<void> {
    await this.sql`UPDATE triggers SET next_poll_at = 0, poll_again = claimed_by IS NOT NULL WHERE id = ${triggerId}`;
  }

  async pollAccountSoon(accountId: string): Promise<void> {
    await this.sql`UPDATE triggers SET next_poll_at = 0, poll_again = claimed_by IS NOT NULL WHERE account_id = ${accountId}`;
  }

  async deliveryBacklog(): Promise<{ due: number; waiting: number }> {
    const now = Date.now();
    const [row] = await this.sql<Array<{ due: number; waiting: number }>>`
      SELECT count(*) FILTER (WHERE next_attempt_at <= ${now})::int AS due, count(*) FILTER (WHERE next_attempt_at > ${now})::int AS waiting
      FROM deliveries WHERE state = 'pending'`;
    return { due: row!.due, waiting: row!.waiting };
  }

  /**
   * The due deliveries, oldest first. One whose subscription no longer takes deliveries (lapsed, suspended, removed)
   * is given up as it comes due rather than handed out, and the claim looks further, so it still fills up.
   */
  async claimDeliveries(holder: string, limit: number, ttlMs: number): Promise<Delivery[]> {
    const now = Date.now();
    const taken: Delivery[] = [];
    for (let want = limit; want > 0; want = limit - taken.length) {
      const rows = await this.claimOnce(holder, want, ttlMs, now);
      taken.push(...toDeliveries(rows.filter((row) => row.live), this.key, now));
      if (rows.every((row) => row.live) || rows.length < want) break;
    }
    return taken;
  }

  /** One claim of up to `limit` due deliveries: the row of each, and whether it was claimed (live) or given up. */
  private async claimOnce(holder: string, limit: number, ttlMs: number, now: number): Promise<Array<DeliveryRow & { live: boolean }>> {
    // An attempt's due time and a subscription's refreshBefore were set on the clock of the process that wrote them; claims use the database's.
    const live = this.sql`EXISTS (SELECT 1 FROM event_subscriptions s WHERE s.id = deliveries.subscription_id AND s.status = 'active'
      AND (s.refresh_before IS NULL OR s.refresh_before > ${now}::bigint))`;
    return await this.sql<Array<DeliveryRow & { live: boolean }>>`
      WITH due AS (
        SELECT id, (subscription_id IS NULL OR ${live}) AS live FROM deliveries
        WHERE state = 'pending' AND next_attempt_at <= ${now} AND COALESCE(claimed_until, 0) < ${this.now}
          AND trigger_id NOT IN (SELECT t.id FROM triggers t JOIN team_users u ON u.id = t.owner WHERE u.disabled)
        ORDER BY next_attempt_at, id LIMIT ${limit}
        FOR UPDATE SKIP LOCKED),
      lapsed AS (
        UPDATE deliveries d SET state = 'expired', claimed_by = NULL, claimed_until = NULL
        FROM due WHERE d.id = due.id AND NOT due.live),
      claimed AS (
        UPDATE deliveries d SET claimed_by = ${holder}, claimed_until = ${this.now} + ${ttlMs}
        FROM due WHERE d.id = due.id AND due.live
        RETURNING d.*)
      SELECT due.live, c.id AS delivery_id, c.url, c.attempts, c.give_up_at, t.secret_enc, c.subscription_id,
        s.name AS subscription_name, s.secret_enc AS subscription_secret_enc, s.refresh_before,
        (SELECT min(o.event_id) FROM deliveries o WHERE o.subscription_id = c.subscription_id AND o.state = 'pending') AS owed_from,
        ${this.sql.unsafe(PAYLOAD_ONCE('c'))}
      FROM due LEFT JOIN claimed c ON c.id = due.id LEFT JOIN events e ON e.id = c.event_id LEFT JOIN triggers t ON t.id = c.trigger_id
        LEFT JOIN event_subscriptions s ON s.id = c.subscription_id
      WHERE c.id IS NULL OR e.id IS NOT NULL
      ORDER BY c.next_attempt_at, c.id`;
  }

  async renewClaims(holder: string, ttlMs: number): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`UPDATE triggers SET claimed_until = ${this.now} + ${ttlMs} WHERE claimed_by = ${holder}`;
      await tx`UPDATE deliveries SET claimed_until = ${this.now} + ${ttlMs} WHERE claimed_by = ${holder}`;
    });
  }
}
