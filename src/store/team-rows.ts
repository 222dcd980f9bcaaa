import { randomBytes } from 'node:crypto';
import { encryptSecret } from './crypto.js';
import { unseal } from './short-lived-rows.js';
import type { PersonalToken, TeamIdentityProvider, TeamRole, TeamUser } from './types.js';

export interface TeamUserRow {
  id: string;
  provider: string;
  subject: string;
  login: string;
  email: string | null;
  role: string;
  /** 0 or 1 in SQLite, a boolean in PostgreSQL. */
  disabled: number | boolean;
  created_at: string;
  last_seen_at: string | null;
}

export function toTeamUser(row: TeamUserRow): TeamUser {
  return {
    id: row.id,
    provider: row.provider as TeamIdentityProvider,
    subject: row.subject,
    login: row.login,
    email: row.email,
    role: row.role as TeamRole,
    disabled: row.disabled === 1 || row.disabled === true,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
  };
}

export const newUserId = () => 'usr_' + randomBytes(8).toString('hex');

export const TEAM_AAD = {
  record: (kind: string, hash: string) => `team_records:${kind}:${hash}`,
  key: (name: string) => `team_keys:${name}`,
};

export interface RecordRow {
  kind: string;
  id_hash: string;
  payload_enc: string;
  consumed: number | boolean;
}

export function toRecord(key: Buffer, row: RecordRow | undefined): { payload: string; consumed: boolean } | undefined {
  if (!row) return undefined;
  const payload = unseal(key, row.payload_enc, TEAM_AAD.record(row.kind, row.id_hash));
  return payload === undefined ? undefined : { payload, consumed: row.consumed === 1 || row.consumed === true };
}

export function sealRecord(key: Buffer, kind: string, hash: string, payload: string): string {
  return encryptSecret(key, payload, TEAM_AAD.record(kind, hash));
}

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
    owner: row.user_id,
    name: row.name,
    scope: row.scope,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export const newTokenId = () => 'pat_' + randomBytes(8).toString('hex');
