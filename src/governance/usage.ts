import type { Policy } from '../policy.js';
import type { Account, Store, TeamUser, UsageMeter } from '../store/types.js';
import { PERSONAL_OWNER } from '../store/types.js';
import { limitsFor, METERS, windowStart } from './budgets.js';

/** One person's use of one account in the current window of one budget, beside the limit the policy sets. */
export interface UsageLine {
  owner: string;
  /** Their login in team mode; `owner` on a personal server, whose one person it is. */
  person: string;
  accountId: string;
  /** `github "work"`; the account's id when it has been removed since. */
  account: string;
  budget: (typeof METERS)[UsageMeter]['field'];
  used: number;
  /** Absent when no rule limits it any more (the policy changed during the window). */
  limit?: number;
  rule?: string;
  windowStart: string;
  resetsAt: string;
}

/** The usage of the current windows (this hour's requests, today's credits and emails, UTC), of one person or everyone. */
export async function budgetUsage(store: Store, policy: Policy | undefined, options: { owner?: string; now?: number } = {}): Promise<UsageLine[]> {
  const now = options.now ?? Date.now();
  const since = new Date(windowStart('salesCredits', now)).toISOString();
  const rows = (await store.budgets.list({ since, owner: options.owner })).filter((row) => Date.parse(row.windowStart) === windowStart(row.meter, now));
  if (!rows.length) return [];
  const accounts = new Map<string, Account>((await store.accounts.list()).map((a) => [a.id, a]));
  const users = new Map<string, TeamUser>((await store.team.users.list()).map((u) => [u.id, u]));
  const lines = rows.map((row): UsageLine => {
    const user = users.get(row.owner);
    const account = accounts.get(row.accountId);
    const person = row.owner === PERSONAL_OWNER ? { id: row.owner, role: 'admin' as const } : { id: row.owner, login: user?.login, email: user?.email, role: user?.role ?? ('member' as const) };
    const limit = policy && account ? limitsFor(policy, person, account)[row.meter] : undefined;
    const start = Date.parse(row.windowStart);
    return {
      owner: row.owner,
      person: user?.login ?? (row.owner === PERSONAL_OWNER ? 'owner' : row.owner),
      accountId: row.accountId,
      account: account ? `${account.provider} "${account.label}"` : row.accountId,
      budget: METERS[row.meter].field,
      used: row.used,
      ...(limit ? { limit: limit.limit, rule: limit.rule } : {}),
      windowStart: row.windowStart,
      resetsAt: new Date(start + METERS[row.meter].windowMs).toISOString(),
    };
  });
  return lines.sort((a, b) => a.person.localeCompare(b.person) || a.account.localeCompare(b.account) || a.budget.localeCompare(b.budget));
}

/** The usage as the CLI prints it: one line per person, account and budget. */
export function formatUsage(lines: UsageLine[], policy: Policy | undefined): string {
  const head = policy?.budgets.length ? '' : 'No budget is set (SWITCHBOARD_POLICY names no budgets): nothing is counted.\n';
  if (!lines.length) return `${head}No usage in the current windows (this hour's requests, today's credits and emails, UTC).`;
  const table = lines.map((l) => `${l.person}  ${l.account}  ${l.budget}: ${l.used}${l.limit === undefined ? '' : ` of ${l.limit} (${l.rule})`}, resets ${l.resetsAt}`);
  return head + table.join('\n');
}
