import { newTokenId, toPersonalToken, TOKEN_COLUMNS, type PersonalTokenRow } from '../team-rows.js';
import type { PersonalTokenStore } from '../types.js';
import type { Sql } from './connection.js';

/** The same rows as the SQLite adapter (src/store/sqlite/team-tokens.ts). */
export function pgTeamTokens(sql: Sql): PersonalTokenStore {
  const columns = sql.unsafe(TOKEN_COLUMNS);
  return {
    async create(input) {
      const [row] = await sql<PersonalTokenRow[]>`
        INSERT INTO team_tokens (id, user_id, name, scope, token_hash, created_at, expires_at)
        VALUES (${newTokenId()}, ${input.owner}, ${input.name}, ${input.scope}, ${input.tokenHash}, ${new Date().toISOString()}, ${input.expiresAt})
        RETURNING ${columns}`;
      return toPersonalToken(row!);
    },
    async list(options = {}) {
      const rows = await sql<PersonalTokenRow[]>`
        SELECT ${columns} FROM team_tokens ${options.owner === undefined ? sql`` : sql`WHERE user_id = ${options.owner}`} ORDER BY created_at, id`;
      return rows.map(toPersonalToken);
    },
    async get(id) {
      const [row] = await sql<PersonalTokenRow[]>`SELECT ${columns} FROM team_tokens WHERE id = ${id}`;
      return row && toPersonalToken(row);
    },
    async findByHash(tokenHash) {
      const [row] = await sql<PersonalTokenRow[]>`SELECT ${columns} FROM team_tokens WHERE token_hash = ${tokenHash}`;
      return row && toPersonalToken(row);
    },
    async revoke(id) {
      const [row] = await sql<PersonalTokenRow[]>`
        UPDATE team_tokens SET revoked_at = COALESCE(revoked_at, ${new Date().toISOString()}) WHERE id = ${id} RETURNING ${columns}`;
      return row && toPersonalToken(row);
    },
    async revokeAll(owner) {
      const now = new Date().toISOString();
      const { count } = await sql`UPDATE team_tokens SET revoked_at = ${now} WHERE user_id = ${owner} AND revoked_at IS NULL AND expires_at > ${now}`;
      return count;
    },
    async touch(id, at, unlessSince) {
      await sql`UPDATE team_tokens SET last_used_at = ${at} WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < ${unlessSince})`;
    },
  };
}
