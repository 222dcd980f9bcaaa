import { randomBytes } from 'node:crypto';
import type { Actor, AuditTrail } from '../contracts/governance.js';
import { InputError } from '../errors.js';
import type { PolicyPerson } from '../policy.js';
import { PERSONAL_OWNER, type Approval, type Approver, type Store } from '../store/types.js';
import type { Tool, ToolDeps } from '../tool.js';
import { approvalNeeded, candidateRules, canonicalJson, describeCall, effectOf, type ProposedCall } from './approval-rules.js';
import { personOf } from './person.js';

/** A call the policy stopped: denied by the approver, or answered with another call's approval. Nothing was sent. */
export class ApprovalError extends InputError {
  override name = 'ApprovalError';
}

export const DEFAULT_TTL_MINUTES: Record<Approver, number> = { caller: 15, admin: 24 * 60 };

/** What the policy makes of one call. */
export type Gate =
  | { kind: 'run'; approvalId?: string }
  /** Ask the caller now, in their client. */
  | { kind: 'ask'; approval: Approval }
  /** Wait for a decision made elsewhere (the page, the command line). */
  | { kind: 'pending'; approval: Approval }
  | { kind: 'denied'; approval: Approval };

export interface GateOptions {
  /** The caller's client can be asked (form elicitation, or a 2026 input request). */
  canAsk: boolean;
  /** The caller's answer to an earlier ask of this call: the approval it was about, and yes, no or no answer. */
  answer?: { approvalId: string; action: 'yes' | 'no' | 'dismissed' };
  ttlMinutes?: number;
  now?: () => Date;
}

const actorOf = (deps: Pick<ToolDeps, 'actor' | 'owner'>): Actor => deps.actor ?? { owner: deps.owner ?? PERSONAL_OWNER, auth: 'none' };

/** Whether `tool` may run with `args` now, under the policy in force: checked against the store only, never a provider. */
export async function gateCall(deps: ToolDeps, tool: Tool, args: Record<string, unknown>, options: GateOptions): Promise<Gate> {
  const policy = await deps.policy?.current();
  if (!policy?.approvals.length) return { kind: 'run' };
  const owner = deps.owner ?? PERSONAL_OWNER;
  const person = await personOf(deps.store, owner);
  const effect = effectOf(tool, args);
  const rules = candidateRules(policy, person, tool.name, effect);
  if (!rules.length) return { kind: 'run' };
  const facts: ProposedCall = { tool: tool.name, effect, args, account: await accountOf(deps.store, tool, args) };
  const need = approvalNeeded(policy, rules, facts);
  if (!need) return { kind: 'run' };

  const approvals = deps.store.approvals;
  const seal = await approvals.seal([owner, tool.name, canonicalJson(args)]);
  const now = (options.now ?? (() => new Date()))();
  const audit = (approval: Approval, action: string, outcome: 'pending' | 'approved' | 'denied' | 'expired', by = actorOf(deps)) =>
    deps.audit?.record({ action, actor: by, tool: approval.tool, effect, account: approval.account, target: approval.id, outcome, approvalId: approval.id });

  if (options.answer) {
    const asked = await approvals.get(options.answer.approvalId);
    if (!asked || asked.owner !== owner || asked.seal !== seal || asked.approver !== 'caller') {
      throw new ApprovalError(`The answer given was for another call than this ${tool.name} call (other arguments or another person); nothing was sent. Call the tool again to be asked about this one.`, 'approval');
    }
    if (options.answer.action === 'dismissed') return { kind: 'pending', approval: asked };
    const decided = await approvals.decide(asked.id, { status: options.answer.action === 'yes' ? 'approved' : 'denied', by: owner, now: now.toISOString() });
    if (!decided) throw new ApprovalError(`Approval ${asked.id} was already ${asked.status === 'pending' ? 'expired' : asked.status}; nothing was sent. Call the tool again to be asked anew.`, 'approval');
    await audit(decided, `approval.${decided.status}`, decided.status as 'approved' | 'denied');
    return take(approvals, decided);
  }

  await expireDue(deps.store, deps.audit, now.toISOString());
  const open = await approvals.findOpen(owner, seal, now.toISOString());
  if (open && open.status !== 'pending') return take(approvals, open);
  const inBand = need.approver === 'caller' && options.canAsk;
  if (open) return { kind: inBand ? 'ask' : 'pending', approval: open };

  const minutes = need.expiresInMinutes ?? options.ttlMinutes ?? DEFAULT_TTL_MINUTES[need.approver];
  const approval: Approval = {
    id: `apr_${randomBytes(12).toString('hex')}`,
    owner,
    tool: tool.name,
    ...(facts.account ? { account: facts.account.id } : {}),
    rule: need.rules[0]!.name,
    approver: need.approver,
    inBand,
    summary: describeCall(facts, policy.teamDomains),
    seal,
    status: 'pending',
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + minutes * 60_000).toISOString(),
  };
  await approvals.create(approval);
  await audit(approval, 'approval.requested', 'pending');
  return { kind: inBand ? 'ask' : 'pending', approval };
}

/** A decision taken by its call, once: approved runs it, denied refuses it; a racing caller finds it taken and waits anew. */
async function take(approvals: Store['approvals'], approval: Approval): Promise<Gate> {
  const from = approval.status as 'approved' | 'denied';
  if (!(await approvals.take(approval.id, from))) {
    throw new ApprovalError(`Approval ${approval.id} was already used by another call; nothing was sent. Call the tool again to ask anew.`, 'approval');
  }
  return from === 'approved' ? { kind: 'run', approvalId: approval.id } : { kind: 'denied', approval };
}

