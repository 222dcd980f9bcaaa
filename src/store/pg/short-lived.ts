import { encryptSecret } from '../crypto.js';
import { AAD, idHash, toPendingSignIn, toWebSession, unseal, type WebSessionRow } from '../short-lived-rows.js';
import type { ContinuationStore, SignInStore, WebSessionStore } from '../types.js';
import type { Queryable, Sql, Tx } from './connection.js';

/*
 * The same rows as the SQLite adapter (src/store/short-lived.ts), on the database's clock: an instance whose own clock
 * is off still expires what another one stored on time. Writers that enforce a cap lock the table first, so instances
 * adding at once cannot overshoot it; takers delete with RETURNING, so of two racing for one row only one gets it.
 */

/** Epoch milliseconds: `now` when given (tests), else the database's clock. */
function nowMs(db: Queryable, now?: number) {
  return db`COALESCE(${now ?? null}::bigint, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)`;
}

async function lockedNow(tx: Tx, table: string, now?: number): Promise<number> {
  await tx`LOCK TABLE ${tx(table)} IN SHARE ROW EXCLUSIVE MODE`;
  const [row] = await tx<{ ms: number }[]>`SELECT ${nowMs(tx, now)} AS ms`;
  return row!.ms;
}

/** `guard` fails the transaction once `secrets rotate` has changed the key under this process. */
export function pgSignIns(sql: Sql, key: Buffer, guard: (tx: Tx) => Promise<void>): SignInStore {
  return {
    async put(state, signIn, o) {
      const hash = idHash(state);
      const blob = encryptSecret(key, JSON.stringify(signIn), AAD.signIn(hash));
      return (await sql.begin(async (tx) => {
        await guard(tx);
        const now = await lockedNow(tx, 'sign_in_states', o.now);
        await tx`DELETE FROM sign_in_states WHERE expires_at <= ${now}`;
        const [{ n }] = await tx<[{ n: number }]>`SELECT count(*)::int AS n FROM sign_in_states`;
        if (n >= o.max) return false;
        await tx`INSERT INTO sign_in_states (state_hash, data_enc, expires_at) VALUES (${hash}, ${blob}, ${now + o.ttlMs})`;
        return true;
      })) as boolean;
    },
    async take(state, now) {
      const hash = idHash(state);
      const [row] = await sql<{ data_enc: string; live: boolean }[]>`
        DELETE FROM sign_in_states WHERE state_hash = ${hash} RETURNING data_enc, expires_at > ${nowMs(sql, now)} AS live`;
      return row?.live ? toPendingSignIn(key, hash, row.data_enc) : undefined;
    },
  };
}

export function pgWebSessions(sql: Sql, key: Buffer, guard: (tx: Tx) => Promise<void>): WebSessionStore {
  return {
    async create(id, session, o) {
      const hash = idHash(id);
      const csrfEnc = encryptSecret(key, session.csrf, AAD.csrf(hash));
      await sql.begin(async (tx) => {
        await guard(tx);
        const now = await lockedNow(tx, 'web_sessions', o.now);
        await tx`DELETE FROM web_sessions WHERE last_seen < ${now - o.idleMs}`;
        await tx`
          DELETE FROM web_sessions WHERE seq IN
            (SELECT seq FROM web_sessions WHERE authed = ${session.authed} ORDER BY last_seen DESC, seq DESC OFFSET ${Math.max(0, o.max - 1)})`;
        await tx`INSERT INTO web_sessions (id_hash, authed, owner, csrf_enc, last_seen) VALUES (${hash}, ${session.authed}, ${session.owner ?? null}, ${csrfEnc}, ${now})`;
      });
    },
    async touch(id, o) {
      const hash = idHash(id);
      const [row] = await sql<WebSessionRow[]>`
        WITH now AS (SELECT ${nowMs(sql, o.now)} AS ms)
        UPDATE web_sessions SET last_seen = now.ms FROM now
        WHERE id_hash = ${hash} AND last_seen >= now.ms - ${o.idleMs}
        RETURNING authed, owner, csrf_enc, flash_enc`;
      const session = row && toWebSession(key, hash, row);
      if (!session) await sql`DELETE FROM web_sessions WHERE id_hash = ${hash}`;
      return session;
    },
    async setFlash(id, flash) {
      const hash = idHash(id);
      if (flash === null) return void (await sql`UPDATE web_sessions SET flash_enc = NULL WHERE id_hash = ${hash}`);
      await sql.begin(async (tx) => {
        await guard(tx);
        await tx`UPDATE web_sessions SET flash_enc = ${encryptSecret(key, flash, AAD.flash(hash))} WHERE id_hash = ${hash}`;
      });
    },
    async takeFlash(id) {
      const hash = idHash(id);
      // The row is locked as it is read, so of two page views at once only one sees the message.
      const [row] = await sql<{ flash_enc: string }[]>`
        UPDATE web_sessions s SET flash_enc = NULL
        FROM (SELECT id_hash, flash_enc FROM web_sessions WHERE id_hash = ${hash} FOR UPDATE) old
        WHERE s.id_hash = old.id_hash AND old.flash_enc IS NOT NULL
        RETURNING old.flash_enc`;
      return row ? unseal(key, row.flash_enc, AAD.flash(hash)) : undefined;
    },
    async remove(id) {
      await sql`DELETE FROM web_sessions WHERE id_hash = ${idHash(id)}`;
    },
  };
}

export function pgContinuations(sql: Sql, key: Buffer, guard: (tx: Tx) => Promise<void>): ContinuationStore {
  return {
    async put(id, tool, data, o) {
      const hash = idHash(id);
      const blob = encryptSecret(key, data, AAD.continuation(hash, tool));
      await sql.begin(async (tx) => {
        await guard(tx);
        const now = await lockedNow(tx, 'continuations', o.now);
        await tx`DELETE FROM continuations WHERE expires_at <= ${now}`;
        await tx`DELETE FROM continuations WHERE seq IN (SELECT seq FROM continuations ORDER BY seq DESC OFFSET ${Math.max(0, o.max - 1)})`;
        await tx`INSERT INTO continuations (id_hash, tool, data_enc, expires_at) VALUES (${hash}, ${tool}, ${blob}, ${now + o.ttlMs})`;
      });
    },
    async take(id, tool, now) {
      const hash = idHash(id);
      const [row] = await sql<{ data_enc: string; live: boolean }[]>`
        DELETE FROM continuations WHERE id_hash = ${hash} AND tool = ${tool}
        RETURNING data_enc, expires_at > ${nowMs(sql, now)} AS live`;
      return row?.live ? unseal(key, row.data_enc, AAD.continuation(hash, tool)) : undefined;
    },
  };
}
