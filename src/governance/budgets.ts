import { BudgetError } from '../errors.js';
import { appliesTo, type BudgetRule, type Policy, type PolicyPerson } from '../policy.js';
import type { BudgetGate, CallBudget } from '../contracts/governance.js';
import type { Account, BudgetUsageStore, UsageMeter } from '../store/types.js';
import { personOf } from './person.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Each meter: the rule's field that limits it, and its fixed window (the clock hour, the UTC day). */
export const METERS: Record<UsageMeter, { field: 'providerRequestsPerHour' | 'salesCreditsPerDay' | 'emailsPerDay'; windowMs: number }> = {
  providerRequests: { field: 'providerRequestsPerHour', windowMs: HOUR },
  salesCredits: { field: 'salesCreditsPerDay', windowMs: DAY },
  emails: { field: 'emailsPerDay', windowMs: DAY },
};

/** The start of the window `now` falls in: hours and days begin on the UTC clock. */
export const windowStart = (meter: UsageMeter, now: number) => now - (now % METERS[meter].windowMs);

/** Whether a rule's `accounts` (ids, labels or provider ids) names this account; a rule without it names every account. */
export function namesAccount(rule: Pick<BudgetRule, 'accounts'>, account: Pick<Account, 'id' | 'label' | 'provider'>): boolean {
  if (!rule.accounts) return true;
  return rule.accounts.some((entry) => entry === account.id || entry === account.provider || entry.toLowerCase() === account.label.toLowerCase());
}

export interface Limit {
  limit: number;
  /** Where the limit comes from, as the policy numbers its rules: `budgets.2`. */
  rule: string;
}

/** The smallest limit of each meter among the rules that apply to this person and account. */
export function limitsFor(policy: Policy, person: PolicyPerson, account: Pick<Account, 'id' | 'label' | 'provider'>): Partial<Record<UsageMeter, Limit>> {
  const limits: Partial<Record<UsageMeter, Limit>> = {};
  policy.budgets.forEach((rule, index) => {
    if (!namesAccount(rule, account) || !appliesTo(rule.for, person, policy)) return;
    for (const [meter, { field }] of Object.entries(METERS) as Array<[UsageMeter, (typeof METERS)[UsageMeter]]>) {
      const limit = rule[field];
      const current = limits[meter];
      if (limit !== undefined && (!current || limit < current.limit)) limits[meter] = { limit, rule: `budgets.${index}` };
    }
  });
  return limits;
}

/** The budgets of the policy in force, counted in `usage`; `clock` is the time windows are cut on (tests pass their own). */
export function budgetGate(usage: () => BudgetUsageStore, clock: () => number = Date.now): BudgetGate {
  return {
    now: clock,
    async forCall(deps, account, sendsEmail) {
      // No budget rule, no counter: a server without budgets pays nothing for them.
      const policy = await deps.policy?.current();
      if (!policy?.budgets.length) return undefined;
      const person = await personOf(deps.store, deps.owner);
      const limits = limitsFor(policy, person, account);
      if (!Object.keys(limits).length) return undefined;
      const where = { account: `the ${account.provider} account "${account.label}"` };
      const key = (meter: UsageMeter) => ({ owner: person.id, accountId: account.id, meter, windowStart: new Date(windowStart(meter, clock())).toISOString() });
      const take = async (meter: UsageMeter, amount: number) => {
        const limit = limits[meter];
        if (!limit) return;
        const at = key(meter);
        const { taken, used } = await usage().take(at, amount, limit.limit);
        if (!taken) throw new BudgetError(METERS[meter].field, used, limit.limit, new Date(Date.parse(at.windowStart) + METERS[meter].windowMs), { ...where, rule: limit.rule }, clock());
      };
      const budget: CallBudget = {
        async beforeRequest({ method, path, attempt }) {
          // An email is counted once, however often its request is tried.
          if (attempt === 1 && sendsEmail?.(method, path)) await take('emails', 1);
          try {
            await take('providerRequests', 1);
          } catch (error) {
            if (attempt === 1 && sendsEmail?.(method, path) && limits.emails) await usage().add(key('emails'), -1);
            throw error;
          }
        },
        reserveCredits: (amount) => take('salesCredits', amount),
        async settleCredits(delta) {
          if (limits.salesCredits && delta !== 0) await usage().add(key('salesCredits'), delta);
        },
      };
      return budget;
    },
  };
}
