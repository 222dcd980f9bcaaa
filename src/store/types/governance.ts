/*
 * The governance policy every instance reads, and the approvals that calls wait on. An approval is bound to one call
 * by its seal: an HMAC, under a key derived from the store key, over the person, the tool and the call's arguments.
 * Times are ISO 8601 text, compared as written.
 */

/** The policy as stored: its JSON text, as `policy set` was given it. */
export interface StoredPolicy {
  text: string;
  updatedAt: string;
  /** Who stored it: a person's id, or `cli`. */
  updatedBy: string;
}

export interface PolicyStore {
  get(): Promise<StoredPolicy | undefined>;
  set(text: string, by: string, at: string): Promise<void>;
  /** Removes the stored policy; false when there was none. */
  clear(): Promise<boolean>;
}

/**
 * `pending` waits for a yes or no; `approved` and `denied` wait for the call to come back; `used` is a decision the
 * call has taken (it ran once, or learnt of the denial); `expired` was not decided in time.
 */
export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'used' | 'expired';
export type Approver = 'caller' | 'admin';

export interface Approval {
  id: string;
  /** Whose call it is. */
  owner: string;
  tool: string;
  /** The account's id, when the tool uses one. */
  account?: string;
  /** The policy rule's name. */
  rule: string;
  approver: Approver;
  /** Asked in the caller's MCP client (elicitation or input request) rather than on the page or the command line. */
  inBand: boolean;
  /** What will happen, in plain words: never a body or a secret. */
  summary: string;
  seal: string;
  status: ApprovalStatus;
  createdAt: string;
  expiresAt: string;
  decidedAt?: string;
  /** A person's id, or `cli`. */
  decidedBy?: string;
  reason?: string;
}

/** A call kept for its task (JSON text), and its result once it ran. */
export interface KeptCall {
  call: string;
  result?: string;
}

export type NewApproval = Omit<Approval, 'status' | 'decidedAt' | 'decidedBy' | 'reason'>;

export interface ApprovalStore {
  /** The seal of one call: an HMAC under a key derived from the store key, so it cannot be made without that key. */
  seal(parts: readonly string[]): Promise<string>;
  /**
   * Keeps the call an approval waits on (an MCP task's tool and arguments) until `expiresAt`, encrypted with a key
   * derived from the store key and bound to the approval and its person (a call already kept for it stays); calls kept
   * past their expiry go.
   */
  keepCall(approvalId: string, owner: string, call: string, expiresAt: string): Promise<void>;
  /** The kept call, and its result once it ran; undefined when none is kept for this approval and person at `now`. */
  keptCall(approvalId: string, owner: string, now: string): Promise<KeptCall | undefined>;
  /** Keeps the result of a kept call beside it (encrypted the same way), until `expiresAt`. */
  keepResult(approvalId: string, owner: string, result: string, expiresAt: string): Promise<void>;
  create(approval: NewApproval): Promise<void>;
  get(id: string): Promise<Approval | undefined>;
  /** The newest approval of `owner` with this seal still waiting or decided and not yet taken, unexpired at `now`. */
  findOpen(owner: string, seal: string, now: string): Promise<Approval | undefined>;
  /** Newest first; every one when the filter is empty. */
  list(filter: { owner?: string; approver?: Approver; status?: readonly ApprovalStatus[] }): Promise<Approval[]>;
  /** A pending, unexpired approval decided; undefined when it was not pending (decided, taken or expired) or unknown. */
  decide(id: string, decision: { status: 'approved' | 'denied'; by: string; reason?: string; now: string }): Promise<Approval | undefined>;
  /** Marks a decision taken by its call: true for exactly one of any racing callers. */
  take(id: string, from: 'approved' | 'denied'): Promise<boolean>;
  /** Pending approvals past their expiry become expired; returns them. */
  expire(now: string): Promise<Approval[]>;
}
