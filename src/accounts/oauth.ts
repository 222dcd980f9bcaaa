import * as oauth from 'oauth4webapi';
import { OAUTH_PROVIDERS, type OAuthProvider, type OAuthSettings } from '../config.js';
import { oauthRecord, PROVIDER_RECORDS, providerRecord } from '../providers.js';
import { AccountError, InputError, ProviderError } from '../errors.js';
import type { Redactor } from '../redact.js';
import type { AccountSecret, Provider } from '../store/types.js';

/**
 * The OAuth 2 client side, on oauth4webapi: each provider's endpoints and scopes, and the token-endpoint
 * grants (device code, authorization code + PKCE, refresh), with provider quirks smoothed over here.
 */

export type { OAuthProvider, OAuthSettings } from '../config.js';

export function isOAuthProvider(provider: string): provider is OAuthProvider {
  return (OAUTH_PROVIDERS as readonly string[]).includes(provider);
}

export function requireOAuthProvider(provider: Provider): OAuthProvider {
  if (!isOAuthProvider(provider)) {
    throw new InputError(`${provider} accounts take an API key, not a sign-in: switchboard accounts add ${provider} --api-key-stdin.`, 'provider');
  }
  return provider;
}

export const DEVICE_PROVIDERS: readonly OAuthProvider[] = OAUTH_PROVIDERS.filter((p) => oauthRecord(p).paths.device);

/** The scopes to request: those of the permission groups chosen, then those every sign-in asks for. */
export function requestedScopes(provider: OAuthProvider, groups: string[]): string[] {
  const byGroup = providerRecord(provider).permissionGroups?.scopes;
  const scopes = byGroup ? groups.flatMap((g) => [...(Object.hasOwn(byGroup, g) ? byGroup[g]! : [])]) : [];
  return [...new Set([...scopes, ...oauthRecord(provider).scopes])];
}

export interface OAuthEndpoints {
  authorization?: string;
  token: string;
  device?: string;
}

export function endpointsOf(provider: OAuthProvider, s: OAuthSettings): OAuthEndpoints {
  const { paths } = oauthRecord(provider);
  return {
    authorization: paths.authorization ? `${s.url}${paths.authorization}` : s.authorizeUrl,
    token: `${s.url}${paths.token}`,
    ...(paths.device ? { device: `${s.url}${paths.device}` } : {}),
  };
}

const ENV = (provider: OAuthProvider) => PROVIDER_RECORDS[provider].envPrefix;
const TITLE = (provider: OAuthProvider) => oauthRecord(provider).title;

export interface GrantedTokens {
  accessToken: string;
  refreshToken?: string;
  expiresIn?: number;
  scopes?: string[];
  /** Provider extras (Vercel: team_id, installation_id). */
  extra: Record<string, unknown>;
}

/** One provider's authorization server as this app's client sees it. */
export class OAuthServer {
  readonly endpoints: OAuthEndpoints;
  private readonly as: oauth.AuthorizationServer;
  private readonly client: oauth.Client;

  constructor(
    readonly provider: OAuthProvider,
    private readonly settings: OAuthSettings,
    private readonly redactor?: Redactor,
  ) {
    if (!settings.clientId) {
      throw new InputError(
        `Set ${ENV(provider)}_CLIENT_ID to your ${TITLE(provider)} app's client id to sign in (the README's "Registering the apps" shows how), ` +
          `or connect with a token: switchboard accounts add ${provider} --token-stdin.`,
        `${ENV(provider)}_CLIENT_ID`,
      );
    }
    redactor?.add(settings.clientSecret);
    this.endpoints = endpointsOf(provider, settings);
    this.as = {
      issuer: settings.url,
      authorization_endpoint: this.endpoints.authorization,
      token_endpoint: this.endpoints.token,
      device_authorization_endpoint: this.endpoints.device,
    };
    this.client = { client_id: settings.clientId };
  }

  get clientId(): string {
    return this.client.client_id;
  }

