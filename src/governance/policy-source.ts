import { fixedPolicy, OPEN_POLICY, parsePolicy, readPolicyFile, type Policy, type PolicySource } from '../policy.js';
import type { Store } from '../store/types.js';

/** How often a serving process reads the stored policy again: a change reaches every instance within this. */
export const POLICY_REFRESH_MS = 3_000;

/**
 * The policy kept in the store, read again at most every `refreshMs`: a tool call pays a store read only when the copy
 * is older, and concurrent calls share that read.
 */
export function storedPolicy(store: Store, options: { refreshMs?: number; now?: () => number } = {}): PolicySource {
  const refreshMs = options.refreshMs ?? POLICY_REFRESH_MS;
  const now = options.now ?? Date.now;
  let held: { policy: Policy; at: number } | undefined;
  let reading: Promise<Policy> | undefined;
  const read = async () => {
    const stored = await store.policy.get();
    const policy = stored ? parsePolicy(stored.text, 'the stored policy') : OPEN_POLICY;
    held = { policy, at: now() };
    return policy;
  };
  return {
    current() {
      if (held && now() - held.at < refreshMs) return Promise.resolve(held.policy);
      return (reading ??= read().finally(() => (reading = undefined)));
    },
  };
}

/** The policy in force: SWITCHBOARD_POLICY's file when set (read once, at start), else the store's. */
export function policySource(store: Store, policyFile: string | undefined): PolicySource {
  return policyFile ? fixedPolicy(readPolicyFile(policyFile)) : storedPolicy(store);
}
