import type { AuditEntry, AuditOutcome } from '../contracts/governance.js';
import { PERSONAL_OWNER } from '../store/types.js';
import type { CallFacts, Tool, ToolDeps } from '../tool.js';
import { targetOf } from './target.js';

/** The audit record of one tool call: who, which tool and account, what it acted on, how it ended. */
export function toolCallEntry(
  deps: Pick<ToolDeps, 'actor' | 'owner'>,
  tool: Pick<Tool, 'name' | 'effect'>,
  args: unknown,
  facts: CallFacts,
  end: { outcome: AuditOutcome; error?: unknown; durationMs?: number },
): AuditEntry {
  const status = (end.error as { status?: unknown } | undefined)?.status;
  const providerStatus = facts.providerStatus ?? (typeof status === 'number' && status > 0 ? status : undefined);
  return {
    action: 'tool.call',
    actor: deps.actor ?? { owner: deps.owner ?? PERSONAL_OWNER, auth: 'none' },
    tool: tool.name,
    effect: tool.effect,
    account: facts.account,
    target: targetOf(args),
    outcome: end.outcome,
    ...(end.error !== undefined && { errorClass: end.error instanceof Error ? end.error.name : 'Error' }),
    ...(providerStatus !== undefined && { providerStatus }),
    ...(end.durationMs !== undefined && { durationMs: end.durationMs }),
    ...(facts.approvalId !== undefined && { approvalId: facts.approvalId }),
  };
}