/** The account a call would use: the one it names (id or label), else the provider's default; read from the store. */
async function accountOf(store: Store, tool: Tool, args: Record<string, unknown>): Promise<ProposedCall['account']> {
  if (!tool.connector) return undefined;
  const accounts = await store.accounts.list({ provider: tool.connector });
  const named = typeof args.account === 'string' ? args.account.toLowerCase() : undefined;
  const account = named ? accounts.find((a) => a.id.toLowerCase() === named || a.label.toLowerCase() === named) : (accounts.find((a) => a.isDefault) ?? accounts[0]);
  return account && { id: account.id, label: account.label };
}

/** Who must decide, in words the agent can pass on. */
export function waitingFor(approval: Approval): string {
  return approval.approver === 'admin' ? 'an admin' : 'the person who made the call';
}

/** The refusal of a denied call. */
export function deniedError(approval: Approval): ApprovalError {
  const by = approval.decidedBy === approval.owner ? 'you' : approval.decidedBy === 'cli' ? 'an admin on the command line' : 'the approver';
  return new ApprovalError(
    `${approval.tool} was not run: ${by} denied approval ${approval.id} (rule "${approval.rule}")${approval.reason ? `: ${approval.reason}` : ''}. Nothing was sent; do not retry it unchanged.`,
    'approval',
  );
}

/** What the agent is told while the call waits: nothing sent, who decides, how to go on. */
export function pendingNotice(approval: Approval) {
  return {
    status: 'approval_pending' as const,
    approval_id: approval.id,
    rule: approval.rule,
    waiting_for: waitingFor(approval),
    what: approval.summary,
    sent: false,
    expires_at: approval.expiresAt,
    next:
      `Nothing was sent. Ask ${waitingFor(approval)} to approve ${approval.id} on the Integrations page or with "switchboard approvals approve ${approval.id}"; ` +
      `then call ${approval.tool} again with exactly the same arguments: it runs once. Until then the same call answers this again; after ${approval.expiresAt} it asks anew.`,
  };
}

/** The waiting call's answer, as text the agent reads: the notice's words, then its fields as JSON. */
export function pendingText(approval: Approval): string {
  const notice = pendingNotice(approval);
  return `Waiting for approval ${approval.id}: ${notice.next} ${JSON.stringify(notice)}`;
}

/**
 * The policy's decision on a call run by another tool (tools_call), which cannot ask its caller: it runs, or stops
 * with the pending approval or the denial, as an error the agent reads.
 */
export async function gateNested(deps: ToolDeps, tool: Tool, args: Record<string, unknown>): Promise<void> {
  if (!deps.policy) return;
  const gate = await gateCall(deps, tool, args, { canAsk: false, ttlMinutes: deps.approvalTtlMinutes });
  if (gate.kind === 'denied') throw deniedError(gate.approval);
  if (gate.kind !== 'run') throw new ApprovalError(pendingText(gate.approval), 'approval');
}

/** Who may decide an approval: an admin any, a person those that wait for themselves. */
export function mayDecide(approval: Approval, decider: PolicyPerson | 'cli'): boolean {
  if (decider === 'cli' || decider.role === 'admin') return true;
  return approval.approver === 'caller' && approval.owner === decider.id;
}

/** Approves or denies a pending approval as `decider` (a person, or `cli` for the operator), and records it. */
export async function decideApproval(
  store: Store,
  audit: AuditTrail | undefined,
  decider: { person: PolicyPerson | 'cli'; actor: Actor },
  id: string,
  decision: { approve: boolean; reason?: string; now?: Date },
): Promise<Approval> {
  const now = (decision.now ?? new Date()).toISOString();
  await expireDue(store, audit, now);
  const approval = await store.approvals.get(id);
  if (!approval || !mayDecide(approval, decider.person)) {
    throw new InputError(`No approval "${id}" waits for you; switchboard approvals (or the Approvals section of the Integrations page) lists those that do.`, 'id');
  }
  if (approval.status !== 'pending') throw new InputError(`Approval ${id} is ${approval.status}, no longer pending: ${approval.status === 'expired' ? 'the agent asks anew when it calls again' : 'it was already decided'}.`, 'id');
  const by = decider.person === 'cli' ? 'cli' : decider.person.id;
  const decided = await store.approvals.decide(id, { status: decision.approve ? 'approved' : 'denied', by, reason: decision.reason, now });
  if (!decided) throw new InputError(`Approval ${id} was decided or expired a moment ago; switchboard approvals shows it now.`, 'id');
  await audit?.record({ action: `approval.${decided.status}`, actor: decider.actor, tool: decided.tool, account: decided.account, target: decided.id, outcome: decided.status as 'approved' | 'denied', approvalId: decided.id });
  return decided;
}

/** Pending approvals past their expiry become expired, each recorded. */
export async function expireDue(store: Store, audit: AuditTrail | undefined, now = new Date().toISOString()): Promise<void> {
  for (const expired of await store.approvals.expire(now)) {
    await audit?.record({ action: 'approval.expired', actor: { owner: expired.owner, auth: 'none' }, tool: expired.tool, account: expired.account, target: expired.id, outcome: 'expired', approvalId: expired.id });
  }
}

/** The approvals a viewer decides: an admin's are every pending one; a person's, those waiting for themselves. */
export async function approvalsFor(store: Store, viewer: PolicyPerson | 'cli', audit?: AuditTrail): Promise<Approval[]> {
  await expireDue(store, audit);
  const pending = await store.approvals.list({ status: ['pending'] });
  return pending.filter((a) => mayDecide(a, viewer));
}