  /** The authorization URL for the code flow with PKCE. */
  authorizationUrl(p: { redirectUri: string; scopes: string[]; state: string; codeChallenge: string }): string {
    if (!this.endpoints.authorization) {
      throw new InputError(
        'Set SWITCHBOARD_VERCEL_INTEGRATION_SLUG to your Vercel integration\'s slug (its install page is where you sign in), ' +
          'or connect with a token: switchboard accounts add vercel --token-stdin.',
        'SWITCHBOARD_VERCEL_INTEGRATION_SLUG',
      );
    }
    const url = new URL(this.endpoints.authorization);
    url.searchParams.set('client_id', this.client.client_id);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('redirect_uri', p.redirectUri);
    if (p.scopes.length) url.searchParams.set('scope', p.scopes.join(' '));
    url.searchParams.set('state', p.state);
    url.searchParams.set('code_challenge', p.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    for (const [name, value] of Object.entries(oauthRecord(this.provider).authorizeParams ?? {})) url.searchParams.set(name, value);
    return url.href;
  }

  async deviceAuthorization(scopes: string[], signal?: AbortSignal): Promise<oauth.DeviceAuthorizationResponse> {
    if (!this.endpoints.device) throw new InputError(`${TITLE(this.provider)} has no device sign-in; use --browser.`, 'device');
    return this.call('device authorization', async () => {
      const res = await oauth.deviceAuthorizationRequest(this.as, this.client, oauth.None(), { scope: scopes.join(' ') }, this.options(signal));
      return oauth.processDeviceAuthorizationResponse(this.as, this.client, res);
    });
  }

  /** One poll of the token endpoint; throws OAuthGrantError with the provider's error code (authorization_pending...). */
  async deviceToken(deviceCode: string, signal?: AbortSignal): Promise<GrantedTokens> {
    // The device grant takes no client secret (GitHub documents none; Outlook apps are public clients).
    return this.call('device code grant', async () => {
      const res = await oauth.deviceCodeGrantRequest(this.as, this.client, oauth.None(), deviceCode, this.options(signal));
      return grantedTokens(await oauth.processDeviceCodeResponse(this.as, this.client, res));
    });
  }

  async exchangeCode(p: { code: string; state: string; redirectUri: string; codeVerifier: string }, signal?: AbortSignal): Promise<GrantedTokens> {
    return this.call('code exchange', async () => {
      const params = oauth.validateAuthResponse(this.as, this.client, new URLSearchParams({ code: p.code, state: p.state }), p.state);
      const res = await oauth.authorizationCodeGrantRequest(this.as, this.client, this.auth(), params, p.redirectUri, p.codeVerifier, this.options(signal));
      return grantedTokens(await oauth.processAuthorizationCodeResponse(this.as, this.client, res));
    });
  }

  async refresh(refreshToken: string, scopes: string[], signal?: AbortSignal): Promise<GrantedTokens> {
    return this.call('refresh', async () => {
      const options = { ...this.options(signal), ...(oauthRecord(this.provider).scopesOnRefresh && scopes.length ? { additionalParameters: { scope: scopes.join(' ') } } : {}) };
      const res = await oauth.refreshTokenGrantRequest(this.as, this.client, this.auth(), refreshToken, options);
      return grantedTokens(await oauth.processRefreshTokenResponse(this.as, this.client, res));
    });
  }

  private auth(): oauth.ClientAuth {
    return this.settings.clientSecret ? oauth.ClientSecretPost(this.settings.clientSecret) : oauth.None();
  }

  private options(signal?: AbortSignal): oauth.TokenEndpointRequestOptions {
    const timeout = AbortSignal.timeout(30_000);
    const url = new URL(this.endpoints.token);
    // Plain http only for a server on this machine (the sandbox); anything else must be https.
    const loopback = url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    return {
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      [oauth.allowInsecureRequests]: loopback,
      [oauth.customFetch]: oauthRecord(this.provider).errorsWithStatus200 ? statusFromBody : fetch,
    };
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      if (isGrantedTokens(result)) {
        this.redactor?.add(result.accessToken);
        this.redactor?.add(result.refreshToken);
      }
      return result;
    } catch (error) {
      throw this.failure(what, error);
    }
  }

