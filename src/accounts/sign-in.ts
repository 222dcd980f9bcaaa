import * as oauth from 'oauth4webapi';
import type { SignInApi } from '../contracts/accounts.js';
import { InputError } from '../errors.js';
import { oauthRecord, providerRecord } from '../providers.js';
import { PERSONAL_OWNER } from '../store/index.js';
import type { Account } from '../store/types.js';
import { accountGroups, connectAccount, type ConnectDeps } from './commands.js';
import { OAuthServer, requestedScopes, requireOAuthProvider, secretFromTokens, type GrantedTokens, type OAuthProvider, type OAuthSettings } from './oauth.js';

const STATE_TTL_MS = 10 * 60_000;
const MAX_PENDING = 200;

export interface SignInDeps extends ConnectDeps {
  oauth: Record<OAuthProvider, OAuthSettings>;
  now?: () => number;
}

/**
 * The pop-up (and loopback) sign-in. A started sign-in waits in the store under its state, with its PKCE verifier,
 * for 10 minutes and once: the provider's redirect may reach any instance on the store, and only one finishes it.
 */
export function createSignIn(deps: SignInDeps): SignInApi {
  const now = deps.now ?? Date.now;
  return {
    async beginSignIn(provider, options) {
      const p = requireOAuthProvider(provider);
      const server = new OAuthServer(p, deps.oauth[p], deps.redactor);
      const redirectUri = checkRedirectUri(options.redirectUri);
      const explicitGroups = !!options.groups?.length;
      const groups = accountGroups(p, options.groups);
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = server.authorizationUrl({ redirectUri, scopes: requestedScopes(p, groups), state, codeChallenge: await oauth.calculatePKCECodeChallenge(verifier) });
      const started = { provider: p, verifier, redirectUri, groups, explicitGroups, label: options.label?.trim() || undefined, owner: options.owner ?? PERSONAL_OWNER };
      // Expiry is on the store's clock, unless a clock is given (tests).
      const kept = await deps.store.signIns.put(state, started, { ttlMs: STATE_TTL_MS, max: MAX_PENDING, now: deps.now?.() });
      if (!kept) throw new InputError('Too many sign-ins are waiting to finish; finish or close one and try again in a few minutes.');
      return { url, state };
    },

    async completeSignIn(provider, options) {
      // Single use: whatever happens next, this state cannot be replayed.
      const started = await deps.store.signIns.take(options.state, deps.now?.());
      if (!started || started.provider !== provider) {
        throw new InputError('This sign-in is unknown, was already used, or is older than 10 minutes: start it again.', 'state');
      }
      if (options.redirectUri !== started.redirectUri) {
        throw new InputError('The sign-in came back to another address than it started from: start it again.', 'redirect_uri');
      }
      if (!options.code) throw new InputError('The provider sent no authorization code: start the sign-in again.', 'code');
      const p = requireOAuthProvider(started.provider);
      const server = new OAuthServer(p, deps.oauth[p], deps.redactor);
      const tokens = await server.exchangeCode({ code: options.code, state: options.state, redirectUri: started.redirectUri, codeVerifier: started.verifier });
      // The account is the owner's who started the sign-in, whoever's browser finishes it.
      return storeSignIn({ ...deps, store: deps.store.ownedBy(started.owner ?? PERSONAL_OWNER) }, p, tokens, {
        signIn: 'browser',
        groups: started.explicitGroups ? started.groups : undefined,
        label: started.label,
        requested: requestedScopes(p, started.groups),
        now: now(),
        tenant: deps.oauth[p].tenant,
      });
    },
  };
}

/** Stores what a sign-in granted: asks the provider who it is, then adds the account or reconnects the one it renews. */
export async function storeSignIn(
  deps: ConnectDeps,
  provider: OAuthProvider,
  tokens: GrantedTokens,
  o: { signIn: 'device' | 'browser'; groups?: string[]; label?: string; requested: string[]; now: number; tenant?: string },
): Promise<Account> {
  // A Vercel integration installed for a team names it; connectAccount checks it like --team.
  const teamId = providerRecord(provider).accountOptions.includes('team') && typeof tokens.extra.team_id === 'string' ? tokens.extra.team_id : undefined;
  return connectAccount(deps, {
    provider,
    secret: secretFromTokens(tokens, o.now),
    label: o.label,
    groups: o.groups,
    teamId,
    scopes: oauthRecord(provider).keepRequestedScopes ? o.requested : tokens.scopes?.length ? tokens.scopes : o.requested,
    meta: { signIn: o.signIn, ...(o.tenant ? { tenant: o.tenant } : {}) },
    reconnect: true,
  });
}

function checkRedirectUri(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InputError(`The redirect URI must be an absolute http(s) URL, not "${value}".`, 'redirectUri');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash || url.username || url.password) {
    throw new InputError(`The redirect URI must be an http(s) URL without a fragment or credentials, not "${value}".`, 'redirectUri');
  }
  return value;
}
