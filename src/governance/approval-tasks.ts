import type { Actor, AuditTrail } from '../contracts/governance.js';
import type { Approval, Store } from '../store/types.js';
import { canonicalJson } from './approval-rules.js';
import { expireDue } from './approvals.js';

/*
 * A call waiting for an approver, handed to its client as an MCP task (the tasks extension). The task's id is the
 * approval's id, and the store holds the rest: the approval, and the call itself (tool and arguments, which may hold an
 * email body) encrypted beside it, then its result. Any instance sharing the store answers for the task.
 */

/** How long a task stays readable after its approval would have expired, or after its call ran: time for the client's next poll. */
export const TASK_GRACE_MS = 60 * 60_000;
/** The reason a withdrawn approval carries, which tells a cancelled task from a denied one. */
export const TASK_CANCELLED_REASON = 'withdrawn by the caller (tasks/cancel)';

export interface TaskCall {
  tool: string;
  args: Record<string, unknown>;
}

/** What a task is now, as its owner's tasks/get finds it. */
export type TaskStep =
  | { kind: 'working'; approval: Approval }
  | { kind: 'run'; approval: Approval; call: TaskCall }
  | { kind: 'denied'; approval: Approval }
  | { kind: 'expired'; approval: Approval }
  | { kind: 'cancelled'; approval: Approval }
  /** The decision was taken earlier: by this task (its result, as kept) or by a call of the same tool and arguments. */
  | { kind: 'delivered'; approval: Approval; result?: unknown };

/** Keeps the call of a new task, until its approval would have expired (plus grace): before the task is answered. */
export async function keepTaskCall(store: Store, approval: Approval, call: TaskCall): Promise<void> {
  await store.approvals.keepCall(approval.id, approval.owner, JSON.stringify(call), new Date(Date.parse(approval.expiresAt) + TASK_GRACE_MS).toISOString());
}

/** Keeps the result of a task's call, so that a later tasks/get answers the same. */
export async function keepTaskResult(store: Store, approval: Approval, result: unknown, now = Date.now()): Promise<void> {
  await store.approvals.keepResult(approval.id, approval.owner, JSON.stringify(result), new Date(now + TASK_GRACE_MS).toISOString());
}

/** A task of `owner`'s, or undefined: another person's task, or an approval with no call kept for a task, is as unknown as one that never was. */
export async function taskOf(store: Store, owner: string, taskId: string, now = new Date()): Promise<Approval | undefined> {
  const approval = await store.approvals.get(taskId);
  if (approval?.owner !== owner) return undefined;
  return (await store.approvals.keptCall(approval.id, owner, now.toISOString())) ? approval : undefined;
}

/** Where `owner`'s task stands, taking an approved or denied decision (once) when it is still there to take. */
export async function taskStep(store: Store, audit: AuditTrail | undefined, approval: Approval, now = new Date()): Promise<TaskStep> {
  await expireDue(store, audit, now.toISOString());
  const current = (await store.approvals.get(approval.id)) ?? approval;
  const kept = await store.approvals.keptCall(current.id, current.owner, now.toISOString());
  switch (current.status) {
    case 'pending':
      return { kind: 'working', approval: current };
    case 'expired':
      return { kind: 'expired', approval: current };
    case 'denied':
      return (await store.approvals.take(current.id, 'denied')) ? { kind: 'denied', approval: current } : taskStep(store, audit, current, now);
    case 'approved': {
      const call = kept && (JSON.parse(kept.call) as TaskCall);
      // The seal binds the approval to this person, tool and arguments: a kept call that is not that one never runs.
      if (!call || (await store.approvals.seal([current.owner, call.tool, canonicalJson(call.args)])) !== current.seal) return { kind: 'delivered', approval: current };
      if (!(await store.approvals.take(current.id, 'approved'))) return taskStep(store, audit, current, now);
      return { kind: 'run', approval: current, call };
    }
    case 'used':
      if (current.reason === TASK_CANCELLED_REASON && current.decidedBy === current.owner) return { kind: 'cancelled', approval: current };
      return { kind: 'delivered', approval: current, ...(kept?.result === undefined ? {} : { result: JSON.parse(kept.result) as unknown }) };
  }
}

/** Withdraws `owner`'s own pending approval for a cancelled task: denied with the cancel's reason, taken at once, recorded. */
export async function cancelTask(store: Store, audit: AuditTrail | undefined, actor: Actor, approval: Approval, now = new Date()): Promise<boolean> {
  const withdrawn = await store.approvals.decide(approval.id, { status: 'denied', by: approval.owner, reason: TASK_CANCELLED_REASON, now: now.toISOString() });
  if (!withdrawn || !(await store.approvals.take(withdrawn.id, 'denied'))) return false;
  await audit?.record({ action: 'approval.cancelled', actor, tool: withdrawn.tool, account: withdrawn.account, target: withdrawn.id, outcome: 'denied', approvalId: withdrawn.id });
  return true;
}