  private failure(what: string, error: unknown): Error {
    if (error instanceof InputError || error instanceof AccountError) return error;
    const path = new URL(this.endpoints.token).pathname;
    if (error instanceof oauth.ResponseBodyError) {
      return new OAuthGrantError(this.provider, error.status, error.error, error.error_description, path, error.cause);
    }
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
      return new ProviderError({ connector: this.provider, status: 0, method: 'POST', path, providerMessage: `${what}: no answer in time` });
    }
    if (error instanceof TypeError && /fetch failed/i.test(message)) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return new ProviderError({ connector: this.provider, status: 0, method: 'POST', path, providerMessage: `${what}: ${cause?.code ?? cause?.message ?? 'network error'}` });
    }
    const status = error instanceof oauth.OperationProcessingError ? ((error.cause as { status?: number } | undefined)?.status ?? 502) : 502;
    return new ProviderError({ connector: this.provider, status: status || 502, method: 'POST', path, providerMessage: `${what}: ${message}`.slice(0, 300) });
  }
}

/** The token endpoint refused a grant: `code` is the OAuth error (invalid_grant, authorization_pending, slow_down...). */
export class OAuthGrantError extends ProviderError {
  constructor(
    provider: OAuthProvider,
    status: number,
    readonly oauthError: string,
    description: string | undefined,
    path: string,
    readonly details: Record<string, unknown> = {},
  ) {
    const said = description?.split('\r\n')[0]?.slice(0, 300);
    super({ connector: provider, status, method: 'POST', path, code: oauthError, providerMessage: said });
    const client = ['invalid_client', 'incorrect_client_credentials', 'unauthorized_client'].includes(oauthError);
    const hint = client
      ? ` Check ${ENV(provider)}_CLIENT_ID${oauthRecord(provider).clientSecret ? ` and ${ENV(provider)}_CLIENT_SECRET` : ''} against your app registration.`
      : ['invalid_grant', 'bad_refresh_token', 'bad_verification_code'].includes(oauthError)
        ? ' Sign in again.'
        : '';
    this.message = `${TITLE(provider)}'s authorization server refused the request (${oauthError}${said ? `: ${said}` : ''}).${hint}`;
  }

  /** The refresh token (or the whole grant) is gone: only a new sign-in helps. */
  get grantRevoked(): boolean {
    return ['invalid_grant', 'bad_refresh_token', 'unauthorized_client', 'interaction_required', 'consent_required'].includes(this.oauthError);
  }
}

function isGrantedTokens(value: unknown): value is GrantedTokens {
  return typeof value === 'object' && value !== null && typeof (value as GrantedTokens).accessToken === 'string';
}

function grantedTokens(r: oauth.TokenEndpointResponse): GrantedTokens {
  const { access_token, refresh_token, expires_in, scope, token_type: _type, ...extra } = r;
  return {
    accessToken: access_token,
    refreshToken: refresh_token,
    expiresIn: expires_in,
    scopes: typeof scope === 'string' ? scope.split(/[\s,]+/).filter(Boolean) : undefined,
    extra: extra as Record<string, unknown>,
  };
}

/** The stored secret of an OAuth account; keeps the old refresh token when the provider did not rotate it. */
export function secretFromTokens(tokens: GrantedTokens, now: number, previousRefreshToken?: string): AccountSecret {
  return {
    kind: 'oauth',
    token: tokens.accessToken,
    ...(tokens.refreshToken ?? previousRefreshToken ? { refreshToken: tokens.refreshToken ?? previousRefreshToken } : {}),
    ...(tokens.expiresIn !== undefined ? { expiresAt: now + tokens.expiresIn * 1000 } : {}),
  };
}

// Some token endpoints (GitHub's) answer errors with 200 and the error in the body; make them the 400 OAuth 2 expects.
async function statusFromBody(url: string, init: RequestInit): Promise<Response> {
  const res = await fetch(url, init);
  if (res.status !== 200 || !(res.headers.get('content-type') ?? '').includes('json')) return res;
  const body = (await res.clone().json().catch(() => undefined)) as { error?: unknown } | undefined;
  if (!body || typeof body.error !== 'string') return res;
  return new Response(JSON.stringify(body), { status: 400, headers: { 'content-type': 'application/json' } });
}
