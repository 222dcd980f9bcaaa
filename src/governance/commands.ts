import { readFileSync } from 'node:fs';
import type { AuditTrail } from '../contracts/governance.js';
import type { Config } from '../config.js';
import { InputError } from '../errors.js';
import { OPEN_POLICY, parsePolicy, type Policy } from '../policy.js';
import { openStore } from '../store/index.js';
import { PERSONAL_OWNER, type Approval, type Store } from '../store/types.js';
import { approvalsFor, decideApproval } from './approvals.js';

/** `switchboard policy ...` and `switchboard approvals ...`: the policy in force and the calls waiting on a decision. */

type Settings = Pick<Config, 'dataDir' | 'databaseUrl' | 'secretKey' | 'policyFile'>;

async function onStore<T>(config: Settings, run: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, secretKey: config.secretKey });
  try {
    return await run(store);
  } finally {
    await store.close();
  }
}

const CLI_ACTOR = { owner: PERSONAL_OWNER, auth: 'cli' as const };

/** The policy in force and where it comes from. */
export async function showPolicy(config: Settings): Promise<{ source: string; policy: Policy; updatedAt?: string; updatedBy?: string }> {
  if (config.policyFile) return { source: `SWITCHBOARD_POLICY (${config.policyFile})`, policy: parsePolicy(readFileSync(config.policyFile, 'utf8'), config.policyFile) };
  return onStore(config, async (store) => {
    const stored = await store.policy.get();
    if (!stored) return { source: 'none (everything allowed)', policy: OPEN_POLICY };
    return { source: 'the store', policy: parsePolicy(stored.text, 'the stored policy'), updatedAt: stored.updatedAt, updatedBy: stored.updatedBy || 'the owner' };
  });
}

function refuseWhileFile(config: Settings): void {
  if (config.policyFile) {
    throw new InputError(
      `The policy in force is the file SWITCHBOARD_POLICY names (${config.policyFile}), so it is not changed here: edit that file and restart, or unset SWITCHBOARD_POLICY to keep the policy in the store.`,
      'SWITCHBOARD_POLICY',
    );
  }
}

/** Stores the policy in `file` once it is valid; says what changed, section by section. */
export async function setPolicy(config: Settings, file: string, audit?: AuditTrail): Promise<string> {
  refuseWhileFile(config);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`Cannot read "${file}" (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give the path of a policy file.`, 'file');
  }
  const policy = parsePolicy(text, file);
  return onStore(config, async (store) => {
    const previous = await store.policy.get();
    const before = previous ? parsePolicy(previous.text, 'the stored policy') : OPEN_POLICY;
    await store.policy.set(JSON.stringify(policy), 'cli', new Date().toISOString());
    const changes = policyChanges(before, policy);
    await audit?.record({ action: 'policy.changed', actor: CLI_ACTOR, target: changes.length ? changes.join('; ').slice(0, 200) : 'unchanged', outcome: 'ok' });
    return changes.length ? `Stored the policy. Changed: ${changes.join('; ')}. Running servers apply it within seconds.` : 'Stored the policy; it is the same as before.';
  });
}

/** Removes the stored policy: everything is allowed again. */
export async function clearPolicy(config: Settings, audit?: AuditTrail): Promise<string> {
  refuseWhileFile(config);
  return onStore(config, async (store) => {
    const cleared = await store.policy.clear();
    if (cleared) await audit?.record({ action: 'policy.changed', actor: CLI_ACTOR, target: 'cleared', outcome: 'ok' });
    return cleared ? 'Cleared the policy: no call needs approval, no budget, every tool. Running servers apply it within seconds.' : 'No policy was stored; nothing changed.';
  });
}

/** Each section that differs, with the names of the rules added and removed. */
export function policyChanges(before: Policy, after: Policy): string[] {
  const changes: string[] = [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (!same(before.teamDomains, after.teamDomains)) changes.push(`teamDomains ${JSON.stringify(before.teamDomains)} -> ${JSON.stringify(after.teamDomains)}`);
  if (!same(before.roles, after.roles)) changes.push(`roles ${Object.keys(after.roles).join(', ') || '(none)'}`);
  const names = (rules: Array<{ name: string }>) => new Set(rules.map((r) => r.name));
  const [was, now] = [names(before.approvals), names(after.approvals)];
  const added = [...now].filter((n) => !was.has(n));
  const removed = [...was].filter((n) => !now.has(n));
  const edited = after.approvals.filter((r) => was.has(r.name) && !same(r, before.approvals.find((b) => b.name === r.name))).map((r) => r.name);
  if (added.length) changes.push(`approvals added: ${added.join(', ')}`);
  if (removed.length) changes.push(`approvals removed: ${removed.join(', ')}`);
  if (edited.length) changes.push(`approvals changed: ${edited.join(', ')}`);
  for (const section of ['budgets', 'tools'] as const) {
    if (!same(before[section], after[section])) changes.push(`${section}: ${before[section].length} -> ${after[section].length} rule(s)`);
  }
  return changes;
}

export const formatPolicy = (shown: Awaited<ReturnType<typeof showPolicy>>) =>
  `Policy from ${shown.source}${shown.updatedAt ? `, stored ${shown.updatedAt} by ${shown.updatedBy}` : ''}:\n${JSON.stringify(shown.policy, null, 2)}`;

/** The approvals waiting for a decision (the operator decides every one). */
export const listApprovals = (config: Settings, audit?: AuditTrail) => onStore(config, (store) => approvalsFor(store, 'cli', audit));

export const decide = (config: Settings, id: string, approve: boolean, reason?: string, audit?: AuditTrail) =>
  onStore(config, (store) => decideApproval(store, audit, { person: 'cli', actor: CLI_ACTOR }, id, { approve, reason }));

export function formatApprovals(list: Approval[]): string {
  if (!list.length) return 'No approval is waiting.';
  return list
    .map((a) => `${a.id}  ${a.tool}  rule "${a.rule}"  for ${a.approver === 'admin' ? 'an admin' : 'the caller'}  by ${a.owner || 'the owner'}  expires ${a.expiresAt}\n    ${a.summary}`)
    .join('\n');
}
