import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import Provider, { errors, interactionPolicy } from './oidc.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import { storeAdapter } from './adapter.js';
import { metadataFetch, type MetadataFetchPolicy } from './fetch.js';
import type { ServerKeys } from './keys.js';
import { errorPage } from './pages.js';
import { TEAM_SCOPES } from './scopes.js';

/** Where the authorization server answers, under the public URL. */
export const AUTH_PATHS = {
  authorization: '/auth/authorize',
  token: '/auth/token',
  registration: '/auth/register',
  revocation: '/auth/revoke',
  jwks: '/auth/jwks',
  interaction: '/auth/interaction/',
} as const;

export const ACCESS_TOKEN_SECONDS = 60 * 60;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 60 * 60;

export interface AuthServerOptions {
  /** The public URL's origin: the issuer, and the origin of every endpoint. */
  issuer: string;
  /** The one resource tokens are issued for: `<public URL>/mcp`. */
  resource: string;
  store: Store;
  keys: ServerKeys;
  metadataFetch: MetadataFetchPolicy;
  logger: Logger;
  /** Told of the person whose grant was revoked (a token revoked at the revocation endpoint revokes its grant). */
  onGrantRevoked?: (owner: string) => Promise<unknown>;
}

/**
 * The built-in OAuth 2.1 authorization server (oidc-provider): authorization code with PKCE (S256) only; clients
 * register dynamically (RFC 7591) or are named by the https URL of their metadata document; every access token is
 * opaque, for `<public URL>/mcp` only (RFC 8707), and looked up in the store on each use, so revoking it, its grant,
 * or disabling its person takes effect at once; refresh tokens rotate on every use.
 */
export function createAuthServer(o: AuthServerOptions): Provider {
  const configuration: Configuration = {
    adapter: storeAdapter(o.store.team.records, o.onGrantRevoked),
    jwks: o.keys.jwks as Configuration['jwks'],
    cookies: { keys: o.keys.cookieKeys, names: { session: 'sb_session', interaction: 'sb_interaction', resume: 'sb_resume' } },
    async findAccount(_ctx, id) {
      const user = await o.store.team.users.get(id);
      if (!user || user.disabled) return undefined;
      return { accountId: user.id, claims: async () => ({ sub: user.id }) };
    },
    interactions: { policy: signInPolicy(), url: async (_ctx, interaction) => `${AUTH_PATHS.interaction}${interaction.uid}` },
    routes: {
      authorization: AUTH_PATHS.authorization,
      token: AUTH_PATHS.token,
      registration: AUTH_PATHS.registration,
      revocation: AUTH_PATHS.revocation,
      jwks: AUTH_PATHS.jwks,
      end_session: '/auth/end-session',
      userinfo: '/auth/userinfo',
      introspection: '/auth/introspect',
      device_authorization: '/auth/device',
      code_verification: '/auth/device/verify',
      pushed_authorization_request: '/auth/par',
      backchannel_authentication: '/auth/backchannel',
      challenge: '/auth/challenge',
    },
    responseTypes: ['code'],
    pkce: { required: () => true },
    scopes: ['openid', 'offline_access', ...TEAM_SCOPES],
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      revocation: { enabled: true },
      // Tokens are bearer tokens from the Authorization header only (the MCP authorization spec).
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' } as never,
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => o.resource,
        useGrantedResource: async () => true,
        async getResourceServerInfo(_ctx, indicator) {
          if (indicator !== o.resource) throw new errors.InvalidTarget(`this server issues tokens for ${o.resource} only`);
          return { scope: TEAM_SCOPES.join(' '), accessTokenFormat: 'opaque', accessTokenTTL: ACCESS_TOKEN_SECONDS };
        },
      },
    },
    fetch: metadataFetch(o.metadataFetch) as never,
    // Every client that may refresh gets a refresh token (MCP clients seldom ask for offline_access), rotated on each use.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: ACCESS_TOKEN_SECONDS,
      AuthorizationCode: 60,
      ClientCredentials: 600,
      DeviceCode: 600,
      BackchannelAuthenticationRequest: 600,
      IdToken: 3600,
      Interaction: 15 * 60,
      RefreshToken: REFRESH_TOKEN_SECONDS,
      Session: 24 * 60 * 60,
      Grant: REFRESH_TOKEN_SECONDS,
    },
    clientBasedCORS: () => false,
    async renderError(ctx: KoaContextWithOIDC, out: { error?: string; error_description?: string }) {
      const page = errorPage('Sign-in failed', `${String(out.error_description ?? out.error ?? 'The request could not be completed')}. Start again from the application.`);
      ctx.type = 'html';
      ctx.body = page.body;
    },
  };
  const provider = new Provider(o.issuer, configuration);
  // The listener puts the public URL's host and scheme on every request it hands over (see `serve`).
  provider.proxy = true;
  provider.on('server_error', (_ctx: unknown, error: Error) => o.logger.error('authorization server error', { message: error.message }));
  return provider;
}

/** oidc-provider's prompts, with one more reason to sign in: the session's person was disabled or removed since. */
function signInPolicy() {
  const policy = interactionPolicy.base();
  const gone = (ctx: KoaContextWithOIDC) => !!ctx.oidc.session?.accountId && !ctx.oidc.account;
  policy.get('login')!.checks.add(new interactionPolicy.Check('account_unavailable', 'the signed-in person may no longer sign in', 'login_required', gone));
  return policy;
}

/** Hands a request to the authorization server as if it had come to the public URL (host and scheme), whatever proxies are in between. */
export function serveAuth(provider: Provider, issuer: URL) {
  const callback = provider.callback();
  return (req: IncomingMessage, res: ServerResponse, path?: string) => {
    req.headers['x-forwarded-host'] = issuer.host;
    req.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
    if (path) req.url = path;
    return callback(req, res);
  };
}
