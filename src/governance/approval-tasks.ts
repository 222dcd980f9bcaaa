import type { Actor, AuditTrail } from '../contracts/governance.js';
import { InputError } from '../errors.js';
import type { Approval, Store } from '../store/types.js';
import { canonicalJson } from './approval-rules.js';
import { expireDue } from './approvals.js';

/*
 * A call waiting for an approver, handed to its client as an MCP task (the tasks extension). The task's id is the
 * approval's id, and the approval in the store is the task's state: any instance sharing the store answers for it. The
 * call itself (tool and arguments, which may hold an email body) is never stored: it travels in the task's
 * requestState, sealed under a key derived from the store key and bound to its person and task, with an expiry.
 */

/** How long a decided task's state stays good after its approval would have expired: time for the client's next poll. */
export const TASK_GRACE_MS = 60 * 60_000;
/** A result larger than this is not carried in the requestState: a later tasks/get then says it was delivered. */
const MAX_KEPT_RESULT = 64 * 1024;
/** The reason a withdrawn approval carries, which tells a cancelled task from a denied one. */
export const TASK_CANCELLED_REASON = 'withdrawn by the caller (tasks/cancel)';

/** What a task's requestState carries: the call, until it runs; then its result, when small enough. */
interface TaskState {
  tool: string;
  args?: Record<string, unknown>;
  result?: unknown;
  /** Epoch milliseconds after which the state is refused. */
  exp: number;
}

/** What a task is now, as its owner's tasks/get finds it. */
export type TaskStep =
  | { kind: 'working'; approval: Approval }
  | { kind: 'run'; approval: Approval; tool: string; args: Record<string, unknown> }
  | { kind: 'denied'; approval: Approval }
  | { kind: 'expired'; approval: Approval }
  | { kind: 'cancelled'; approval: Approval }
  /** The decision was taken earlier: by this task's first delivery (its result, when the state carries it) or by another call. */
  | { kind: 'delivered'; approval: Approval; result?: unknown };

const binding = (owner: string, taskId: string) => JSON.stringify([owner, taskId]);

/** The requestState a task is handed with: its call, sealed for `owner` and this task, good until the approval expires (plus grace). */
export async function sealTaskCall(store: Store, approval: Approval, call: { tool: string; args: Record<string, unknown> }): Promise<string> {
  const state: TaskState = { ...call, exp: Date.parse(approval.expiresAt) + TASK_GRACE_MS };
  return store.approvals.sealState(JSON.stringify(state), binding(approval.owner, approval.id));
}

/** The requestState a completed task answers with: its result, so that the next tasks/get answers the same; undefined when too large. */
export async function sealTaskResult(store: Store, approval: Approval, tool: string, result: unknown, now = Date.now()): Promise<string | undefined> {
  const text = JSON.stringify({ tool, result, exp: now + TASK_GRACE_MS } satisfies TaskState);
  return text.length > MAX_KEPT_RESULT ? undefined : store.approvals.sealState(text, binding(approval.owner, approval.id));
}

const refused = (why: string) => new InputError(`"requestState" ${why}: send back the requestState of this task's last answer, unchanged.`, 'requestState');

async function openState(store: Store, approval: Approval, blob: string, now: number): Promise<TaskState> {
  const text = await store.approvals.openState(blob, binding(approval.owner, approval.id));
  if (text === undefined) throw refused('was not given by this server for this task');
  const state = JSON.parse(text) as TaskState;
  if (state.exp <= now) throw refused('has expired');
  if (state.tool !== approval.tool) throw refused('names another call than this task');
  return state;
}

/** A task of `owner`'s, or undefined: another person's task is as unknown as one that never was. */
export async function taskOf(store: Store, owner: string, taskId: string): Promise<Approval | undefined> {
  const approval = await store.approvals.get(taskId);
  return approval?.owner === owner ? approval : undefined;
}

/**
 * Where `owner`'s task stands, taking an approved or denied decision (once) when it is this task's to take. A
 * requestState that fails its seal, its binding or its expiry is refused (InputError naming it), whatever the status.
 */
export async function taskStep(store: Store, audit: AuditTrail | undefined, approval: Approval, requestState: string | undefined, now = new Date()): Promise<TaskStep> {
  const state = requestState === undefined ? undefined : await openState(store, approval, requestState, now.getTime());
  await expireDue(store, audit, now.toISOString());
  const current = (await store.approvals.get(approval.id)) ?? approval;
  switch (current.status) {
    case 'pending':
      return { kind: 'working', approval: current };
    case 'expired':
      return { kind: 'expired', approval: current };
    case 'denied':
      return (await store.approvals.take(current.id, 'denied')) ? { kind: 'denied', approval: current } : taskStep(store, audit, current, requestState, now);
    case 'approved': {
      if (!state?.args) {
        throw new InputError(`"requestState" is missing: approval ${current.id} was given, and the call it runs travels in the requestState this task was created with; send it back.`, 'requestState');
      }
      if ((await store.approvals.seal([current.owner, current.tool, canonicalJson(state.args)])) !== current.seal) throw refused('names another call than this task');
      if (!(await store.approvals.take(current.id, 'approved'))) return taskStep(store, audit, current, requestState, now);
      return { kind: 'run', approval: current, tool: state.tool, args: state.args };
    }
    case 'used':
      if (current.reason === TASK_CANCELLED_REASON && current.decidedBy === current.owner) return { kind: 'cancelled', approval: current };
      return { kind: 'delivered', approval: current, ...(state && 'result' in state ? { result: state.result } : {}) };
  }
}

/** Withdraws `owner`'s own pending approval for a cancelled task: denied with the cancel's reason, taken at once, recorded. */
export async function cancelTask(store: Store, audit: AuditTrail | undefined, actor: Actor, approval: Approval, now = new Date()): Promise<boolean> {
  const withdrawn = await store.approvals.decide(approval.id, { status: 'denied', by: approval.owner, reason: TASK_CANCELLED_REASON, now: now.toISOString() });
  if (!withdrawn || !(await store.approvals.take(withdrawn.id, 'denied'))) return false;
  await audit?.record({ action: 'approval.cancelled', actor, tool: withdrawn.tool, account: withdrawn.account, target: withdrawn.id, outcome: 'denied', approvalId: withdrawn.id });
  return true;
}
