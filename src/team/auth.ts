import type { AuditTrail } from '../contracts/governance.js';
import type { Dispatcher } from 'undici';
import type { ExternalIssuerConfig, OAuthProvider, OAuthSettings } from '../config.js';
import { InputError } from '../errors.js';
import type { Route } from '../http/incoming.js';
import type { Logger } from '../log.js';
import type { Redactor } from '../redact.js';
import { registeredApps } from '../providers.js';
import { SIGN_IN_PROVIDERS, type Provider, type SignInProvider, type Store } from '../store/types.js';
import type { TeamRule } from './allow.js';
import { discoverIssuer, externalVerifier, scopeNames } from './external.js';
import { issuerSignInRoutes } from './issuer-sign-in.js';
import { serverKeys } from './keys.js';
import { AUTH_PATHS, createAuthServer, serveAuth } from './provider.js';
import { tokenVerifier, type Verified } from './resource.js';
import { signInRoutes } from './sign-in.js';
import { personalTokenVerifier, withPersonalTokens } from './tokens.js';
import type { ReadinessCheck } from '../http/readiness.js';
import { builtInIssuerCheck, externalIssuerCheck } from './issuer-readiness.js';

export interface TeamAuthOptions {
  /** --public-url: an origin; the issuer, and `<public URL>/mcp` is the resource. */
  publicUrl: string;
  allow: TeamRule[];
  admins: TeamRule[];
  store: Store;
  oauth: Record<OAuthProvider, OAuthSettings>;
  baseUrls: Record<Provider, string>;
  dispatcher?: Dispatcher;
  redactor?: Redactor;
  logger: Logger;
  /** SWITCHBOARD_FORWARD_ALLOW_PRIVATE: client metadata documents may be fetched from private networks too. */
  allowPrivate: boolean;
  /** SWITCHBOARD_TEAM_ISSUER: people sign in at this issuer, which takes the built-in authorization server's place. */
  external?: ExternalIssuerConfig;
  /** Tests only: client metadata documents are served on loopback, over TLS with a certificate of this authority. */
  metadataCa?: string;
  /** The sandbox's stand-ins sign people in: its Microsoft vouches for its one sample person, not for any directory. */
  sandbox?: boolean;
  /** Told of the person whose client authorization (OAuth grant) was revoked: their MCP Events subscriptions end. */
  onGrantRevoked?: (owner: string) => Promise<unknown>;
  /** Where sign-ins and refused sign-ins are recorded. */
  audit?: AuditTrail;
}

/** What the HTTP listener needs of team mode: the routes it adds, and the check of each MCP request's token. */
export interface TeamAuth {
  /** The authorization server's issuer: the public URL's origin, or the external issuer. */
  issuer: string;
  /** The authorization server's endpoints, for the protected resource's metadata. */
  endpoints: { authorization: string; token: string };
  /** Switchboard's scopes as clients ask the authorization server for them: every tool, and read-only. */
  scopes: { full: string; read: string };
  /** The MCP endpoint's resource identifier, `<public URL>/mcp`. */
  resource: string;
  /** The authorization server's and the sign-in's routes. */
  routes: Route[];
  /** The caller a bearer token stands for, or why it cannot be used. */
  verify(token: string): Promise<Verified>;
  /** Readiness of the issuer: the built-in one's keys are loaded, an external one's keys can be read. */
  readiness(): Promise<ReadinessCheck>;
}

