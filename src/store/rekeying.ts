import { InputError } from '../errors.js';
import { decryptSecret, encryptSecret, KEY_CHECK_AAD, KEY_CHECK_PLAINTEXT } from './crypto.js';

/** What a rotation re-encrypted, or dropped, per kind of row. */
export interface RotateCounts {
  accounts: number;
  triggers: number;
  hooks: number;
  /** MCP Events subscriptions' webhook secrets. */
  subscriptions: number;
  /** Cached sales lookups dropped (their lookup keys are hashed with the old key and cannot be re-keyed). */
  salesCache: number;
}

/** What a rotation needs of the database beneath a store, beyond the Store contract. */
export interface Rekeying {
  /** True while a server using this store keeps its presence lease (INSTANCE_LEASE_PREFIX) renewed. */
  serverRunning(): Promise<boolean>;
  /** In one transaction: every secret re-encrypted from `from` to `to`, the sales cache dropped, the key check replaced. */
  reencrypt(from: Buffer, to: Buffer): Promise<RotateCounts>;
  close(): Promise<void>;
}

/** Decrypts a secret with the current key, saying which row is damaged when it cannot. */
export function reencryptSecret(row: { id: string; secret_enc: string }, what: string, from: Buffer, to: Buffer): string {
  let plaintext: string;
  try {
    plaintext = decryptSecret(from, row.secret_enc, row.id);
  } catch {
    throw new InputError(`The secret of ${what} ${row.id} cannot be decrypted with the current key (it is damaged); nothing was changed.`);
  }
  return encryptSecret(to, plaintext, row.id);
}

export const SECRET_TABLES = [
  ['accounts', 'account'],
  ['triggers', 'trigger'],
  ['hooks', 'webhook'],
  ['event_subscriptions', 'event subscription'],
] as const;

/**
 * Waiting sign-ins, web sessions, cut results and the calls tasks wait on: minutes or hours of use left, not worth carrying to the new key. The
 * team authorization server's records and keys go too: every token it issued stops working, and people sign in again.
 */
export const SHORT_LIVED_TABLES = ['sign_in_states', 'web_sessions', 'continuations', 'team_records', 'team_keys', 'approval_calls'] as const;

export const newKeyCheck = (key: Buffer) => encryptSecret(key, KEY_CHECK_PLAINTEXT, KEY_CHECK_AAD);
