import { createHash } from 'node:crypto';
import { decryptSecret } from './crypto.js';
import type { PendingSignIn, StoredWebSession } from './types.js';

/** How every adapter finds an id: SHA-256 suffices, as every id is at least 96 random bits. */
export function idHash(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('base64url');
}

export const AAD = {
  signIn: (hash: string) => `sign_in_states:${hash}`,
  csrf: (hash: string) => `web_sessions:${hash}:csrf`,
  flash: (hash: string) => `web_sessions:${hash}:flash`,
  continuation: (hash: string, tool: string) => `continuations:${hash}:${tool}`,
};

export function unseal(key: Buffer, blob: string, aad: string): string | undefined {
  try {
    return decryptSecret(key, blob, aad);
  } catch {
    return undefined;
  }
}

export function toPendingSignIn(key: Buffer, hash: string, blob: string): PendingSignIn | undefined {
  const json = unseal(key, blob, AAD.signIn(hash));
  return json === undefined ? undefined : (JSON.parse(json) as PendingSignIn);
}

export interface WebSessionRow {
  /** 0 or 1 in SQLite, a boolean in PostgreSQL. */
  authed: number | boolean;
  csrf_enc: string;
  flash_enc: string | null;
  owner: string | null;
}

export function toWebSession(key: Buffer, hash: string, row: WebSessionRow): StoredWebSession | undefined {
  const csrf = unseal(key, row.csrf_enc, AAD.csrf(hash));
  if (csrf === undefined) return undefined;
  const flash = row.flash_enc === null ? undefined : unseal(key, row.flash_enc, AAD.flash(hash));
  return { csrf, authed: row.authed === 1 || row.authed === true, ...(flash === undefined ? {} : { flash }), ...(row.owner === null ? {} : { owner: row.owner }) };
}
