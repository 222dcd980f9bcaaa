import * as z from 'zod/v4';
import { accountTeam } from '../connectors/vercel/teams.js';
import { PROVIDERS, type Account } from '../store/types.js';
import { defineTool } from '../tool.js';

export const accountShape = z.object({
  id: z.string(),
  provider: z.enum(PROVIDERS),
  label: z.string(),
  identity: z.string().nullable(),
  is_default: z.boolean(),
  status: z.enum(['active', 'needs_reconnect']),
  groups: z.array(z.string()),
  team: z.object({ id: z.string(), slug: z.string().nullable(), name: z.string().nullable() }).nullable(),
  last_used_at: z.string().nullable(),
});

export const accountsList = defineTool({
  name: 'accounts_list',
  title: 'List connected accounts',
  description:
    'List connected accounts, never their secrets. ' +
    'Pass an id or label as "account" to connector tools.',
  input: z
    .object({
      provider: z.enum(PROVIDERS).optional().describe('Only this provider'),
      group: z.string().optional().describe('Only accounts with this permission group, e.g. mail'),
    })
    .strict(),
  output: z.object({ accounts: z.array(accountShape) }),
  effect: 'read',
  async run({ provider, group }, { deps }) {
    return { accounts: (await deps.store.accounts.list({ provider, group })).map(describeAccount) };
  },
});

/** An account as every surface shows it (accounts_list, switchboard://accounts, accounts list --json): snake_case, no secret. */
export function describeAccount(a: Account): z.output<typeof accountShape> {
  return {
    id: a.id,
    provider: a.provider,
    label: a.label,
    identity: a.identity,
    is_default: a.isDefault,
    status: a.status,
    groups: a.groups,
    team: accountTeam(a),
    last_used_at: a.lastUsedAt,
  };
}