/** Team mode: the built-in authorization server (or an external issuer), its sign-in, and the MCP endpoint as its protected resource. */
export async function startTeamAuth(o: TeamAuthOptions): Promise<TeamAuth> {
  const issuer = new URL(o.publicUrl);
  const resource = new URL('/mcp', issuer).href;
  if (o.external) return externalAuth(o, o.external, resource);
  const providers = signInProviders(o.oauth);
  if (!o.sandbox && o.oauth.outlook.clientId && ['common', 'organizations'].includes(o.oauth.outlook.tenant ?? '') && o.allow.concat(o.admins).some((r) => r.kind !== 'github-org')) {
    o.logger.warn(
      'team sign-in with Microsoft accepts any organization\'s directory, and each vouches for its own addresses: set SWITCHBOARD_OUTLOOK_TENANT to your tenant so that address rules match only your people',
    );
  }
  const provider = createAuthServer({
    issuer: issuer.origin,
    resource,
    store: o.store,
    keys: await serverKeys(o.store.team.keys),
    metadataFetch: { allowPrivate: o.allowPrivate, loopbackCa: o.metadataCa },
    logger: o.logger,
    onGrantRevoked: o.onGrantRevoked,
  });
  const serve = serveAuth(provider, issuer);
  const authServer = (method: string, path: string, rewrite?: string): Route => ({ method, path, public: true, handle: (req, res) => serve(req, res, rewrite) });
  const routes: Route[] = [
    // RFC 8414's document is the OpenID one (a superset), under the name MCP clients look for first.
    authServer('GET', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'),
    authServer('GET', '/.well-known/openid-configuration'),
    // The sign-in's own routes come before the authorization server's, which takes the rest of /auth/.
    ...signInRoutes({ provider, issuer, resource, store: o.store, oauth: o.oauth, baseUrls: o.baseUrls, dispatcher: o.dispatcher, redactor: o.redactor, logger: o.logger, allow: o.allow, admins: o.admins, providers, audit: o.audit }),
    ...['GET', 'POST', 'OPTIONS'].map((method) => authServer(method, '/auth/')),
  ];
  o.logger.info('team mode', { issuer: issuer.origin, resource, signIn: providers.join(','), authorization: new URL(AUTH_PATHS.authorization, issuer).href });
  return {
    issuer: issuer.origin,
    endpoints: { authorization: new URL(AUTH_PATHS.authorization, issuer).href, token: new URL(AUTH_PATHS.token, issuer).href },
    scopes: scopeNames(),
    resource,
    routes,
    verify: withPersonalTokens(personalTokens(o, resource), tokenVerifier({ provider, users: o.store.team.users })),
    readiness: builtInIssuerCheck,
  };
}

/**
 * Team mode with an external OpenID Connect issuer: no authorization server here, only its tokens checked; with
 * Switchboard's own client there (SWITCHBOARD_TEAM_CLIENT_ID), people sign in to the Integrations page at it too.
 */
async function externalAuth(o: TeamAuthOptions, settings: ExternalIssuerConfig, resource: string): Promise<TeamAuth> {
  const metadata = await discoverIssuer(settings.issuer);
  const audience = settings.audience ?? resource;
  o.logger.info('team mode', { issuer: metadata.issuer, resource, audience, authorization: metadata.authorization_endpoint, pageSignIn: settings.clientId ? 'oidc' : 'none' });
  if (!metadata.code_challenge_methods_supported?.includes('S256')) {
    o.logger.warn('the issuer does not advertise PKCE (code_challenge_methods_supported S256): MCP clients that follow the specification may refuse to sign in there', { issuer: metadata.issuer });
  }
  return {
    issuer: metadata.issuer,
    endpoints: { authorization: metadata.authorization_endpoint, token: metadata.token_endpoint },
    scopes: scopeNames(settings.scopePrefix),
    resource,
    routes: settings.clientId
      ? issuerSignInRoutes({ metadata, clientId: settings.clientId, clientSecret: settings.clientSecret, publicUrl: new URL(o.publicUrl), store: o.store, allow: o.allow, admins: o.admins, redactor: o.redactor, logger: o.logger, audit: o.audit })
      : [],
    verify: withPersonalTokens(
      personalTokens(o, resource),
      externalVerifier({ metadata, settings, resource, users: o.store.team.users, allow: o.allow, admins: o.admins, logger: o.logger }),
    ),
    readiness: externalIssuerCheck(metadata.jwks_uri),
  };
}

/** Personal access tokens (switchboard tokens create) work whichever authorization server signs people in. */
function personalTokens(o: TeamAuthOptions, resource: string) {
  return personalTokenVerifier({ tokens: o.store.team.tokens, users: o.store.team.users, resource });
}

/** The identity providers whose app registration is configured; refuses team mode when there is none. */
function signInProviders(oauth: Record<OAuthProvider, OAuthSettings>): SignInProvider[] {
  // GitHub's web sign-in exchanges its code with the app's client secret.
  const providers = registeredApps(SIGN_IN_PROVIDERS, oauth);
  if (providers.length === 0) {
    throw new InputError(
      'Team mode signs people in with GitHub or Microsoft: set SWITCHBOARD_GITHUB_CLIENT_ID and SWITCHBOARD_GITHUB_CLIENT_SECRET, ' +
        'or SWITCHBOARD_OUTLOOK_CLIENT_ID (the README\'s "Registering the apps" shows how).',
      'SWITCHBOARD_GITHUB_CLIENT_ID',
    );
  }
  return providers;
}
