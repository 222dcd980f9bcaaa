import type { Dispatcher } from 'undici';
import { github } from '../connectors/github/connector.js';
import { outlook } from '../connectors/outlook/connector.js';
import type { Account, Provider, SignInProvider } from '../store/types.js';
import type { SignedInIdentity } from './allow.js';

const SIGN_IN_CONNECTORS = { github, outlook };

/**
 * Who signed in, asked of the provider with the token its sign-in granted (used for this and then forgotten), through
 * the same API clients the connectors use.
 */
export async function identityOf(
  provider: SignInProvider,
  token: string,
  deps: { baseUrls: Record<Provider, string>; dispatcher?: Dispatcher },
): Promise<SignedInIdentity> {
  const connector = SIGN_IN_CONNECTORS[provider];
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
  if (!connector.whoSignedIn) throw new Error(`${provider} does not sign people in`);
  return { provider, ...(await connector.whoSignedIn(api)) };
}
