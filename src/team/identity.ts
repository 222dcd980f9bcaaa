import type { Dispatcher } from 'undici';
import { github } from '../connectors/github/connector.js';
import { outlook } from '../connectors/outlook/connector.js';
import { ProviderError } from '../errors.js';
import type { Account, Provider, SignInProvider } from '../store/types.js';
import type { SignedInIdentity } from './allow.js';

/**
 * Who signed in, asked of the provider with the token its sign-in granted (used for this and then forgotten), through
 * the same API clients the connectors use.
 */
export async function identityOf(
  provider: SignInProvider,
  token: string,
  deps: { baseUrls: Record<Provider, string>; dispatcher?: Dispatcher },
): Promise<SignedInIdentity> {
  const connector = provider === 'github' ? github : outlook;
  const draft: Account = {
    id: 'sign-in',
    provider,
    label: 'sign-in',
    identity: null,
    isDefault: false,
    status: 'active',
    groups: [],
    scopes: [],
    meta: {},
    baseUrl: null,
    createdAt: new Date().toISOString(),
    lastUsedAt: null,
  };
  const api = connector.api(draft, { kind: 'token', token }, { baseUrls: deps.baseUrls, dispatcher: deps.dispatcher });
  if (provider === 'outlook') {
    const me = await api.get<{ id: string; userPrincipalName?: string; mail?: string | null }>('/me');
    const login = me.userPrincipalName ?? me.mail ?? me.id;
    const emails = [...new Set([me.mail, me.userPrincipalName].filter((e): e is string => !!e && e.includes('@')).map((e) => e.toLowerCase()))];
    return { provider, subject: me.id, login, emails };
  }
  const user = await api.get<{ id: number; login: string }>('/user');
  const listed = await api.get<Array<{ email: string; verified: boolean; primary: boolean }>>('/user/emails');
  const emails = listed
    .filter((e) => e.verified)
    .sort((a, b) => Number(b.primary) - Number(a.primary))
    .map((e) => e.email.toLowerCase());
  return {
    provider,
    subject: String(user.id),
    login: user.login,
    emails,
    async memberOf(org) {
      try {
        const membership = await api.get<{ state?: string }>(`/user/memberships/orgs/${encodeURIComponent(org)}`);
        return membership.state === 'active';
      } catch (error) {
        // GitHub answers 404 to a person who is not a member (or whose membership the app may not see).
        if (error instanceof ProviderError && (error.status === 404 || error.status === 403)) return false;
        throw error;
      }
    },
  };
}
