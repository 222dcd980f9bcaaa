import * as z from 'zod/v4';
import { PROVIDERS } from '../store/types.js';
import { defineTool } from '../tool.js';

export const accountShape = z.object({
  id: z.string(),
  provider: z.enum(PROVIDERS),
  label: z.string(),
  identity: z.string().nullable(),
  is_default: z.boolean(),
  status: z.enum(['active', 'needs_reconnect']),
  groups: z.array(z.string()),
  last_used_at: z.string().nullable(),
});

export const accountsList = defineTool({
  name: 'accounts_list',
  title: 'List connected accounts',
  description:
    'List connected provider accounts with id, label, identity, default flag, status and permission groups; never secrets. ' +
    'Pass an id or label as "account" to any connector tool.',
  input: z
    .object({
      provider: z.enum(PROVIDERS).optional().describe('Only accounts of this provider'),
      group: z.string().optional().describe('Only accounts granted this permission group, e.g. team-collaboration'),
    })
    .strict(),
  output: z.object({ accounts: z.array(accountShape) }),
  effect: 'read',
  async run({ provider, group }, { deps }) {
    const accounts = await deps.store.accounts.list({ provider, group });
    return {
      accounts: accounts.map((a) => ({
        id: a.id,
        provider: a.provider,
        label: a.label,
        identity: a.identity,
        is_default: a.isDefault,
        status: a.status,
        groups: a.groups,
        last_used_at: a.lastUsedAt,
      })),
    };
  },
});
