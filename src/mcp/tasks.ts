import { CLIENT_CAPABILITIES_META_KEY, ProtocolErrorCode, type CallToolResult, type Server, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { InputError } from '../errors.js';
import { cancelTask, keepTaskCall, keepTaskResult, taskOf, taskStep, TASK_GRACE_MS, type TaskCall } from '../governance/approval-tasks.js';
import { deniedError, waitingFor } from '../governance/approvals.js';
import type { Approval } from '../store/types.js';
import type { ToolDeps } from '../tool.js';
import { APPROVAL_META_KEY } from './approval.js';
import { ownerOf } from './auth.js';
import { RequestError } from './requests.js';
import { toErrorResult } from './tools.js';

/*
 * The tasks extension (SEP-2663, 2026-07-28), for one kind of long-running call: a tool call waiting for an approver.
 * A client that declares the extension on its tools/call gets the waiting call as a task; tasks/get runs it (once)
 * when the approval is given, or completes it with the denial; tasks/cancel withdraws it. Denied and expired calls
 * complete with an isError result, as a tool-level outcome the model reads, like every other refusal of a call. The
 * task's state is in the store (governance/approval-tasks.ts), so no requestState travels on the task's wire.
 */

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const POLL_INTERVAL_MS = 5_000;

/** Whether this request declared the tasks extension: per request, so only a 2026-07-28 request can. */
export function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, { extensions?: Record<string, unknown> } | undefined> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY]?.extensions?.[TASKS_EXTENSION] !== undefined;
}

const times = (approval: Approval) => ({ createdAt: approval.createdAt, lastUpdatedAt: approval.decidedAt ?? approval.createdAt });
const ttlSeconds = (approval: Approval) => Math.max(0, Math.round((Date.parse(approval.expiresAt) + TASK_GRACE_MS - Date.parse(approval.createdAt)) / 1000));

function waitingMessage(approval: Approval): string {
  return (
    `Waiting for ${waitingFor(approval)} to approve ${approval.id} (rule "${approval.rule}"): ${approval.summary}. Nothing was sent. ` +
    `The approver decides on the Integrations page or with "switchboard approvals approve ${approval.id}"; the call then runs once, on the next tasks/get. ` +
    `The approval expires at ${approval.expiresAt}.`
  );
}

/** The CreateTaskResult a waiting call answers with, once the task it names is readable (the approval is stored before). */
export async function createTaskResult(deps: ToolDeps, approval: Approval, call: TaskCall) {
  await keepTaskCall(deps.store, approval, call);
  return {
    resultType: 'task' as const,
    taskId: approval.id,
    status: 'working' as const,
    statusMessage: waitingMessage(approval),
    ...times(approval),
    ttlSeconds: ttlSeconds(approval),
    pollIntervalMilliseconds: POLL_INTERVAL_MS,
  };
}

const withApproval = (result: CallToolResult, approval: Approval): CallToolResult => ({ ...result, _meta: { ...result._meta, [APPROVAL_META_KEY]: { approval_id: approval.id, status: approval.status } } });

const notice = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/** Runs an approved call as its person, under the approval: the same road as tools/call, without the gate. */
export type RunApproved = (ctx: ServerContext, tool: string, args: Record<string, unknown>, approvalId: string) => Promise<CallToolResult>;

const params = z.looseObject({});
const taskIdOf = (p: Record<string, unknown>): string => {
  if (typeof p.taskId !== 'string' || p.taskId === '') throw new InputError('"taskId" must be a non-empty string: the taskId of a task this server handed you.', 'taskId');
  return p.taskId;
};
/** -32021: the tasks methods answer only a request that declares the extension (HTTP 400, as the SDK sends this code). */
const undeclared = (method: string) =>
  new RequestError(-32021, `${method} needs the ${TASKS_EXTENSION} extension: declare it in this request's _meta["io.modelcontextprotocol/clientCapabilities"].extensions.`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
const asRequestError = (error: unknown) => (error instanceof InputError ? new RequestError(ProtocolErrorCode.InvalidParams, error.message, { field: error.field }) : error);
const unknownTask = (taskId: string) => new InputError(`"taskId": no task "${taskId.slice(0, 100)}" for you; a task id comes from the tools/call that created it.`, 'taskId');

/** Answers tasks/get, tasks/update and tasks/cancel for the tasks this server hands out. */
export function serveTasks(server: Server, needDeps: () => Promise<ToolDeps>, actorOf: (ctx: ServerContext, deps: ToolDeps) => ToolDeps['actor'], run: RunApproved): void {
  const on = (method: string, h: (p: Record<string, unknown>, ctx: ServerContext, deps: ToolDeps) => Promise<object>) =>
    server.setRequestHandler(method, { params }, async (p: Record<string, unknown>, ctx: ServerContext) => {
      if (!declaresTasks(ctx)) throw undeclared(method);
      try {
        return { resultType: 'complete', ...(await h(p, ctx, await needDeps())) };
      } catch (error) {
        throw asRequestError(error);
      }
    });

  on('tasks/get', async (p, ctx, deps) => {
    const taskId = taskIdOf(p);
    const approval = await taskOf(deps.store, ownerOf(ctx), taskId);
    if (!approval) throw unknownTask(taskId);
    const step = await taskStep(deps.store, deps.audit, approval);
    const task = { taskId, ...times(step.approval), ttlSeconds: ttlSeconds(step.approval), pollIntervalMilliseconds: POLL_INTERVAL_MS };
    switch (step.kind) {
      case 'working':
        return { ...task, status: 'working', statusMessage: waitingMessage(step.approval) };
      case 'cancelled':
        return { ...task, status: 'cancelled', statusMessage: `Cancelled: approval ${taskId} was withdrawn; nothing was sent.` };
      case 'denied':
        return { ...task, status: 'completed', result: withApproval(toErrorResult(deniedError(step.approval)), step.approval) };
      case 'expired':
        return {
          ...task,
          status: 'completed',
          result: withApproval(notice(`${step.approval.tool} was not run: approval ${taskId} expired at ${step.approval.expiresAt} before anyone decided. Nothing was sent; call the tool again to ask anew.`), step.approval),
        };
      case 'run': {
        const result = await run(ctx, step.call.tool, step.call.args, step.approval.id);
        await keepTaskResult(deps.store, step.approval, result);
        return { ...task, lastUpdatedAt: new Date().toISOString(), status: 'completed', result };
      }
      case 'delivered':
        return 'result' in step
          ? { ...task, status: 'completed', result: step.result }
          : {
              ...task,
              status: 'completed',
              result: withApproval(notice(`${step.approval.tool} ran once, or learnt its denial, under approval ${taskId} on another request, whose answer this task does not hold (a call of the same tool with the same arguments takes the same approval). Nothing was sent again.`), step.approval),
            };
    }
  });

  on('tasks/cancel', async (p, ctx, deps) => {
    const taskId = typeof p.taskId === 'string' ? p.taskId : undefined;
    const approval = taskId && (await taskOf(deps.store, ownerOf(ctx), taskId));
    if (approval && approval.status === 'pending') await cancelTask(deps.store, deps.audit, actorOf(ctx, deps) ?? { owner: approval.owner, auth: 'none' }, approval);
    return {};
  });

  // The approval asks nothing of the client once the task exists: an update is acknowledged and changes nothing.
  on('tasks/update', async () => ({}));
}
