import { createHmac } from 'node:crypto';
import { deriveKey, encryptSecret } from './crypto.js';
import { unseal } from './short-lived-rows.js';
import type { Approval, ApprovalStatus, Approver, KeptCall } from './types.js';

/** The policy and approvals tables: the same statement in both adapters (SQLite migration 16, PostgreSQL 10). */
export const GOVERNANCE_TABLES = `
  CREATE TABLE policy (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    text TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    updated_by TEXT NOT NULL
  );
  CREATE TABLE approvals (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    tool TEXT NOT NULL,
    account_id TEXT,
    rule TEXT NOT NULL,
    approver TEXT NOT NULL,
    in_band INTEGER NOT NULL,
    summary TEXT NOT NULL,
    seal TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    decided_at TEXT,
    decided_by TEXT,
    reason TEXT
  );
  CREATE INDEX approvals_seal ON approvals (owner, seal);
  CREATE INDEX approvals_status ON approvals (status, expires_at);
`;

export interface ApprovalRow {
  id: string;
  owner: string;
  tool: string;
  account_id: string | null;
  rule: string;
  approver: string;
  in_band: number;
  summary: string;
  seal: string;
  status: string;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  reason: string | null;
}

export const approvalOf = (row: ApprovalRow): Approval => ({
  id: row.id,
  owner: row.owner,
  tool: row.tool,
  ...(row.account_id ? { account: row.account_id } : {}),
  rule: row.rule,
  approver: row.approver as Approver,
  inBand: Number(row.in_band) === 1,
  summary: row.summary,
  seal: row.seal,
  status: row.status as ApprovalStatus,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  ...(row.decided_at ? { decidedAt: row.decided_at } : {}),
  ...(row.decided_by !== null ? { decidedBy: row.decided_by } : {}),
  ...(row.reason ? { reason: row.reason } : {}),
});

export const approvalRow = (a: Omit<Approval, 'status'> & { status?: ApprovalStatus }): ApprovalRow => ({
  id: a.id,
  owner: a.owner,
  tool: a.tool,
  account_id: a.account ?? null,
  rule: a.rule,
  approver: a.approver,
  in_band: a.inBand ? 1 : 0,
  summary: a.summary,
  seal: a.seal,
  status: a.status ?? 'pending',
  created_at: a.createdAt,
  expires_at: a.expiresAt,
  decided_at: a.decidedAt ?? null,
  decided_by: a.decidedBy ?? null,
  reason: a.reason ?? null,
});

/** Seals a call's parts under a key derived from the store key. */
export function approvalSealer(key: Buffer): (parts: readonly string[]) => string {
  const sealKey = deriveKey(key, 'approvals/seal');
  return (parts) => createHmac('sha256', sealKey).update(JSON.stringify(parts)).digest('base64url');
}

/** The calls tasks wait on (SQLite migration 18, PostgreSQL 12): encrypted, kept until their task is over. */
export const APPROVAL_CALLS_TABLE = `
  CREATE TABLE approval_calls (
    approval_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    call_enc TEXT NOT NULL,
    result_enc TEXT,
    expires_at TEXT NOT NULL
  );
  CREATE INDEX approval_calls_expiry ON approval_calls (expires_at);
`;

export interface ApprovalCallRow {
  call_enc: string;
  result_enc: string | null;
}

/** Encrypts and decrypts a kept call and its result under a key derived from the store key, bound to the approval and its person. */
export function approvalCallBox(key: Buffer) {
  const callKey = deriveKey(key, 'approvals/calls');
  const aad = (id: string, owner: string, part: 'call' | 'result') => `approval_calls:${JSON.stringify([id, owner])}:${part}`;
  return {
    seal: (id: string, owner: string, part: 'call' | 'result', text: string) => encryptSecret(callKey, text, aad(id, owner, part)),
    open(id: string, owner: string, row: ApprovalCallRow): KeptCall | undefined {
      const call = unseal(callKey, row.call_enc, aad(id, owner, 'call'));
      const result = row.result_enc === null ? undefined : unseal(callKey, row.result_enc, aad(id, owner, 'result'));
      return call === undefined ? undefined : { call, ...(result === undefined ? {} : { result }) };
    },
  };
}
