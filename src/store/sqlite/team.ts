import type Database from 'better-sqlite3';
import { decryptSecret, encryptSecret } from '../crypto.js';
import { idHash } from '../short-lived-rows.js';
import { newUserId, sealRecord, TEAM_AAD, toRecord, toTeamUser, type RecordRow, type TeamUserRow } from '../team-rows.js';
import { sqliteTeamTokens } from './team-tokens.js';
import type { AuthRecordStore, TeamKeyStore, TeamStore, TeamUserStore } from '../types.js';

/*
 * Team mode's rows: people who signed in (no secret in them), the authorization server's records (every id hashed,
 * every payload encrypted and bound to its kind and id hash) and its keys (encrypted). A record that no longer
 * decrypts (written before `secrets rotate`, which drops them all anyway) reads as absent.
 */

/** `guard` throws once `secrets rotate` has changed the key under this process. */
export function sqliteTeam(db: Database.Database, key: Buffer, guard: () => void, clock: () => number = Date.now): TeamStore {
  return { users: sqliteTeamUsers(db), records: sqliteAuthRecords(db, key, guard, clock), keys: sqliteTeamKeys(db, key, guard), tokens: sqliteTeamTokens(db) };
}

function sqliteTeamUsers(db: Database.Database): TeamUserStore {
  const get = (id: string) => db.prepare('SELECT * FROM team_users WHERE id = ?').get(id) as TeamUserRow | undefined;
  const signIn = db.transaction((input: Parameters<TeamUserStore['signIn']>[0], now: string): TeamUserRow => {
    const found = db.prepare('SELECT * FROM team_users WHERE provider = ? AND subject = ?').get(input.provider, input.subject) as TeamUserRow | undefined;
    if (found) {
      db.prepare('UPDATE team_users SET login = ?, email = ?, role = COALESCE(?, role), last_seen_at = ? WHERE id = ?').run(input.login, input.email, input.role ?? null, now, found.id);
      return get(found.id)!;
    }
    const first = (db.prepare('SELECT count(*) AS n FROM team_users').get() as { n: number }).n === 0;
    const id = newUserId();
    db.prepare('INSERT INTO team_users (id, provider, subject, login, email, role, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
      id,
      input.provider,
      input.subject,
      input.login,
      input.email,
      input.role ?? (first ? 'admin' : 'member'),
      now,
      now,
    );
    return get(id)!;
  });
  const signOut = (id: string) => {
    db.prepare('DELETE FROM team_records WHERE owner = ?').run(id);
    db.prepare('DELETE FROM web_sessions WHERE owner = ?').run(id);
  };
  const setDisabled = db.transaction((id: string, disabled: boolean) => {
    const row = db.prepare('UPDATE team_users SET disabled = ? WHERE id = ? RETURNING *').get(disabled ? 1 : 0, id) as TeamUserRow | undefined;
    if (row && disabled) signOut(id);
    return row;
  });
  return {
    async list() {
      return (db.prepare('SELECT * FROM team_users ORDER BY created_at, id').all() as TeamUserRow[]).map(toTeamUser);
    },
    async get(id) {
      const row = get(id);
      return row && toTeamUser(row);
    },
    async signIn(input) {
      return toTeamUser(signIn.immediate(input, new Date().toISOString()));
    },
    async setDisabled(id, disabled) {
      const row = setDisabled.immediate(id, disabled);
      return row && toTeamUser(row);
    },
    async remove(id) {
      const forget = db.transaction(() => {
        const row = db.prepare('DELETE FROM team_users WHERE id = ? RETURNING *').get(id) as TeamUserRow | undefined;
        if (!row) return undefined;
        // What was theirs goes with them: accounts (their triggers, hooks, grants and sales lookups with them), events, consumers, grants to them, what they are signed in with.
        db.prepare('DELETE FROM deliveries WHERE trigger_id IN (SELECT id FROM triggers WHERE owner = ?)').run(id);
        db.prepare('DELETE FROM triggers WHERE owner = ?').run(id);
        db.prepare('DELETE FROM accounts WHERE owner = ?').run(id);
        db.prepare('DELETE FROM account_grants WHERE grantee = ?').run(id);
        db.prepare('DELETE FROM consumer_failures WHERE substr(consumer, 1, length(?) + 1) = ? || \'/\'').run(id, id);
        db.prepare('DELETE FROM consumers WHERE substr(name, 1, length(?) + 1) = ? || \'/\'').run(id, id);
        db.prepare('DELETE FROM events WHERE owner = ?').run(id);
        signOut(id);
        return row;
      });
      const row = forget.immediate();
      return row && toTeamUser(row);
    },
  };
}

