import { inputRequired, inputResponse, type CallToolResult, type ClientCapabilities, type InputRequiredResult, type ServerContext } from '@modelcontextprotocol/server';
import { deniedError, gateCall, pendingNotice, pendingText, type Gate } from '../governance/approvals.js';
import type { Approval } from '../store/types.js';
import type { Tool, ToolDeps } from '../tool.js';
import { toErrorResult } from './tools.js';

/** The input request key under which a call asks its caller for a yes. */
export const APPROVE_INPUT = 'approve';
/** Where a result says which approval it waits on (or ran under). */
export const APPROVAL_META_KEY = 'switchboard/approval';

/** A waiting call handed to a client of the tasks extension as a task (mcp/tasks.ts). */
export type TaskAnswer = { resultType: 'task'; taskId: string };

/** Form elicitation: declared as `form`, or as `{}` (form only, in 2025-11-25), but not URL mode alone. */
export const canBeAsked = (capabilities: ClientCapabilities | undefined) => {
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  return !!elicitation && (elicitation.form !== undefined || elicitation.url === undefined);
};

/**
 * The policy's decision on a call before it runs: undefined to run it, else what the call answers now. The caller's
 * yes comes only from their client's answer to the question asked (an input response, or a 2025 elicitation the SDK
 * turns into one), about the approval named in the request state and sealed to this person, tool and arguments:
 * nothing in the arguments can stand in for it. A call that waits for an approver answers as a task when `asTask`
 * is given (its client declared the tasks extension), else with the pending approval.
 */
export async function approvalGate(
  deps: ToolDeps,
  tool: Tool,
  args: Record<string, unknown>,
  ctx: ServerContext,
  capabilities: ClientCapabilities | undefined,
  asTask?: (approval: Approval) => Promise<TaskAnswer>,
): Promise<{ answer: CallToolResult | InputRequiredResult | TaskAnswer } | { approvalId?: string }> {
  const response = inputResponse(ctx.mcpReq.inputResponses, APPROVE_INPUT);
  const state = ctx.mcpReq.requestState();
  const answer =
    response.kind === 'elicit' && typeof state === 'string'
      ? { approvalId: state, action: response.action === 'accept' ? (response.content?.approve === true ? 'yes' : 'no') : response.action === 'decline' ? 'no' : 'dismissed' }
      : undefined;
  let gate: Gate;
  try {
    gate = await gateCall(deps, tool, args, { canAsk: canBeAsked(capabilities), answer: answer as { approvalId: string; action: 'yes' | 'no' | 'dismissed' } | undefined, ttlMinutes: deps.approvalTtlMinutes });
  } catch (error) {
    return { answer: toErrorResult(error) };
  }
  switch (gate.kind) {
    case 'run':
      return { approvalId: gate.approvalId };
    case 'denied':
      return { answer: withApproval(toErrorResult(deniedError(gate.approval)), gate.approval) };
    case 'pending':
      return { answer: asTask ? await asTask(gate.approval) : pendingResult(gate.approval) };
    case 'ask':
      return { answer: askCaller(gate.approval) };
  }
}

function askCaller(approval: Approval): InputRequiredResult {
  const message =
    `Approve this call? ${approval.summary}. ` +
    `The policy rule "${approval.rule}" asks for your yes before it runs; it runs once, exactly as shown, if you approve.`;
  return inputRequired({
    inputRequests: {
      [APPROVE_INPUT]: inputRequired.elicit({
        message,
        requestedSchema: {
          type: 'object',
          properties: { approve: { type: 'boolean', title: 'Run it', description: `Run ${approval.tool} as described`, default: false } },
          required: ['approve'],
        },
      }),
    },
    requestState: approval.id,
  });
}

/**
 * Every tool declares an output schema, and a client checks a successful result against it; so the waiting call
 * answers as an error result the model reads, its text the notice, its `_meta` the same fields.
 */
function pendingResult(approval: Approval): CallToolResult {
  return withApproval({ isError: true, content: [{ type: 'text', text: pendingText(approval) }] }, approval, pendingNotice(approval));
}

function withApproval(result: CallToolResult, approval: Approval, notice: object = { approval_id: approval.id, status: approval.status }): CallToolResult {
  return { ...result, _meta: { ...result._meta, [APPROVAL_META_KEY]: notice } };
}
