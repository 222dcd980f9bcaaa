import type Database from 'better-sqlite3';
import { newTokenId, toPersonalToken, TOKEN_COLUMNS, type PersonalTokenRow } from '../team-rows.js';
import type { PersonalTokenStore } from '../types.js';

/* Personal access tokens: the hash of each token, never the token; what a listing shows leaves the hash out. */

export function sqliteTeamTokens(db: Database.Database): PersonalTokenStore {
  const one = (sql: string, ...params: unknown[]) => db.prepare(sql).get(...params) as PersonalTokenRow | undefined;
  return {
    async create(input) {
      const row = one(
        `INSERT INTO team_tokens (id, user_id, name, scope, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${TOKEN_COLUMNS}`,
        newTokenId(),
        input.owner,
        input.name,
        input.scope,
        input.tokenHash,
        new Date().toISOString(),
        input.expiresAt,
      );
      return toPersonalToken(row!);
    },
    async list(options = {}) {
      const where = options.owner === undefined ? '' : 'WHERE user_id = ?';
      const rows = db.prepare(`SELECT ${TOKEN_COLUMNS} FROM team_tokens ${where} ORDER BY created_at, id`).all(...(options.owner === undefined ? [] : [options.owner]));
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
    async revokeAll(owner) {
      const now = new Date().toISOString();
      return db.prepare('UPDATE team_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ?').run(now, owner, now).changes;
    },
    async touch(id, at, unlessSince) {
      db.prepare('UPDATE team_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)').run(at, id, unlessSince);
    },
  };
}