function sqliteAuthRecords(db: Database.Database, key: Buffer, guard: () => void, clock: () => number): AuthRecordStore {
  const live = 'kind = ? AND (expires_at IS NULL OR expires_at > ?)';
  const put = db.transaction((row: unknown[], now: number) => {
    guard();
    db.prepare('DELETE FROM team_records WHERE expires_at <= ?').run(now);
    db.prepare(
      `INSERT INTO team_records (kind, id_hash, uid_hash, grant_hash, owner, payload_enc, consumed, expires_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?)
       ON CONFLICT (kind, id_hash) DO UPDATE SET uid_hash = excluded.uid_hash, grant_hash = excluded.grant_hash, owner = excluded.owner,
         payload_enc = excluded.payload_enc, consumed = 0, expires_at = excluded.expires_at`,
    ).run(...row);
  });
  return {
    async put(kind, id, payload, o) {
      const hash = idHash(id);
      const now = clock();
      const expiresAt = o.expiresInMs === undefined ? null : now + o.expiresInMs;
      put.immediate([kind, hash, o.uid ? idHash(o.uid) : null, o.grantId ? idHash(o.grantId) : null, o.owner ?? null, sealRecord(key, kind, hash, payload), expiresAt], now);
    },
    async get(kind, id) {
      return toRecord(key, db.prepare(`SELECT * FROM team_records WHERE id_hash = ? AND ${live}`).get(idHash(id), kind, clock()) as RecordRow | undefined);
    },
    async getByUid(kind, uid) {
      return toRecord(key, db.prepare(`SELECT * FROM team_records WHERE uid_hash = ? AND ${live}`).get(idHash(uid), kind, clock()) as RecordRow | undefined);
    },
    async consume(kind, id) {
      db.prepare('UPDATE team_records SET consumed = 1 WHERE kind = ? AND id_hash = ?').run(kind, idHash(id));
    },
    async remove(kind, id) {
      db.prepare('DELETE FROM team_records WHERE kind = ? AND id_hash = ?').run(kind, idHash(id));
    },
    async take(kind, id) {
      const row = db.prepare('DELETE FROM team_records WHERE kind = ? AND id_hash = ? RETURNING *').get(kind, idHash(id)) as (RecordRow & { expires_at: number | null }) | undefined;
      if (!row || (row.expires_at !== null && row.expires_at <= clock())) return undefined;
      return toRecord(key, row)?.payload;
    },
    async removeGrant(grantId) {
      db.prepare('DELETE FROM team_records WHERE grant_hash = ?').run(idHash(grantId));
    },
  };
}

function sqliteTeamKeys(db: Database.Database, key: Buffer, guard: () => void): TeamKeyStore {
  const ensure = db.transaction((name: string, create: () => string) => {
    const found = db.prepare('SELECT value_enc FROM team_keys WHERE name = ?').get(name) as { value_enc: string } | undefined;
    if (found) return decryptSecret(key, found.value_enc, TEAM_AAD.key(name));
    guard();
    const value = create();
    db.prepare('INSERT INTO team_keys (name, value_enc) VALUES (?, ?)').run(name, encryptSecret(key, value, TEAM_AAD.key(name)));
    return value;
  });
  return {
    async ensure(name, create) {
      return ensure.immediate(name, create);
    },
  };
}
