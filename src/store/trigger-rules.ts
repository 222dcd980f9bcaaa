import { InputError } from '../errors.js';
import type { CommitItem, TriggerEvent } from './types.js';

/** Keys a note may name: plain identifiers, so they are safe inside a JSON path. */
export function checkRefKey(key: string): void {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(key)) throw new Error(`providerRefs key "${key}" must be a plain identifier`);
}

/** Forwarding is retried for this long after an event was committed. */
export const FORWARD_WINDOW_MS = 24 * 60 * 60 * 1000;

/** What a trigger's row gains from a batch: the sum of its items, and the last error and state given, as commits one after another would leave it. */
export interface Counts {
  fired: number;
  skipped: number;
  failed: number;
  hasError: boolean;
  error: string | null;
  state: string | null;
}

/** Each running trigger's counts from a batch: its items, their states as JSON, and the events each added. */
export function countsByTrigger(items: CommitItem[], states: Array<string | null>, added: TriggerEvent[][], runs: (triggerId: string) => boolean): Map<string, Counts> {
  const counts = new Map<string, Counts>();
  items.forEach(({ triggerId, input }, i) => {
    if (!runs(triggerId)) return;
    let c = counts.get(triggerId);
    if (!c) counts.set(triggerId, (c = { fired: 0, skipped: 0, failed: 0, hasError: false, error: null, state: null }));
    c.fired += added[i]!.length;
    c.skipped += input.skipped ?? 0;
    if (input.error) c.failed++;
    if (input.error !== undefined) {
      c.hasError = true;
      c.error = input.error;
    }
    if (states[i] !== null) c.state = states[i]!;
  });
  return counts;
}

export const noAccount = (id: string) => new InputError(`No account ${id}; accounts_list shows the connected accounts.`, 'account');
