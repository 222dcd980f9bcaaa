import type { Account, Store } from '../store/types.js';
import type { PolicySource } from '../policy.js';

/** How the caller of a tool or an administrative act proved who they are. */
export type AuthMethod = 'oauth' | 'personal-token' | 'static-token' | 'stdio' | 'page' | 'cli' | 'none';

/** Who acts: the person (PERSONAL_OWNER in personal mode), how they authenticated, and with which MCP client. */
export interface Actor {
  owner: string;
  auth: AuthMethod;
  /** The MCP client's name and version as it introduced itself (clientInfo), when it did. */
  clientName?: string;
  /** The OAuth client id (team mode) or the personal token's id. */
  clientId?: string;
}

export type AuditOutcome = 'ok' | 'error' | 'refused' | 'pending' | 'approved' | 'denied' | 'expired';

/** One entry of the audit trail as a caller hands it in; the trail adds the time, the sequence and the chain hash. */
export interface AuditEntry {
  /** `tool.call` for a tool call; else the administrative act: `account.added`, `token.revoked`, `signin.refused`... */
  action: string;
  actor: Actor;
  tool?: string;
  effect?: 'read' | 'write' | 'delete';
  /** The account's id. */
  account?: string;
  /** What was acted on, short and never a body or a secret: `owner/repo#12`, a message id, a person's id, a trigger id. */
  target?: string;
  outcome: AuditOutcome;
  /** The error's class name (InputError, ProviderError, BudgetError...) when the outcome is not ok. */
  errorClass?: string;
  /** The provider's last HTTP status, when the call reached one. */
  providerStatus?: number;
  durationMs?: number;
  approvalId?: string;
}

/** Where every tool call and administrative act is recorded. */
export interface AuditTrail {
  record(entry: AuditEntry): Promise<void>;
}

/** The budgets that hold for one tool call: each counts before anything is sent and throws BudgetError at the limit. */
export interface CallBudget {
  /** Before each HTTP request to the provider (every attempt, retries included); `method` and `path` say whether it sends an email. */
  beforeRequest(request: { method: string; path: string; attempt: number }): Promise<void>;
  /** Reserves sales credits before a call that may spend them. */
  reserveCredits(amount: number): Promise<void>;
  /** Corrects the reservation by what the provider reported (negative gives back). */
  settleCredits(delta: number): Promise<void>;
}

/** Budgets on shared quotas: the budgets of the policy that hold for this person and account, if any. */
export interface BudgetGate {
  /** The time its windows are cut on: the usage shown is that of the windows it counts in now. */
  now(): number;
  /** Undefined when no budget rule applies: the call then touches no counter. */
  forCall(deps: { policy?: PolicySource; owner?: string; store: Store }, account: Account, sendsEmail?: (method: string, path: string) => boolean): Promise<CallBudget | undefined>;
}
