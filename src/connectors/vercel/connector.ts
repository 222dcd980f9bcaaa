import { PROVIDER_RECORDS } from '../../providers.js';
import { defineConnector } from '../../tool.js';
import { rateLimitExtras } from '../rate-limit.js';
import { checkTeam } from './teams.js';

export const vercel = defineConnector({
  id: 'vercel',
  title: PROVIDER_RECORDS.vercel.toolTitle,
  baseUrl: PROVIDER_RECORDS.vercel.baseUrl,
  auth: (secret) => ({ authorization: `Bearer ${secret.token ?? ''}` }),
  resultExtras: rateLimitExtras,
  // Team-owned resources are only visible with teamId on every call.
  defaultQuery: (account) => (account.meta.teamId ? { teamId: account.meta.teamId } : undefined),
  async identify(api, { team }) {
    const { user } = await api.get<{ user?: { username?: string; email?: string } }>('/v2/user');
    const identity = user?.username ?? user?.email ?? null;
    return team === undefined ? { identity } : { identity, meta: await checkTeam(api, team) };
  },
});
