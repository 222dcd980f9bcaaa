import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { decryptSecret, encryptSecret } from './crypto.js';
import type { AuditInput, AuditRecord, AuditVerification } from './types.js';

/*
 * The audit trail's chain, alike in both adapters. Each record's hash is an HMAC-SHA-256 over its fields and the previous
 * record's hash, keyed by a random chain key kept encrypted under the store key (so `secrets rotate` re-encrypts one
 * value and leaves the chain as it is). Whoever can write the database without holding the store key cannot compute a
 * hash for an edited record, nor re-link the records after a deleted one.
 */

/** The audit table's columns, named alike in both adapters. */
export const AUDIT_COLUMNS = [
  'seq', 'at', 'owner', 'auth', 'client_name', 'client_id', 'action', 'tool', 'effect', 'account_id', 'target', 'outcome',
  'error_class', 'provider_status', 'duration_ms', 'approval_id', 'prev_hash', 'hash',
] as const;

export interface AuditRow {
  seq: number;
  at: string;
  owner: string;
  auth: string;
  client_name: string | null;
  client_id: string | null;
  action: string;
  tool: string | null;
  effect: string | null;
  account_id: string | null;
  target: string | null;
  outcome: string;
  error_class: string | null;
  provider_status: number | null;
  duration_ms: number | null;
  approval_id: string | null;
  prev_hash: string;
  hash: string;
}

/** The one row of `audit_chain`: the encrypted chain key, the newest record, and the anchor left by retention. */
export interface ChainRow {
  key_enc: string | null;
  head_seq: number;
  head_hash: string;
  anchor_seq: number;
  anchor_hash: string;
}

const CHAIN_KEY_AAD = 'audit_chain:key';

/** A new chain key, encrypted under the store key for the `audit_chain` row. */
export function newChainKey(storeKey: Buffer): string {
  return encryptSecret(storeKey, randomBytes(32).toString('base64url'), CHAIN_KEY_AAD);
}

export function openChainKey(storeKey: Buffer, keyEnc: string): Buffer {
  return Buffer.from(decryptSecret(storeKey, keyEnc, CHAIN_KEY_AAD), 'base64url');
}

/** The chain key re-encrypted from one store key to another (`secrets rotate`). */
export function reencryptChainKey(keyEnc: string, from: Buffer, to: Buffer): string {
  return encryptSecret(to, decryptSecret(from, keyEnc, CHAIN_KEY_AAD), CHAIN_KEY_AAD);
}

/** The fields a record's hash covers, in a fixed order, absent ones as null. */
function canonical(row: Omit<AuditRow, 'hash'>): string {
  return JSON.stringify(AUDIT_COLUMNS.filter((c) => c !== 'hash').map((c) => row[c] ?? null));
}

export function chainHash(chainKey: Buffer, row: Omit<AuditRow, 'hash'>): string {
  return createHmac('sha256', chainKey).update(canonical(row)).digest('hex');
}

/** The rows for `entries`, chained after the record `head`. */
export function chainRows(chainKey: Buffer, head: { seq: number; hash: string }, entries: readonly AuditInput[]): AuditRow[] {
  let { seq, hash } = head;
  return entries.map((entry) => {
    const unsigned = { ...toColumns(entry), seq: seq + 1, prev_hash: hash };
    const row = { ...unsigned, hash: chainHash(chainKey, unsigned) };
    ({ seq, hash } = row);
    return row;
  });
}

function toColumns(e: AuditInput): Omit<AuditRow, 'seq' | 'prev_hash' | 'hash'> {
  return {
    at: e.at,
    owner: e.owner,
    auth: e.auth,
    client_name: e.clientName ?? null,
    client_id: e.clientId ?? null,
    action: e.action,
    tool: e.tool ?? null,
    effect: e.effect ?? null,
    account_id: e.account ?? null,
    target: e.target ?? null,
    outcome: e.outcome,
    error_class: e.errorClass ?? null,
    provider_status: e.providerStatus ?? null,
    duration_ms: e.durationMs ?? null,
    approval_id: e.approvalId ?? null,
  };
}

export function toAuditRecord(row: AuditRow): AuditRecord {
  const optional = {
    clientName: row.client_name,
    clientId: row.client_id,
    tool: row.tool,
    effect: row.effect,
    account: row.account_id,
    target: row.target,
    errorClass: row.error_class,
    providerStatus: row.provider_status,
    durationMs: row.duration_ms,
    approvalId: row.approval_id,
  };
  const present = Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== null && v !== undefined));
  return { seq: Number(row.seq), at: row.at, owner: row.owner, auth: row.auth, action: row.action, outcome: row.outcome, ...present, prevHash: row.prev_hash, hash: row.hash };
}

const VERIFY_BATCH = 1000;

/** Walks the chain from the anchor to the head and names the first broken link. */
export async function verifyChain(storeKey: Buffer, chain: ChainRow | undefined, scan: (afterSeq: number, limit: number) => Promise<AuditRow[]>): Promise<AuditVerification> {
  const anchor = { seq: Number(chain?.anchor_seq ?? 0), hash: chain?.anchor_hash ?? '' };
  const head = { seq: Number(chain?.head_seq ?? 0), hash: chain?.head_hash ?? '' };
  let chainKey: Buffer | undefined;
  if (chain?.key_enc) {
    try {
      chainKey = openChainKey(storeKey, chain.key_enc);
    } catch {
      return { intact: false, records: 0, seq: anchor.seq + 1, reason: 'the chain key does not decrypt with this store key (it was altered, or the key is another store\'s)' };
    }
  }
  let prev = anchor;
  let records = 0;
  // Records appended after the head was read are left for the next walk.
  while (prev.seq < head.seq) {
    const rows = await scan(prev.seq, VERIFY_BATCH);
    for (const row of rows) {
      const seq = Number(row.seq);
      if (seq > head.seq) break;
      if (seq !== prev.seq + 1) return broken(records, prev.seq + 1, `record ${prev.seq + 1} is missing: the sequence jumps from ${prev.seq} to ${seq}`);
      if (row.prev_hash !== prev.hash) return broken(records, seq, `record ${seq} does not follow record ${prev.seq}: its previous hash differs (a record was removed or replaced)`);
      if (!chainKey || !sameHash(chainHash(chainKey, row), row.hash)) return broken(records, seq, `record ${seq} was altered: its hash does not match its content`);
      prev = { seq, hash: row.hash };
      records++;
    }
    if (rows.length < VERIFY_BATCH) break;
  }
  if (prev.seq !== head.seq || prev.hash !== head.hash) {
    return broken(records, prev.seq + 1, `the trail ends at record ${prev.seq} but the chain head is record ${head.seq}: the newest records were removed`);
  }
  return { intact: true, records, from: anchor.seq + 1, through: prev.seq };
}

function broken(records: number, seq: number, reason: string): AuditVerification {
  return { intact: false, records, seq, reason };
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
