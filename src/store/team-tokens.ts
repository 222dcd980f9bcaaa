import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { PersonalToken, PersonalTokenStore } from './types.js';

/* Personal access tokens: the hash of each token, never the token; what a listing shows leaves the hash out. */

export interface PersonalTokenRow {
  id: string;
  user_id: string;
  name: string | null;
  scope: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Every column but the hash, for the statements that return tokens. */
export const TOKEN_COLUMNS = 'id, user_id, name, scope, created_at, expires_at, last_used_at, revoked_at';

export function toPersonalToken(row: PersonalTokenRow): PersonalToken {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    scope: row.scope,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export const newTokenId = () => 'pat_' + randomBytes(8).toString('hex');

export function sqliteTeamTokens(db: Database.Database): PersonalTokenStore {
  const one = (sql: string, ...params: unknown[]) => db.prepare(sql).get(...params) as PersonalTokenRow | undefined;
  return {
    async create(input) {
      const row = one(
        `INSERT INTO team_tokens (id, user_id, name, scope, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${TOKEN_COLUMNS}`,
        newTokenId(),
        input.userId,
        input.name,
        input.scope,
        input.tokenHash,
        new Date().toISOString(),
        input.expiresAt,
      );
      return toPersonalToken(row!);
    },
    async list(options = {}) {
      const where = options.userId === undefined ? '' : 'WHERE user_id = ?';
      const rows = db.prepare(`SELECT ${TOKEN_COLUMNS} FROM team_tokens ${where} ORDER BY created_at, id`).all(...(options.userId === undefined ? [] : [options.userId]));
      return (rows as PersonalTokenRow[]).map(toPersonalToken);
    },
    async get(id) {
      const row = one(`SELECT ${TOKEN_COLUMNS} FROM team_tokens WHERE id = ?`, id);
      return row && toPersonalToken(row);
    },
    async findByHash(tokenHash) {
      const row = one(`SELECT ${TOKEN_COLUMNS} FROM team_tokens WHERE token_hash = ?`, tokenHash);
      return row && toPersonalToken(row);
    },
    async revoke(id) {
      const row = one(`UPDATE team_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING ${TOKEN_COLUMNS}`, new Date().toISOString(), id);
      return row && toPersonalToken(row);
    },
    async revokeAll(userId) {
      const now = new Date().toISOString();
      return db.prepare('UPDATE team_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ?').run(now, userId, now).changes;
    },
    async touch(id, at, unlessSince) {
      db.prepare('UPDATE team_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)').run(at, id, unlessSince);
    },
  };
}
