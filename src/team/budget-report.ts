import type { Config } from '../config.js';
import { policySource } from '../governance/policy-source.js';
import { findUser, withStore } from './commands.js';
import { budgetUsage, formatUsage } from '../governance/usage.js';

/** What `switchboard budgets` prints: the usage of every person, or of one. */
export async function budgetsReport(config: Config, options: { user?: string; json: boolean }): Promise<string> {
  return withStore(config, async (store) => {
    const policy = await policySource(store, config.policyFile).current();
    const owner = options.user === undefined ? undefined : (await findUser(store, options.user, { option: '--user' })).id;
    const lines = await budgetUsage(store, policy, { owner });
    return options.json ? JSON.stringify(lines, null, 2) : formatUsage(lines, policy);
  });
}
