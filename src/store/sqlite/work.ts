import type Database from 'better-sqlite3';
import { PAYLOAD_ONCE, toDeliveries, toTrigger, type DeliveryRow, type TriggerRow } from '../rows.js';
import type { Delivery, Trigger, WorkStore } from '../types.js';

/** Claims in one SQLite file: each claim is one immediate transaction, so two processes never take the same work. */
/**
 * A trigger runs while its owner may: not a disabled person, and still allowed the account (theirs, or shared with
 * them). Else it is stopped: not polled, and no event committed for it.
 */
export const TRIGGER_RUNS = `NOT EXISTS (SELECT 1 FROM team_users u WHERE u.id = triggers.owner AND u.disabled = 1)
  AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = triggers.account_id
    AND (a.owner = triggers.owner OR EXISTS (SELECT 1 FROM account_grants g WHERE g.account_id = a.id AND g.grantee IN (triggers.owner, '*'))))`;

/** A subscription that takes deliveries at @now: there, active, and not past its refreshBefore. */
const LIVE_SUBSCRIPTION = `SELECT 1 FROM event_subscriptions s WHERE s.id = deliveries.subscription_id AND s.status = 'active'
  AND (s.refresh_before IS NULL OR s.refresh_before > @now)`;

export class SqliteWorkStore implements WorkStore {
  constructor(
    private readonly db: Database.Database,
    private readonly key: Buffer,
    private readonly clock: () => number = Date.now,
  ) {}

  async claimPolls(holder: string, kinds: string[], limit: number, ttlMs: number): Promise<Trigger[]> {
    const now = this.clock();
    const rows = this.db
      .prepare(
        `UPDATE triggers SET claimed_by = @holder, claimed_until = @until, poll_again = 0
         WHERE id IN (
           SELECT id FROM triggers
           WHERE kind IN (SELECT value FROM json_each(@kinds)) AND COALESCE(next_poll_at, 0) <= @now AND COALESCE(claimed_until, 0) < @now
             AND ${TRIGGER_RUNS}
           ORDER BY COALESCE(next_poll_at, 0), rowid LIMIT @limit)
         RETURNING *`,
      )
      .all({ holder, until: now + ttlMs, kinds: JSON.stringify(kinds), now, limit }) as TriggerRow[];
    return rows.map(toTrigger);
  }

  async finishPoll(triggerId: string, holder: string, delayMs: number): Promise<void> {
    this.db
      .prepare(
        `UPDATE triggers SET next_poll_at = CASE WHEN poll_again THEN 0 ELSE ? END, poll_again = 0, claimed_by = NULL, claimed_until = NULL
         WHERE id = ? AND claimed_by = ?`,
      )
      .run(this.clock() + delayMs, triggerId, holder);
  }

  async pollSoon(triggerId: string): Promise<void> {
    this.db.prepare('UPDATE triggers SET next_poll_at = 0, poll_again = claimed_by IS NOT NULL WHERE id = ?').run(triggerId);
  }

  async pollAccountSoon(accountId: string): Promise<void> {
    this.db.prepare('UPDATE triggers SET next_poll_at = 0, poll_again = claimed_by IS NOT NULL WHERE account_id = ?').run(accountId);
  }

  async deliveryBacklog(): Promise<{ due: number; waiting: number }> {
    const row = this.db
      .prepare(`SELECT COALESCE(SUM(next_attempt_at <= @now), 0) AS due, COALESCE(SUM(next_attempt_at > @now), 0) AS waiting FROM deliveries WHERE state = 'pending'`)
      .get({ now: this.clock() }) as { due: number; waiting: number };
    return { due: row.due, waiting: row.waiting };
  }

  /**
   * The due deliveries, oldest first. One whose subscription no longer takes deliveries (lapsed, suspended, removed)
   * is given up as it comes due rather than handed out, and the claim looks further, so it still fills up.
   */
  async claimDeliveries(holder: string, limit: number, ttlMs: number): Promise<Delivery[]> {
    const now = this.clock();
    const due = this.db.prepare(
      `SELECT id, (subscription_id IS NULL OR EXISTS (${LIVE_SUBSCRIPTION})) AS live FROM deliveries
       WHERE state = 'pending' AND next_attempt_at <= @now AND COALESCE(claimed_until, 0) < @now
         AND trigger_id NOT IN (SELECT t.id FROM triggers t JOIN team_users u ON u.id = t.owner WHERE u.disabled = 1)
       ORDER BY next_attempt_at, id LIMIT @limit`,
    );
    const inIds = 'WHERE id IN (SELECT value FROM json_each(@ids))';
    const claim = this.db.transaction(() => {
      const taken: number[] = [];
      for (let want = limit; want > 0; want = limit - taken.length) {
        const rows = due.all({ now, limit: want }) as Array<{ id: number; live: number }>;
        const [live, lapsed] = [rows.filter((r) => r.live).map((r) => r.id), rows.filter((r) => !r.live).map((r) => r.id)];
        if (live.length) {
          this.db.prepare(`UPDATE deliveries SET claimed_by = @holder, claimed_until = @until ${inIds}`).run({ ids: JSON.stringify(live), holder, until: now + ttlMs });
        }
        if (lapsed.length) {
          this.db.prepare(`UPDATE deliveries SET state = 'expired', claimed_by = NULL, claimed_until = NULL ${inIds}`).run({ ids: JSON.stringify(lapsed) });
        }
        taken.push(...live);
        if (lapsed.length === 0 || rows.length < want) break;
      }
      return this.db
        .prepare(
          `SELECT d.id AS delivery_id, d.url, d.attempts, d.give_up_at, t.secret_enc, d.subscription_id,
             s.name AS subscription_name, s.secret_enc AS subscription_secret_enc, s.refresh_before,
             (SELECT MIN(o.event_id) FROM deliveries o WHERE o.subscription_id = d.subscription_id AND o.state = 'pending') AS owed_from,
             ${PAYLOAD_ONCE('d')}
           FROM deliveries d JOIN events e ON e.id = d.event_id LEFT JOIN triggers t ON t.id = d.trigger_id
             LEFT JOIN event_subscriptions s ON s.id = d.subscription_id
           WHERE d.id IN (SELECT value FROM json_each(?)) ORDER BY d.next_attempt_at, d.id`,
        )
        .all(JSON.stringify(taken)) as DeliveryRow[];
    });
    return toDeliveries(claim.immediate(), this.key, now);
  }

  async renewClaims(holder: string, ttlMs: number): Promise<void> {
    const until = this.clock() + ttlMs;
    this.db.transaction(() => {
      this.db.prepare('UPDATE triggers SET claimed_until = ? WHERE claimed_by = ?').run(until, holder);
      this.db.prepare('UPDATE deliveries SET claimed_until = ? WHERE claimed_by = ?').run(until, holder);
    })();
  }
}
