import { randomUUID } from 'node:crypto';
import type { OAuthProvider } from '../../config.js';
import {
  accessToken,
  DEVICE_GRANT,
  random,
  redirectUriRegistered,
  refreshToken,
  s256,
  same,
  userCode,
  type AuthRequest,
  type Grant,
  type OAuthSandbox,
} from './state.js';
import { oauthPaths } from './endpoints.js';
import { consentPage, devicePage, errorPage, formParams } from './pages.js';
import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import { header, originOf } from '../util.js';

/** The sandbox authorization servers' routes (state and tokens in state.ts, pages in pages.ts). */

/** The provider's way of answering a token-endpoint error. */
function oauthError(provider: OAuthProvider, error: string, description: string, status = 400): SandboxResponse {
  const headers = { 'cache-control': 'no-store', pragma: 'no-cache' };
  // GitHub answers token-endpoint errors with 200 and the error in the body.
  if (provider === 'github') return { status: 200, headers, body: { error, error_description: description, error_uri: 'https://docs.github.com/apps/oauth-apps' } };
  if (provider === 'outlook') {
    const code = error === 'invalid_grant' ? 70000 : error === 'authorization_pending' ? 70016 : error === 'expired_token' ? 70019 : 900144;
    return {
      status,
      headers,
      body: {
        error,
        error_description: `AADSTS${code}: ${description}`,
        error_codes: [code],
        timestamp: new Date().toISOString().replace('T', ' ').slice(0, 19) + 'Z',
        trace_id: randomUUID(),
        correlation_id: randomUUID(),
      },
    };
  }
  return { status, headers, body: { error, error_description: description } };
}

function withQuery(uri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

function redirect(location: string): SandboxResponse {
  return { status: 302, headers: { location, 'cache-control': 'no-store' } };
}

/** The client's credentials: client_secret_post or HTTP Basic. */
function clientCredentials(req: SandboxRequest, form: URLSearchParams): { id?: string; secret?: string } {
  const basic = /^basic\s+(\S+)$/i.exec(header(req, 'authorization') ?? '')?.[1];
  if (basic) {
    const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':', 2).map((s) => decodeURIComponent(s ?? ''));
    return { id, secret };
  }
  return { id: form.get('client_id') ?? undefined, secret: form.get('client_secret') ?? undefined };
}

