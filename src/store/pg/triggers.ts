import { decryptSecret, encryptSecret } from '../crypto.js';
import { PERSONAL_OWNER, type Owner } from '../owner.js';
import { toTrigger, type TriggerRow } from '../rows.js';
import { SUBSCRIPTION_WINDOW_MS } from '../subscription-rules.js';
import { checkRefKey, countsByTrigger, FORWARD_WINDOW_MS, noAccount } from '../trigger-rules.js';
import { newTriggerId, type CommitInput, type CommitItem, type NewTrigger, type Trigger, type TriggerEvent, type TriggerSecrets, type TriggerStore } from '../types.js';
import { TRIGGER_RUNS } from './work.js';
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
  /** Whose triggers this view reads and writes; null for every owner's. */
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

  /** The view's own triggers. */
  private own(db: Sql | Tx = this.sql) {
    return db`(${this.o}::text IS NULL OR owner = ${this.o})`;
  }

  async create(input: NewTrigger): Promise<Trigger> {
    const id = input.id ?? newTriggerId();
    const secrets = input.secrets && Object.keys(input.secrets).length ? encryptSecret(this.key, JSON.stringify(input.secrets), id) : null;
    try {
      const [row] = await this.sql.begin(async (tx) => {
        if (secrets !== null) await this.guard(tx);
        const [usable] = await tx`
          SELECT 1 FROM accounts WHERE id = ${input.accountId}
            AND (${this.o}::text IS NULL OR owner = ${this.o} OR id IN (SELECT account_id FROM account_grants WHERE grantee IN (${this.o}, '*')))`;
        if (!usable) throw noAccount(input.accountId);
        return tx<TriggerRow[]>`
          INSERT INTO triggers (id, owner, kind, account_id, config_json, forward_url, secret_enc, provider_refs_json, state_json, created_at, origin)
          VALUES (${id}, ${this.o ?? PERSONAL_OWNER}, ${input.kind}, ${input.accountId}, ${JSON.stringify(input.config)}::text::json, ${input.forwardUrl ?? null}, ${secrets},
            ${JSON.stringify(input.providerRefs ?? {})}::text::json, ${JSON.stringify(input.state ?? {})}::text::json, ${new Date(this.clock()).toISOString()}, ${input.origin ?? null})
          RETURNING *`;
      });
      return toTrigger(row);
    } catch (error) {
      if ((error as { code?: string }).code === '23503') throw noAccount(input.accountId);
      throw error;
    }
  }

  async get(id: string): Promise<Trigger | undefined> {
    const [row] = await this.sql<TriggerRow[]>`SELECT * FROM triggers WHERE id = ${id} AND ${this.own()}`;
    return row && toTrigger(row);
  }

  async list(filter: { accountId?: string; kind?: string } = {}): Promise<Trigger[]> {
    const rows = await this.sql<TriggerRow[]>`
      SELECT * FROM triggers
      WHERE (${filter.accountId ?? null}::text IS NULL OR account_id = ${filter.accountId ?? null})
        AND (${filter.kind ?? null}::text IS NULL OR kind = ${filter.kind ?? null}) AND ${this.own()}
      ORDER BY created_at, seq`;
    return rows.map(toTrigger);
  }

  async remove(id: string): Promise<Trigger | undefined> {
    const [row] = await this.sql.begin(async (tx) => {
      const [found] = await tx`SELECT 1 FROM triggers WHERE id = ${id} AND ${this.own(tx)}`;
      if (!found) return [];
      await tx`UPDATE deliveries SET state = 'cancelled' WHERE trigger_id = ${id} AND state = 'pending'`;
      return tx<TriggerRow[]>`DELETE FROM triggers WHERE id = ${id} RETURNING *`;
    });
    return row && toTrigger(row);
  }

  async secrets(id: string): Promise<TriggerSecrets> {
    const [row] = await this.sql<{ secret_enc: string | null }[]>`SELECT secret_enc FROM triggers WHERE id = ${id} AND ${this.own()}`;
    return row?.secret_enc ? JSON.parse(decryptSecret(this.key, row.secret_enc, id)) : {};
  }

  async setSecrets(id: string, secrets: TriggerSecrets): Promise<void> {
    await this.sql.begin(async (tx) => {
      await this.guard(tx);
      await tx`UPDATE triggers SET secret_enc = ${encryptSecret(this.key, JSON.stringify(secrets), id)} WHERE id = ${id} AND ${this.own(tx)}`;
    });
  }

  async update(id: string, patch: { state?: Record<string, unknown>; providerRefs?: Record<string, unknown> }): Promise<void> {
    if (patch.state) await this.sql`UPDATE triggers SET state_json = ${JSON.stringify(patch.state)}::text::json WHERE id = ${id} AND ${this.own()}`;
    if (patch.providerRefs) await this.sql`UPDATE triggers SET provider_refs_json = ${JSON.stringify(patch.providerRefs)}::text::json WHERE id = ${id} AND ${this.own()}`;
  }

  async note(id: string, note: { set?: Record<string, unknown>; count?: { key: string; by: number } }): Promise<void> {
    for (const key of [...Object.keys(note.set ?? {}), ...(note.count ? [note.count.key] : [])]) checkRefKey(key);
    // The row lock makes concurrent notes wait for each other; merging here keeps the JSON's key order (jsonb would sort it).
    await this.sql.begin(async (tx) => {
      const [row] = await tx<{ refs: string }[]>`SELECT provider_refs_json AS refs FROM triggers WHERE id = ${id} AND ${this.own(tx)} FOR UPDATE`;
      if (!row) return;
      const refs: Record<string, unknown> = { ...JSON.parse(row.refs), ...note.set };
      if (note.count) refs[note.count.key] = Number(refs[note.count.key] ?? 0) + note.count.by;
      await tx`UPDATE triggers SET provider_refs_json = ${JSON.stringify(refs)}::text::json WHERE id = ${id}`;
    });
  }

  async commit(triggerId: string, input: CommitInput): Promise<TriggerEvent[]> {
    const [outcome] = await this.commitMany([{ triggerId, input }]);
    if (outcome!.status === 'rejected') throw outcome!.reason;
    return outcome!.value;
  }

  async commitMany(items: CommitItem[]): Promise<Array<PromiseSettledResult<TriggerEvent[]>>> {
    const now = this.clock();
    // A payload or state that cannot be written as JSON fails its own item before anything is sent.
    const outcomes: Array<PromiseSettledResult<TriggerEvent[]> | undefined> = [];
    const batch: Prepared[] = [];
    items.forEach((item, at) => {
      try {
        const state = item.input.state ? JSON.stringify(item.input.state) : null;
        batch.push({ at, item, payloads: item.input.events.map((e) => JSON.stringify(e.payload)), state });
      } catch (reason) {
        outcomes[at] = { status: 'rejected', reason };
      }
    });
    try {
      const added = batch.length ? await this.append(batch, now) : [];
      batch.forEach(({ at }, i) => (outcomes[at] = { status: 'fulfilled', value: added[i]! }));
    } catch (error) {
      // A value the database refuses belongs to one item: each is then committed alone, in order, so only its own fails.
      if (batch.length < 2 || !isDataError(error)) throw error;
      for (const { at, item } of batch) {
        outcomes[at] = await this.commitMany([item]).then(
          ([alone]) => alone!,
          (reason: unknown) => ({ status: 'rejected', reason }) as const,
        );
      }
    }
    return outcomes as Array<PromiseSettledResult<TriggerEvent[]>>;
  }

  /**
   * The batch's events, in input order, and each trigger's counts and state, in one statement (so one round trip, and
   * its own transaction): a batch is written while the next one gathers, and waits for no turn of this process's event
   * loop between queries. The triggers' rows are locked first, in one order for every writer, then the log's lock
   * (it reads them all), before any id is drawn (the insert reads the lock).
   */
  private async append(batch: Prepared[], now: number): Promise<TriggerEvent[][]> {
    const receivedAt = new Date(now).toISOString();
    const ids = [...new Set(batch.map(({ item }) => item.triggerId))].sort();
    const proposed = { triggerIds: [] as string[], keys: [] as string[], occurred: [] as string[], summaries: [] as string[], payloads: [] as string[] };
    for (const { item, payloads } of batch) {
      item.input.events.forEach((e, i) => {
        proposed.triggerIds.push(item.triggerId);
        proposed.keys.push(e.dedupeKey);
        proposed.occurred.push(e.occurredAt);
        proposed.summaries.push(e.summary);
        proposed.payloads.push(payloads[i]!);
      });
    }
    // Each trigger's counts but its fired events, which the statement counts as it inserts them.
    const counts = [...countsByTrigger(batch.map((b) => b.item), batch.map((b) => b.state), batch.map(() => []), () => true).entries()];
    const inserted = await this.sql<Array<{ id: number; trigger_id: string; dedupe_key: string; kind: string; stale: boolean }>>`
      WITH runs AS MATERIALIZED (
        SELECT id, kind, forward_url, owner, subscriptions, (SELECT count(*) FROM event_subscriptions s WHERE s.trigger_id = triggers.id) AS visible FROM triggers
        WHERE id = ANY(${ids}::text[]) AND ${this.own()} AND ${this.sql.unsafe(TRIGGER_RUNS)}
        ORDER BY id FOR NO KEY UPDATE
      ), log_lock AS MATERIALIZED (
        SELECT pg_advisory_xact_lock(${LOCK_SPACE}, ${LOCKS.eventLog}), pg_notify(${COMMITS_CHANNEL}, '')
        FROM (SELECT count(*) FROM runs) locked WHERE ${proposed.keys.length > 0}
      ), added AS (
        INSERT INTO events (trigger_id, owner, kind, dedupe_key, occurred_at, received_at, summary, payload_json)
        SELECT e.trigger_id, t.owner, t.kind, e.dedupe_key, e.occurred_at, ${receivedAt}::text, e.summary, e.payload::json
        FROM log_lock, unnest(${proposed.triggerIds}::text[], ${proposed.keys}::text[], ${proposed.occurred}::text[], ${proposed.summaries}::text[], ${proposed.payloads}::text[])
          WITH ORDINALITY AS e(trigger_id, dedupe_key, occurred_at, summary, payload, n)
          JOIN runs t ON t.id = e.trigger_id
        ORDER BY e.n
        ON CONFLICT (trigger_id, dedupe_key) DO NOTHING RETURNING id, trigger_id, dedupe_key, kind
      ), fired AS (
        SELECT trigger_id, count(*) AS n FROM added GROUP BY trigger_id
      ), counted AS (
        UPDATE triggers SET fired = triggers.fired + COALESCE(f.n, 0), skipped = triggers.skipped + c.skipped,
          errors = triggers.errors + c.failed, last_error = CASE WHEN c.error_seen::boolean THEN c.error ELSE last_error END,
          status = CASE WHEN c.error_seen::boolean AND c.error IS NOT NULL THEN 'failing' WHEN c.error_seen::boolean THEN 'active' ELSE status END,
          last_event_at = CASE WHEN COALESCE(f.n, 0) > 0 THEN ${receivedAt} ELSE last_event_at END,
          state_json = COALESCE(c.state::json, state_json)
        FROM unnest(${counts.map(([id]) => id)}::text[], ${counts.map(([, x]) => x.skipped)}::int[], ${counts.map(([, x]) => x.failed)}::int[],
            ${counts.map(([, x]) => String(x.hasError))}::text[], ${counts.map(([, x]) => x.error)}::text[], ${counts.map(([, x]) => x.state)}::text[]) AS c(id, skipped, failed, error_seen, error, state)
          LEFT JOIN fired f ON f.trigger_id = c.id
        WHERE triggers.id = c.id AND c.id IN (SELECT id FROM runs)
      ), queued AS (
        INSERT INTO deliveries (event_id, trigger_id, url, next_attempt_at, give_up_at)
        SELECT a.id, a.trigger_id, t.forward_url, ${now}::bigint, ${now + FORWARD_WINDOW_MS}::bigint
        FROM added a JOIN runs t ON t.id = a.trigger_id WHERE t.forward_url IS NOT NULL
        ON CONFLICT DO NOTHING
      ), fanned AS (
        INSERT INTO deliveries (event_id, trigger_id, url, next_attempt_at, give_up_at, subscription_id)
        SELECT a.id, a.trigger_id, s.url, ${now}::bigint, ${now + SUBSCRIPTION_WINDOW_MS}::bigint, s.id
        FROM added a JOIN event_subscriptions s ON s.trigger_id = a.trigger_id
        WHERE ${takesDeliveries(this.sql, now)}
        ON CONFLICT DO NOTHING
      )
      SELECT id, trigger_id, dedupe_key, kind, (SELECT bool_or(subscriptions <> visible) FROM runs) AS stale FROM added`;
    if (inserted[0]?.stale) await this.fanOutAgain(inserted.map((row) => Number(row.id)), now);
    const stored = new Map(inserted.map((row) => [`${row.trigger_id}\n${row.dedupe_key}`, row]));
    return batch.map(({ item }) => {
      const events: TriggerEvent[] = [];
      for (const e of item.input.events) {
        const key = `${item.triggerId}\n${e.dedupeKey}`;
        const row = stored.get(key);
        if (!row) continue;
        stored.delete(key);
        events.push({ id: Number(row.id), triggerId: item.triggerId, kind: row.kind, dedupeKey: e.dedupeKey, occurredAt: e.occurredAt, receivedAt, summary: e.summary, payload: e.payload });
      }
      return events;
    });
  }

  /**
   * The statement above read the subscriptions as they were when it began, and waited for the triggers' locks after:
   * a subscription made meanwhile (its upsert held the lock, and changed the trigger's count) was not seen. Its
   * deliveries are enqueued now, by a statement that sees it; only a crash in between loses them, and only for
   * subscriptions made during this commit.
   */
  private async fanOutAgain(eventIds: number[], now: number): Promise<void> {
    await this.sql`
      INSERT INTO deliveries (event_id, trigger_id, url, next_attempt_at, give_up_at, subscription_id)
      SELECT e.id, e.trigger_id, s.url, ${now}::bigint, ${now + SUBSCRIPTION_WINDOW_MS}::bigint, s.id
      FROM events e JOIN event_subscriptions s ON s.trigger_id = e.trigger_id
      WHERE e.id = ANY(${eventIds}::bigint[]) AND e.id > s.start_event_id AND ${takesDeliveries(this.sql, now)}
      ON CONFLICT DO NOTHING`;
  }
}

/** A subscription (`s`) that a commit at `now` enqueues deliveries for: webhook, active, not past its refreshBefore. */
function takesDeliveries(sql: Sql, now: number) {
  return sql`s.mode = 'webhook' AND s.status = 'active' AND s.url IS NOT NULL AND (s.refresh_before IS NULL OR s.refresh_before > ${now}::bigint)`;
}

/** An item of a batch, with its JSON written. */
interface Prepared {
  /** Its place in the input. */
  at: number;
  item: CommitItem;
  payloads: string[];
  state: string | null;
}

/** Refused for a value in it (SQLSTATE classes 22 data exception, 23 constraint, 54 program limit, e.g. a NUL in text or a key too long to index), not for the database's state. */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && /^(22|23|54)/.test(code);
}
