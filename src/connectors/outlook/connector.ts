import { defineConnector } from '../../tool.js';

export const outlook = defineConnector({
  id: 'outlook',
  title: 'Outlook',
  baseUrl: 'https://graph.microsoft.com/v1.0',
  auth: (secret) => ({ authorization: `Bearer ${secret.token ?? ''}` }),
  async identify(api) {
    const me = await api.get<{ mail?: string | null; userPrincipalName?: string; displayName?: string }>('/me');
    return { identity: me.mail ?? me.userPrincipalName ?? me.displayName ?? null };
  },
});
