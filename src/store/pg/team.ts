import { decryptSecret, encryptSecret } from '../crypto.js';
import { idHash } from '../short-lived-rows.js';
import { newUserId, sealRecord, TEAM_AAD, toRecord, toTeamUser, type RecordRow, type TeamUserRow } from '../team-rows.js';
import type { AuthRecordStore, TeamKeyStore, TeamStore, TeamUserStore } from '../types.js';
import type { Queryable, Sql, Tx } from './connection.js';
import { pgTeamTokens } from './team-tokens.js';

const nowMs = (db: Queryable) => db`floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint`;

/*
 * The same rows as the SQLite adapter (src/store/team.ts), on the database's clock. The first sign-in locks the table,
 * so of two people signing in at once on two instances only one becomes the first admin.
 */

/** `guard` fails the transaction once `secrets rotate` has changed the key under this process. */
export function pgTeam(sql: Sql, key: Buffer, guard: (tx: Tx) => Promise<void>): TeamStore {
  return { users: pgTeamUsers(sql), records: pgAuthRecords(sql, key, guard), keys: pgTeamKeys(sql, key, guard), tokens: pgTeamTokens(sql) };
}

/** Ends what a person is signed in with: the authorization server's records of theirs, and their page sessions. */
async function signOut(tx: Tx, id: string): Promise<void> {
  await tx`DELETE FROM team_records WHERE owner = ${id}`;
  await tx`DELETE FROM web_sessions WHERE owner = ${id}`;
}

function pgTeamUsers(sql: Sql): TeamUserStore {
  return {
    async list() {
      return (await sql<TeamUserRow[]>`SELECT * FROM team_users ORDER BY created_at, id`).map(toTeamUser);
    },
    async get(id) {
      const [row] = await sql<TeamUserRow[]>`SELECT * FROM team_users WHERE id = ${id}`;
      return row && toTeamUser(row);
    },
    async signIn(input) {
      const now = new Date().toISOString();
      const [updated] = await sql<TeamUserRow[]>`
        UPDATE team_users SET login = ${input.login}, email = ${input.email}, role = COALESCE(${input.role ?? null}, role), last_seen_at = ${now}
        WHERE provider = ${input.provider} AND subject = ${input.subject} RETURNING *`;
      if (updated) return toTeamUser(updated);
      return toTeamUser(
        await sql.begin(async (tx) => {
          await tx`LOCK TABLE team_users IN SHARE ROW EXCLUSIVE MODE`;
          const [{ n }] = await tx<[{ n: number }]>`SELECT count(*)::int AS n FROM team_users`;
          const role = input.role ?? (n === 0 ? 'admin' : 'member');
          const [row] = await tx<TeamUserRow[]>`
            INSERT INTO team_users (id, provider, subject, login, email, role, created_at, last_seen_at)
            VALUES (${newUserId()}, ${input.provider}, ${input.subject}, ${input.login}, ${input.email}, ${role}, ${now}, ${now})
            ON CONFLICT (provider, subject) DO UPDATE SET login = excluded.login, email = excluded.email, last_seen_at = excluded.last_seen_at
            RETURNING *`;
          return row!;
        }),
      );
    },
    async setDisabled(id, disabled) {
      const [row] = await sql.begin(async (tx) => {
        const changed = await tx<TeamUserRow[]>`UPDATE team_users SET disabled = ${disabled} WHERE id = ${id} RETURNING *`;
        if (changed.length && disabled) await signOut(tx, id);
        return changed;
      });
      return row && toTeamUser(row);
    },
    async remove(id) {
      const [row] = await sql.begin(async (tx) => {
        const removed = await tx<TeamUserRow[]>`DELETE FROM team_users WHERE id = ${id} RETURNING *`;
        if (!removed.length) return removed;
        // What was theirs goes with them: accounts (their triggers, hooks, grants and sales lookups with them), events, consumers, grants to them, what they are signed in with.
        await tx`DELETE FROM deliveries WHERE trigger_id IN (SELECT id FROM triggers WHERE owner = ${id})`;
        await tx`DELETE FROM triggers WHERE owner = ${id}`;
        await tx`DELETE FROM accounts WHERE owner = ${id}`;
        await tx`DELETE FROM account_grants WHERE grantee = ${id}`;
        await tx`DELETE FROM consumer_failures WHERE left(consumer, length(${id}) + 1) = ${id} || '/'`;
        await tx`DELETE FROM consumers WHERE left(name, length(${id}) + 1) = ${id} || '/'`;
        await tx`DELETE FROM events WHERE owner = ${id}`;
        await signOut(tx, id);
        return removed;
      });
      return row && toTeamUser(row);
    },
  };
}

