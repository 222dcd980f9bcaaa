/** What a budget counts: provider requests (per hour), sales credits and emails sent (per UTC day). */
export type UsageMeter = 'providerRequests' | 'salesCredits' | 'emails';

/** One person's use of one account, for one meter, in one fixed window (its start as an ISO time). */
export interface UsageKey {
  owner: string;
  accountId: string;
  meter: UsageMeter;
  windowStart: string;
}

export interface UsageRow extends UsageKey {
  used: number;
  updatedAt: string;
}

/**
 * The budgets' counters, shared by every instance on the store. `take` is one statement that adds only while the
 * total stays within the limit, so two instances cannot both pass the last unit.
 */
export interface BudgetUsageStore {
  /** Adds `amount` when `used + amount <= limit`; answers whether it did and the count after. */
  take(key: UsageKey, amount: number, limit: number): Promise<{ taken: boolean; used: number }>;
  /** Adds `amount` (negative to give back what a failed call reserved) without a limit; the count never drops below 0. */
  add(key: UsageKey, amount: number): Promise<void>;
  /** The counters of windows starting at or after `since`, of one owner or of everyone. */
  list(filter: { since: string; owner?: string }): Promise<UsageRow[]>;
  /** Removes counters of windows that started before `before`; answers how many. */
  prune(before: string): Promise<number>;
}
