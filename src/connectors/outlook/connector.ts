import { PROVIDER_RECORDS } from '../../providers.js';
import { defineConnector } from '../../tool.js';

export const outlook = defineConnector({
  id: 'outlook',
  title: PROVIDER_RECORDS.outlook.toolTitle,
  baseUrl: PROVIDER_RECORDS.outlook.baseUrl,
  auth: (secret) => ({ authorization: `Bearer ${secret.token ?? ''}` }),
  // sendMail, a draft's send, reply, replyAll and forward: each sends one message (createReply only drafts one).
  sendsEmail: (method, path) => method === 'POST' && /\/(sendMail|send|reply|replyAll|forward)$/i.test(path),
  async identify(api) {
    const me = await api.get<{ mail?: string | null; userPrincipalName?: string; displayName?: string }>('/me');
    return { identity: me.mail ?? me.userPrincipalName ?? me.displayName ?? null };
  },
  async whoSignedIn(api) {
    const me = await api.get<{ id: string; userPrincipalName?: string; mail?: string | null }>('/me');
    const login = me.userPrincipalName ?? me.mail ?? me.id;
    const emails = [...new Set([me.mail, me.userPrincipalName].filter((e): e is string => !!e && e.includes('@')).map((e) => e.toLowerCase()))];
    return { subject: me.id, login, emails };
  },
});
