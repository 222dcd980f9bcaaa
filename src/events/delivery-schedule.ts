/**
 * When a failed MCP event delivery is tried again: five attempts at most, the waits growing from 10 s to 8 min with
 * ±20% jitter, so the last attempt starts within 14.6 minutes of the first and the whole fits the 15-minute budget
 * (the SEP asks for 3 to 5 attempts over at most 10 to 15 minutes).
 */
export const RETRY_DELAYS_MS = [10_000, 60_000, 180_000, 480_000] as const;
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const RETRY_JITTER = 0.2;
export const DELIVERY_BUDGET_MS = 15 * 60_000;

/** When to try again after `attempts` attempts (the failed one included) have been made, or null to give up. */
export function nextAttemptAt(attempts: number, now: number, random: () => number = Math.random): number | null {
  if (!Number.isInteger(attempts) || attempts < 1) throw new RangeError(`attempts must be a whole number from 1, not ${attempts}`);
  const delay = RETRY_DELAYS_MS[attempts - 1];
  if (delay === undefined) return null;
  return now + Math.round(delay * (1 - RETRY_JITTER + 2 * RETRY_JITTER * random()));
}