function pgAuthRecords(sql: Sql, key: Buffer, guard: (tx: Tx) => Promise<void>): AuthRecordStore {
  return {
    async put(kind, id, payload, o) {
      const hash = idHash(id);
      const blob = sealRecord(key, kind, hash, payload);
      await sql.begin(async (tx) => {
        await guard(tx);
        await tx`DELETE FROM team_records WHERE expires_at <= ${nowMs(tx)}`;
        await tx`
          INSERT INTO team_records (kind, id_hash, uid_hash, grant_hash, owner, payload_enc, consumed, expires_at)
          VALUES (${kind}, ${hash}, ${o.uid ? idHash(o.uid) : null}, ${o.grantId ? idHash(o.grantId) : null}, ${o.owner ?? null}, ${blob}, false,
            ${o.expiresInMs === undefined ? null : tx`${nowMs(tx)} + ${o.expiresInMs}::bigint`})
          ON CONFLICT (kind, id_hash) DO UPDATE SET uid_hash = excluded.uid_hash, grant_hash = excluded.grant_hash, owner = excluded.owner,
            payload_enc = excluded.payload_enc, consumed = false, expires_at = excluded.expires_at`;
      });
    },
    async get(kind, id) {
      const [row] = await sql<RecordRow[]>`
        SELECT * FROM team_records WHERE kind = ${kind} AND id_hash = ${idHash(id)} AND (expires_at IS NULL OR expires_at > ${nowMs(sql)})`;
      return toRecord(key, row);
    },
    async getByUid(kind, uid) {
      const [row] = await sql<RecordRow[]>`
        SELECT * FROM team_records WHERE kind = ${kind} AND uid_hash = ${idHash(uid)} AND (expires_at IS NULL OR expires_at > ${nowMs(sql)})`;
      return toRecord(key, row);
    },
    async consume(kind, id) {
      await sql`UPDATE team_records SET consumed = true WHERE kind = ${kind} AND id_hash = ${idHash(id)}`;
    },
    async remove(kind, id) {
      await sql`DELETE FROM team_records WHERE kind = ${kind} AND id_hash = ${idHash(id)}`;
    },
    async take(kind, id) {
      const [row] = await sql<(RecordRow & { live: boolean })[]>`
        DELETE FROM team_records WHERE kind = ${kind} AND id_hash = ${idHash(id)}
        RETURNING *, (expires_at IS NULL OR expires_at > ${nowMs(sql)}) AS live`;
      return row?.live ? toRecord(key, row)?.payload : undefined;
    },
    async removeGrant(grantId) {
      await sql`DELETE FROM team_records WHERE grant_hash = ${idHash(grantId)}`;
    },
  };
}

function pgTeamKeys(sql: Sql, key: Buffer, guard: (tx: Tx) => Promise<void>): TeamKeyStore {
  return {
    async ensure(name, create) {
      const read = async () => (await sql<{ value_enc: string }[]>`SELECT value_enc FROM team_keys WHERE name = ${name}`)[0]?.value_enc;
      let blob = await read();
      if (blob === undefined) {
        await sql.begin(async (tx) => {
          await guard(tx);
          await tx`INSERT INTO team_keys (name, value_enc) VALUES (${name}, ${encryptSecret(key, create(), TEAM_AAD.key(name))}) ON CONFLICT (name) DO NOTHING`;
        });
        blob = await read();
      }
      return decryptSecret(key, blob!, TEAM_AAD.key(name));
    },
  };
}
