import type Database from 'better-sqlite3';
import { encryptSecret } from '../crypto.js';
import { AAD, idHash, toPendingSignIn, toWebSession, unseal, type WebSessionRow } from '../short-lived-rows.js';
import type { ContinuationStore, SignInStore, WebSessionStore } from '../types.js';

/*
 * Sign-ins waiting for their redirect, web sessions and continuations of cut results: rows any process on the store
 * may be asked for. An id (an OAuth state, a session cookie, a cursor) is a bearer secret, so only its hash is kept;
 * what is kept under it is encrypted and bound to that hash. These rows live minutes to hours: one that no longer
 * decrypts (written before `secrets rotate`, or altered) counts as absent rather than failing the request.
 */

/** `guard` throws once `secrets rotate` has changed the key under this process: nothing is written under the old one. */
export function sqliteSignIns(db: Database.Database, key: Buffer, guard: () => void, clock: () => number = Date.now): SignInStore {
  const put = db.transaction((hash: string, blob: string, expiresAt: number, now: number, max: number): boolean => {
    guard();
    db.prepare('DELETE FROM sign_in_states WHERE expires_at <= ?').run(now);
    if ((db.prepare('SELECT count(*) AS n FROM sign_in_states').get() as { n: number }).n >= max) return false;
    db.prepare('INSERT INTO sign_in_states (state_hash, data_enc, expires_at) VALUES (?, ?, ?)').run(hash, blob, expiresAt);
    return true;
  });
  return {
    async put(state, signIn, o) {
      const hash = idHash(state);
      const now = o.now ?? clock();
      return put.immediate(hash, encryptSecret(key, JSON.stringify(signIn), AAD.signIn(hash)), now + o.ttlMs, now, o.max);
    },
    async take(state, now) {
      const hash = idHash(state);
      const row = db.prepare('DELETE FROM sign_in_states WHERE state_hash = ? RETURNING data_enc, expires_at').get(hash) as
        | { data_enc: string; expires_at: number }
        | undefined;
      if (!row || row.expires_at <= (now ?? clock())) return undefined;
      return toPendingSignIn(key, hash, row.data_enc);
    },
  };
}

export function sqliteWebSessions(db: Database.Database, key: Buffer, guard: () => void, clock: () => number = Date.now): WebSessionStore {
  const create = db.transaction((hash: string, authed: number, owner: string | null, csrfEnc: string, now: number, max: number, idleMs: number) => {
    guard();
    db.prepare('DELETE FROM web_sessions WHERE last_seen < ?').run(now - idleMs);
    db.prepare(
      `DELETE FROM web_sessions WHERE seq IN
         (SELECT seq FROM web_sessions WHERE authed = ? ORDER BY last_seen DESC, seq DESC LIMIT -1 OFFSET ?)`,
    ).run(authed, Math.max(0, max - 1));
    db.prepare('INSERT INTO web_sessions (id_hash, authed, owner, csrf_enc, last_seen) VALUES (?, ?, ?, ?, ?)').run(hash, authed, owner, csrfEnc, now);
  });
  const takeFlash = db.transaction((hash: string) => {
    const row = db.prepare('SELECT flash_enc FROM web_sessions WHERE id_hash = ?').get(hash) as { flash_enc: string | null } | undefined;
    if (!row?.flash_enc) return undefined;
    db.prepare('UPDATE web_sessions SET flash_enc = NULL WHERE id_hash = ?').run(hash);
    return unseal(key, row.flash_enc, AAD.flash(hash));
  });
  return {
    async create(id, session, o) {
      const hash = idHash(id);
      create.immediate(hash, session.authed ? 1 : 0, session.owner ?? null, encryptSecret(key, session.csrf, AAD.csrf(hash)), o.now ?? clock(), o.max, o.idleMs);
    },
    async touch(id, o) {
      const hash = idHash(id);
      const now = o.now ?? clock();
      const row = db
        .prepare('UPDATE web_sessions SET last_seen = ? WHERE id_hash = ? AND last_seen >= ? RETURNING authed, owner, csrf_enc, flash_enc')
        .get(now, hash, now - o.idleMs) as WebSessionRow | undefined;
      const session = row && toWebSession(key, hash, row);
      if (!session) db.prepare('DELETE FROM web_sessions WHERE id_hash = ?').run(hash);
      return session;
    },
    async setFlash(id, flash) {
      const hash = idHash(id);
      if (flash !== null) guard();
      db.prepare('UPDATE web_sessions SET flash_enc = ? WHERE id_hash = ?').run(flash === null ? null : encryptSecret(key, flash, AAD.flash(hash)), hash);
    },
    async takeFlash(id) {
      return takeFlash.immediate(idHash(id));
    },
    async remove(id) {
      db.prepare('DELETE FROM web_sessions WHERE id_hash = ?').run(idHash(id));
    },
  };
}

export function sqliteContinuations(db: Database.Database, key: Buffer, guard: () => void, clock: () => number = Date.now): ContinuationStore {
  const put = db.transaction((hash: string, tool: string, blob: string, now: number, expiresAt: number, max: number) => {
    guard();
    db.prepare('DELETE FROM continuations WHERE expires_at <= ?').run(now);
    db.prepare('DELETE FROM continuations WHERE seq IN (SELECT seq FROM continuations ORDER BY seq DESC LIMIT -1 OFFSET ?)').run(Math.max(0, max - 1));
    db.prepare('INSERT INTO continuations (id_hash, tool, data_enc, expires_at) VALUES (?, ?, ?, ?)').run(hash, tool, blob, expiresAt);
  });
  return {
    async put(id, tool, data, o) {
      const hash = idHash(id);
      const now = o.now ?? clock();
      put.immediate(hash, tool, encryptSecret(key, data, AAD.continuation(hash, tool)), now, now + o.ttlMs, o.max);
    },
    async take(id, tool, now) {
      const hash = idHash(id);
      const row = db.prepare('DELETE FROM continuations WHERE id_hash = ? AND tool = ? RETURNING data_enc, expires_at').get(hash, tool) as
        | { data_enc: string; expires_at: number }
        | undefined;
      if (!row || row.expires_at <= (now ?? clock())) return undefined;
      return unseal(key, row.data_enc, AAD.continuation(hash, tool));
    },
  };
}
