/** One tool call or administrative act as the audit trail is handed it; the store adds the sequence and the chain. */
export interface AuditInput {
  /** ISO 8601 time of the act. */
  at: string;
  /** The person's id (PERSONAL_OWNER in personal mode). */
  owner: string;
  /** How they authenticated: oauth, personal-token, static-token, stdio, page, cli, none. */
  auth: string;
  clientName?: string;
  clientId?: string;
  /** `tool.call`, or the administrative act (`account.added`, `signin.refused`...). */
  action: string;
  tool?: string;
  effect?: string;
  account?: string;
  /** Short and never a body or a secret: `owner/repo#12`, a message id, a trigger id. */
  target?: string;
  outcome: string;
  errorClass?: string;
  providerStatus?: number;
  durationMs?: number;
  approvalId?: string;
}

/** A stored record: its place in the chain and the hashes that bind it to the one before. */
export interface AuditRecord extends AuditInput {
  seq: number;
  prevHash: string;
  hash: string;
}

export interface AuditQuery {
  /** Only this person's records; the owner view of a store always sets it to its owner. */
  owner?: string;
  tool?: string;
  account?: string;
  /** ISO 8601: records at or after it. */
  since?: string;
  /** Newest first, at most this many (default 100). */
  limit?: number;
}

export interface AuditRange {
  afterSeq: number;
  limit: number;
  /** ISO 8601: records at or after it. */
  since?: string;
  owner?: string;
}

/** What walking the chain found: intact with a count, or the first broken link. */
export type AuditVerification =
  | { intact: true; records: number; from: number; through: number }
  | { intact: false; records: number; seq: number; reason: string };

/**
 * The audit trail's rows: appended in one chain (each record's HMAC covers it and the previous record's hash), read,
 * and removed only from the old end by retention, which keeps an anchor so the chain still verifies. No update.
 */
export interface AuditStore {
  append(entries: readonly AuditInput[]): Promise<void>;
  /** Newest first. */
  list(query?: AuditQuery): Promise<AuditRecord[]>;
  /** Oldest first, the records after `afterSeq` (at most `limit`): for export. */
  scan(range: AuditRange): Promise<AuditRecord[]>;
  verify(): Promise<AuditVerification>;
  /** Removes the records before `before` (ISO 8601), keeping the last removed one's sequence and hash as the anchor. */
  prune(before: string): Promise<number>;
}