/** The routes of one provider's authorization server, plus the sandbox-only control routes. */
export function oauthRoutes(o: OAuthSandbox): Routes {
  const paths = oauthPaths(o.provider);

  function issue(grant: Grant): Record<string, unknown> {
    const token = accessToken(o.provider);
    const expiresAt = o.accessTokenTtlSeconds === null ? undefined : Date.now() + o.accessTokenTtlSeconds * 1000;
    o.tokens.addExpiring(token, expiresAt);
    const scopes = grant.scope.split(/[\s,]+/).filter(Boolean);
    const wantsRefresh = o.issueRefreshTokens && (o.provider !== 'outlook' || scopes.includes('offline_access'));
    const refresh = wantsRefresh ? refreshToken(o.provider) : undefined;
    if (refresh) {
      o.refreshTokens.set(refresh, {
        ...grant,
        status: 'active',
        expiresAt: o.refreshTokenTtlSeconds === null ? undefined : Date.now() + o.refreshTokenTtlSeconds * 1000,
      });
    }
    const expires = o.accessTokenTtlSeconds === null ? {} : { expires_in: o.accessTokenTtlSeconds };
    if (o.provider === 'github') {
      return {
        access_token: token,
        ...expires,
        ...(refresh ? { refresh_token: refresh, refresh_token_expires_in: 15_897_600 } : {}),
        scope: scopes.join(','),
        token_type: 'bearer',
      };
    }
    if (o.provider === 'vercel') {
      return { token_type: 'Bearer', access_token: token, installation_id: `icfg_${random(12)}`, user_id: 'sbx-vercel-user', team_id: null };
    }
    return {
      token_type: 'Bearer',
      scope: scopes.filter((s) => s !== 'offline_access').join(' '),
      ...expires,
      ...(o.accessTokenTtlSeconds === null ? {} : { ext_expires_in: o.accessTokenTtlSeconds }),
      access_token: token,
      ...(refresh ? { refresh_token: refresh } : {}),
    };
  }

  function tokenResponse(req: SandboxRequest, body: Record<string, unknown>): SandboxResponse {
    const headers = { 'cache-control': 'no-store', pragma: 'no-cache' };
    // GitHub answers form-encoded unless asked for JSON.
    if (o.provider === 'github' && !(header(req, 'accept') ?? '').includes('json')) {
      const form = new URLSearchParams(Object.entries(body).map(([k, v]): [string, string] => [k, String(v)]));
      return { status: 200, headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }, body: form.toString() };
    }
    return { status: 200, headers, body };
  }

  function authorizeGet(req: SandboxRequest): SandboxResponse {
    const q = req.query;
    const clientId = q.get('client_id') ?? '';
    const redirectUri = q.get('redirect_uri') ?? '';
    // Without a known client and a registered redirect URI nothing may be redirected (RFC 6749 4.1.2.1).
    if (clientId !== o.client.id) return errorPage(400, `Unknown client_id "${clientId}".`);
    if (!redirectUri || !redirectUriRegistered(o.client, redirectUri)) {
      return errorPage(400, `The redirect_uri "${redirectUri}" is not registered for this application.`);
    }
    const state = q.get('state');
    const fail = (error: string, description: string) => redirect(withQuery(redirectUri, { error, error_description: description, state }));
    if (q.get('response_type') !== 'code') return fail('unsupported_response_type', 'response_type must be code.');
    const challenge = q.get('code_challenge');
    if (!challenge || q.get('code_challenge_method') !== 'S256') return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
    const id = random(18);
    const request: AuthRequest = { clientId, redirectUri, scope: q.get('scope') ?? '', state, codeChallenge: challenge, expiresAt: Date.now() + 10 * 60_000 };
    o.requests.set(id, request);
    return consentPage({ provider: o.provider, action: req.path, requestId: id, identity: o.identity, scopes: request.scope.split(/[\s,]+/).filter(Boolean) });
  }

  function authorizePost(req: SandboxRequest): SandboxResponse {
    const form = formParams(req);
    const id = form.get('request') ?? '';
    const request = o.requests.get(id);
    o.requests.delete(id);
    if (!request || request.expiresAt < Date.now()) return errorPage(400, 'This sign-in request is unknown or has expired; start again from the application.');
    if (form.get('decision') !== 'allow') {
      return redirect(withQuery(request.redirectUri, { error: 'access_denied', error_description: 'The user declined.', state: request.state }));
    }
    const code = random(24);
    o.codes.set(code, { ...request, expiresAt: Date.now() + 10 * 60_000, used: false });
    const extra = o.provider === 'vercel' ? { configurationId: `icfg_${random(12)}`, next: 'https://vercel.com/dashboard/integrations' } : {};
    return redirect(withQuery(request.redirectUri, { code, state: request.state, ...extra }));
  }

  async function token(req: SandboxRequest): Promise<SandboxResponse> {
    if (o.tokenLatencyMs > 0) await new Promise((r) => setTimeout(r, o.tokenLatencyMs));
    const form = formParams(req);
    const grantType = form.get('grant_type') ?? (o.provider !== 'outlook' && form.get('code') ? 'authorization_code' : '');
    const creds = clientCredentials(req, form);
    if (creds.id !== o.client.id) return oauthError(o.provider, o.provider === 'github' ? 'incorrect_client_credentials' : 'invalid_client', 'The client_id is unknown.', 401);
    if (creds.secret !== undefined && (!o.client.secret || !same(creds.secret, o.client.secret))) {
      return oauthError(o.provider, o.provider === 'github' ? 'incorrect_client_credentials' : 'invalid_client', 'The client secret is wrong.', 401);
    }
    // GitHub and Vercel want the secret for the code and refresh grants; device code and Outlook's public clients do not.
    const needsSecret = o.client.secret !== undefined && grantType !== DEVICE_GRANT;
    if (needsSecret && creds.secret === undefined) {
      return oauthError(o.provider, o.provider === 'github' ? 'incorrect_client_credentials' : 'invalid_client', 'The client secret is missing.', 401);
    }
    if (grantType === 'authorization_code') return codeGrant(req, form);
    if (grantType === 'refresh_token') return refreshGrant(req, form);
    if (grantType === DEVICE_GRANT && paths.device) return deviceGrant(req, form);
    return oauthError(o.provider, 'unsupported_grant_type', `The grant_type "${grantType}" is not supported.`);
  }

  function codeGrant(req: SandboxRequest, form: URLSearchParams): SandboxResponse {
    const code = form.get('code') ?? '';
    const grant = o.codes.get(code);
    const invalid = (why: string) => oauthError(o.provider, o.provider === 'github' ? 'bad_verification_code' : 'invalid_grant', why);
    if (!grant || grant.used || grant.expiresAt < Date.now()) return invalid('The code is unknown, expired or already used.');
    grant.used = true;
    if (grant.clientId !== o.client.id) return invalid('The code was issued to another client.');
    if ((form.get('redirect_uri') ?? '') !== grant.redirectUri) return oauthError(o.provider, o.provider === 'github' ? 'redirect_uri_mismatch' : 'invalid_grant', 'The redirect_uri differs from the one the code was issued for.');
    const verifier = form.get('code_verifier') ?? '';
    if (!verifier || !same(s256(verifier), grant.codeChallenge)) return invalid('The code_verifier does not match the code_challenge.');
    o.grants.authorization_code++;
    return tokenResponse(req, issue(grant));
  }

  function refreshGrant(req: SandboxRequest, form: URLSearchParams): SandboxResponse {
    const presented = form.get('refresh_token') ?? '';
    const record = o.refreshTokens.get(presented);
    const refused = (why: string) => oauthError(o.provider, o.provider === 'github' ? 'bad_refresh_token' : 'invalid_grant', why);
    if (!record || record.clientId !== o.client.id) return refused('The refresh token is unknown.');
    if (record.status !== 'active') return refused(`The refresh token was ${record.status === 'used' ? 'already used' : 'revoked or has expired'}.`);
    if (record.expiresAt !== undefined && record.expiresAt < Date.now()) return refused('The refresh token has expired due to inactivity.');
    // Rotation: each refresh token works once; the response carries its replacement.
    record.status = 'used';
    o.grants.refresh_token++;
    return tokenResponse(req, issue({ clientId: record.clientId, scope: form.get('scope') || record.scope }));
  }

  function deviceGrant(req: SandboxRequest, form: URLSearchParams): SandboxResponse {
    const code = form.get('device_code') ?? '';
    const device = o.devices.get(code);
    if (!device || device.clientId !== o.client.id) return oauthError(o.provider, o.provider === 'github' ? 'incorrect_device_code' : 'bad_verification_code', 'The device_code is unknown.');
    const now = Date.now();
    if (device.expiresAt < now) {
      o.devices.delete(code);
      return oauthError(o.provider, 'expired_token', 'The device code has expired.');
    }
    if (device.decision === 'denied') {
      o.devices.delete(code);
      return oauthError(o.provider, o.provider === 'outlook' ? 'authorization_declined' : 'access_denied', 'The user declined.');
    }
    if (device.decision === 'approved') {
      o.devices.delete(code);
      o.grants.device_code++;
      return tokenResponse(req, issue(device));
    }
    const early = device.lastPollAt !== undefined && now - device.lastPollAt < device.interval * 1000;
    device.lastPollAt = now;
    if (early && o.provider === 'github') {
      device.interval += 5;
      return { ...oauthError(o.provider, 'slow_down', 'Too many requests; poll less often.'), body: { error: 'slow_down', error_description: 'Too many requests have been made in the same timeframe.', interval: device.interval } };
    }
    if (early) return oauthError(o.provider, 'slow_down', 'Poll less often.');
    return oauthError(o.provider, 'authorization_pending', 'The user has not yet finished signing in.');
  }

  function deviceAuthorization(req: SandboxRequest): SandboxResponse {
    const form = formParams(req);
    if (form.get('client_id') !== o.client.id) return oauthError(o.provider, o.provider === 'github' ? 'incorrect_client_credentials' : 'invalid_client', 'The client_id is unknown.', 401);
    const deviceCode = random(30);
    const code = userCode(o.provider);
    o.devices.set(deviceCode, {
      clientId: o.client.id,
      scope: form.get('scope') ?? '',
      userCode: code,
      expiresAt: Date.now() + o.deviceExpiresSeconds * 1000,
      interval: o.deviceIntervalSeconds,
    });
    const verificationUri = `${originOf(req)}${paths.verification}`;
    const body: Record<string, unknown> = {
      device_code: deviceCode,
      user_code: code,
      verification_uri: verificationUri,
      expires_in: o.deviceExpiresSeconds,
      interval: o.deviceIntervalSeconds,
    };
    if (o.provider === 'outlook') body.message = `To sign in, use a web browser to open the page ${verificationUri} and enter the code ${code} to authenticate.`;
    return tokenResponse(req, body);
  }

  function revoke(req: SandboxRequest): SandboxResponse {
    const form = formParams(req);
    const value = form.get('token') ?? (req.body as { access_token?: string } | undefined)?.access_token ?? '';
    o.tokens.delete(value);
    const record = o.refreshTokens.get(value);
    if (record) record.status = 'revoked';
    return { status: o.provider === 'github' ? 204 : 200 };
  }

  const routes: Routes = {
    [`GET ${paths.authorize}`]: authorizeGet,
    [`POST ${paths.authorize}`]: authorizePost,
    [`POST ${paths.token}`]: token,
    // GitHub's own revocation is DELETE /applications/{client_id}/token on its API.
    [`POST ${paths.revoke}`]: revoke,
    [`POST /_sandbox/oauth/approve`]: (req) => {
      const userCodeGiven = String(req.body?.user_code ?? formParams(req).get('user_code') ?? '');
      const ok = o.approve(userCodeGiven, req.body?.deny ? 'denied' : 'approved');
      return ok ? { status: 200, body: { approved: !req.body?.deny } } : { status: 404, body: { error: 'no pending device sign-in with that user_code' } };
    },
    [`POST /_sandbox/oauth/expire`]: (req) => {
      const b = (req.body ?? {}) as { access_token?: string; refresh_token?: string; what?: 'access' | 'refresh' | 'both' };
      const what = b.what ?? (b.refresh_token ? 'refresh' : 'access');
      const n = (what !== 'refresh' ? o.expireAccessTokens(b.access_token) : 0) + (what !== 'access' ? o.expireRefreshTokens(b.refresh_token) : 0);
      return { status: 200, body: { expired: n } };
    },
    [`POST /_sandbox/oauth/settings`]: (req) => {
      const b = (req.body ?? {}) as Record<string, unknown>;
      const num = (v: unknown) => (typeof v === 'number' && v >= 0 ? v : undefined);
      if (b.access_token_ttl_seconds === null || num(b.access_token_ttl_seconds) !== undefined) o.accessTokenTtlSeconds = b.access_token_ttl_seconds as number | null;
      if (b.refresh_token_ttl_seconds === null || num(b.refresh_token_ttl_seconds) !== undefined) o.refreshTokenTtlSeconds = b.refresh_token_ttl_seconds as number | null;
      if (num(b.device_interval_seconds) !== undefined) o.deviceIntervalSeconds = b.device_interval_seconds as number;
      if (num(b.token_latency_ms) !== undefined) o.tokenLatencyMs = b.token_latency_ms as number;
      return { status: 200, body: { access_token_ttl_seconds: o.accessTokenTtlSeconds, refresh_token_ttl_seconds: o.refreshTokenTtlSeconds, device_interval_seconds: o.deviceIntervalSeconds } };
    },
    [`GET /_sandbox/oauth/stats`]: () => ({ status: 200, body: { grants: o.grants, client_id: o.client.id } }),
  };
  if (o.provider === 'github') routes['DELETE /applications/:clientId/token'] = revoke;
  const { device: devicePath, verification: verifyPath } = paths;
  if (devicePath && verifyPath) {
    routes[`POST ${devicePath}`] = deviceAuthorization;
    routes[`GET ${verifyPath}`] = () => devicePage({ provider: o.provider, action: verifyPath });
    routes[`POST ${verifyPath}`] = (req) => {
      const form = formParams(req);
      const ok = o.approve(form.get('user_code') ?? '', form.get('decision') === 'allow' ? 'approved' : 'denied');
      return devicePage({ provider: o.provider, action: verifyPath, result: ok ? (form.get('decision') === 'allow' ? 'approved' : 'denied') : 'unknown' });
    };
  }
  return routes;
}
