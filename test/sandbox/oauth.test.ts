import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redirectUriRegistered, SANDBOX_OAUTH_CLIENTS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { http, type HttpResult } from './http.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const verifier = 'v'.repeat(43) + 'erifier-for-tests';
const challenge = createHash('sha256').update(verifier).digest('base64url');
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

function post(url: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<HttpResult> {
  return http('POST', url, { body: new URLSearchParams(params).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers } });
}

const settings = (p: 'outlook' | 'github' | 'vercel') => sandbox.oauthSettings[p];
const authorizeUrl = (p: 'outlook' | 'github' | 'vercel') =>
  p === 'github' ? `${settings(p).url}/login/oauth/authorize` : p === 'vercel' ? settings(p).authorizeUrl! : `${settings(p).url}/authorize`;
const tokenUrl = (p: 'outlook' | 'github' | 'vercel') =>
  p === 'github' ? `${settings(p).url}/login/oauth/access_token` : p === 'vercel' ? `${settings(p).url}/access_token` : `${settings(p).url}/token`;

/** Opens the consent page and presses a button, as the person would; answers the redirect's parameters. */
async function consent(p: 'outlook' | 'github' | 'vercel', params: Record<string, string>, decision = 'allow'): Promise<URL> {
  const url = new URL(authorizeUrl(p));
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const page = await http('GET', url.href);
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toMatch(/text\/html/);
  const request = /name="request" value="([^"]+)"/.exec(page.body)![1]!;
  const action = /<form method="post" action="([^"]+)"/.exec(page.body)![1]!;
  const answer = await post(new URL(action, url).href, { request, decision });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.location!);
}

function codeParams(p: 'outlook' | 'github' | 'vercel', redirectUri: string, extra: Record<string, string> = {}) {
  return {
    client_id: settings(p).clientId!,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: p === 'outlook' ? 'Mail.ReadWrite User.Read offline_access' : 'repo gist',
    state: 'state-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
}

describe('sandbox authorization servers', () => {
  it('match redirect URIs exactly, except a loopback port (RFC 8252)', () => {
    const client = SANDBOX_OAUTH_CLIENTS.outlook;
    expect(redirectUriRegistered(client, 'http://127.0.0.1/oauth/callback')).toBe(true);
    expect(redirectUriRegistered(client, 'http://127.0.0.1:49152/oauth/callback')).toBe(true);
    expect(redirectUriRegistered(client, 'http://127.0.0.1:49152/oauth/callback/')).toBe(false);
    expect(redirectUriRegistered(client, 'http://127.0.0.1:49152/oauth/callback/../callback')).toBe(false);
    expect(redirectUriRegistered(client, 'http://127.0.0.1:49152/oauth/callbackx')).toBe(false);
    expect(redirectUriRegistered(client, 'https://127.0.0.1:49152/oauth/callback')).toBe(false);
    expect(redirectUriRegistered(client, 'http://evil.example/oauth/callback')).toBe(false);
    expect(redirectUriRegistered(client, 'http://127.0.0.1:1/oauth/callback?x=1')).toBe(false);
  });

  it('refuse an unknown client or redirect URI on a page, without redirecting', async () => {
    const url = new URL(authorizeUrl('outlook'));
    for (const [k, v] of Object.entries(codeParams('outlook', 'http://evil.example/cb'))) url.searchParams.set(k, v);
    const r = await http('GET', url.href);
    expect(r.status).toBe(400);
    expect(r.headers.location).toBeUndefined();
    expect(r.body).toMatch(/redirect_uri .* is not registered/);
    url.searchParams.set('client_id', 'someone-else');
    expect((await http('GET', url.href)).body).toMatch(/Unknown client_id/);
  });

  it('require PKCE with S256, and say so at the redirect URI with the state', async () => {
    const url = new URL(authorizeUrl('github'));
    for (const [k, v] of Object.entries(codeParams('github', 'http://127.0.0.1:4000/oauth/callback', { code_challenge_method: 'plain' }))) url.searchParams.set(k, v);
    const r = await http('GET', url.href);
    expect(r.status).toBe(302);
    const back = new URL(r.headers.location!);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('state')).toBe('state-123');
  });

  it('Outlook: consent, code + verifier, a token Graph accepts, then refresh with rotation', async () => {
    const redirectUri = 'http://127.0.0.1:4001/oauth/callback';
    const back = await consent('outlook', codeParams('outlook', redirectUri));
    expect(back.origin + back.pathname).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe('state-123');
    const code = back.searchParams.get('code')!;
    const base = { grant_type: 'authorization_code', client_id: settings('outlook').clientId!, code, redirect_uri: redirectUri };

    const wrongRedirect = await post(tokenUrl('outlook'), { ...base, redirect_uri: 'http://127.0.0.1:4002/oauth/callback', code_verifier: verifier });
    expect(wrongRedirect.status).toBe(400);
    expect(wrongRedirect.body.error).toBe('invalid_grant');

    // The failed attempt used the code up.
    const back2 = await consent('outlook', codeParams('outlook', redirectUri));
    const base2 = { ...base, code: back2.searchParams.get('code')! };
    const wrongVerifier = await post(tokenUrl('outlook'), { ...base2, code_verifier: 'x'.repeat(43) });
    expect(wrongVerifier.body).toMatchObject({ error: 'invalid_grant', error_codes: [70000] });

    const back3 = await consent('outlook', codeParams('outlook', redirectUri));
    const base3 = { ...base, code: back3.searchParams.get('code')! };
    const ok = await post(tokenUrl('outlook'), { ...base3, code_verifier: verifier });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3599, scope: 'Mail.ReadWrite User.Read' });
    expect(ok.body.refresh_token).toBeTruthy();
    expect((await post(tokenUrl('outlook'), { ...base3, code_verifier: verifier })).body.error).toBe('invalid_grant');

    const me = await http('GET', `${sandbox.baseUrls.outlook}/me`, { headers: { authorization: `Bearer ${ok.body.access_token}` } });
    expect(me.status).toBe(200);

    const before = sandbox.oauth.outlook.grants.refresh_token;
    const refreshed = await post(tokenUrl('outlook'), { grant_type: 'refresh_token', client_id: settings('outlook').clientId!, refresh_token: ok.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(ok.body.refresh_token);
    expect(sandbox.oauth.outlook.grants.refresh_token).toBe(before + 1);
    const reused = await post(tokenUrl('outlook'), { grant_type: 'refresh_token', client_id: settings('outlook').clientId!, refresh_token: ok.body.refresh_token });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');

    // Expiry, as the sandbox control route makes it.
    await http('POST', `${sandbox.servers.outlook.url}/_sandbox/oauth/expire`, { body: { access_token: refreshed.body.access_token } });
    expect((await http('GET', `${sandbox.baseUrls.outlook}/me`, { headers: { authorization: `Bearer ${refreshed.body.access_token}` } })).status).toBe(401);
    await http('POST', `${sandbox.servers.outlook.url}/_sandbox/oauth/expire`, { body: { refresh_token: refreshed.body.refresh_token } });
    const expired = await post(tokenUrl('outlook'), { grant_type: 'refresh_token', client_id: settings('outlook').clientId!, refresh_token: refreshed.body.refresh_token });
    expect(expired.body.error).toBe('invalid_grant');
  });

  it('a denied consent comes back as access_denied', async () => {
    const back = await consent('outlook', codeParams('outlook', 'http://127.0.0.1:4003/oauth/callback'), 'deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('GitHub: wants the client secret for the code, answers errors with 200, and form-encoded unless asked for JSON', async () => {
    const redirectUri = 'http://127.0.0.1:4010/oauth/callback/github';
    const back = await consent('github', codeParams('github', redirectUri));
    const params = { client_id: settings('github').clientId!, code: back.searchParams.get('code')!, redirect_uri: redirectUri, code_verifier: verifier };
    const noSecret = await post(tokenUrl('github'), params);
    expect(noSecret.status).toBe(200);
    expect(noSecret.body.error).toBe('incorrect_client_credentials');
    const back2 = await consent('github', codeParams('github', redirectUri));
    const ok = await post(tokenUrl('github'), { ...params, code: back2.searchParams.get('code')!, client_secret: settings('github').clientSecret! }, { accept: '*/*' });
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toMatch(/x-www-form-urlencoded/);
    const form = new URLSearchParams(ok.body);
    expect(form.get('access_token')).toMatch(/^ghu_/);
    expect(form.get('refresh_token')).toMatch(/^ghr_/);
    expect(form.get('scope')).toBe('repo,gist');
    const user = await http('GET', `${sandbox.baseUrls.github}/user`, { headers: { authorization: `Bearer ${form.get('access_token')}` } });
    expect(user.status).toBe(200);
    const bad = await post(tokenUrl('github'), { grant_type: 'refresh_token', client_id: settings('github').clientId!, client_secret: settings('github').clientSecret!, refresh_token: 'ghr_nope' });
    expect(bad.status).toBe(200);
    expect(bad.body.error).toBe('bad_refresh_token');
  });

  it('GitHub device flow: pending, slow_down when polled too fast, approved through the control route', async () => {
    const start = await post(`${settings('github').url}/login/device/code`, { client_id: settings('github').clientId!, scope: 'repo' });
    expect(start.status).toBe(200);
    expect(start.body).toMatchObject({ verification_uri: `${sandbox.servers.github.url}/login/device`, expires_in: 900, interval: 5 });
    expect(start.body.user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    const poll = () => post(tokenUrl('github'), { client_id: settings('github').clientId!, device_code: start.body.device_code, grant_type: DEVICE_GRANT });
    expect((await poll()).body.error).toBe('authorization_pending');
    const fast = await poll();
    expect(fast.body).toMatchObject({ error: 'slow_down', interval: 10 });
    const approve = await http('POST', `${sandbox.servers.github.url}/_sandbox/oauth/approve`, { body: { user_code: start.body.user_code.toLowerCase() } });
    expect(approve.status).toBe(200);
    const done = await poll();
    expect(done.body.access_token).toMatch(/^ghu_/);
    expect((await poll()).body.error).toBe('incorrect_device_code');
    expect((await http('POST', `${sandbox.servers.github.url}/_sandbox/oauth/approve`, { body: { user_code: 'NOPE-NOPE' } })).status).toBe(404);
  });

  it('Outlook device flow: the verification page approves the code; a declined one says authorization_declined', async () => {
    const devicecode = `${settings('outlook').url}/devicecode`;
    const start = await post(devicecode, { client_id: settings('outlook').clientId!, scope: 'Mail.ReadWrite offline_access User.Read' });
    expect(start.body.message).toContain(start.body.user_code);
    expect(start.body.verification_uri).toBe(`${sandbox.servers.outlook.url}/devicelogin`);
    const page = await http('GET', start.body.verification_uri);
    expect(page.body).toMatch(/name="user_code"/);
    const approved = await post(start.body.verification_uri, { user_code: start.body.user_code, decision: 'allow' });
    expect(approved.body).toMatch(/Device connected/);
    const done = await post(`${settings('outlook').url}/token`, { client_id: settings('outlook').clientId!, device_code: start.body.device_code, grant_type: DEVICE_GRANT });
    expect(done.status).toBe(200);
    expect(done.body.refresh_token).toBeTruthy();

    const second = await post(devicecode, { client_id: settings('outlook').clientId!, scope: 'User.Read' });
    sandbox.oauth.outlook.approve(second.body.user_code, 'denied');
    const declined = await post(`${settings('outlook').url}/token`, { client_id: settings('outlook').clientId!, device_code: second.body.device_code, grant_type: DEVICE_GRANT });
    expect(declined.status).toBe(400);
    expect(declined.body.error).toBe('authorization_declined');
  });

  it('Vercel: the install page redirects with code and configurationId; the exchange needs the secret; tokens do not expire', async () => {
    const redirectUri = 'http://127.0.0.1:4020/oauth/callback/vercel';
    const back = await consent('vercel', codeParams('vercel', redirectUri, { scope: '' }));
    expect(back.searchParams.get('configurationId')).toMatch(/^icfg_/);
    const ok = await post(tokenUrl('vercel'), {
      client_id: settings('vercel').clientId!,
      client_secret: settings('vercel').clientSecret!,
      code: back.searchParams.get('code')!,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', team_id: null });
    expect(ok.body.expires_in).toBeUndefined();
    const user = await http('GET', `${sandbox.baseUrls.vercel}/v2/user`, { headers: { authorization: `Bearer ${ok.body.access_token}` } });
    expect(user.status).toBe(200);
  });

  it('revokes a token (RFC 7009 in the sandbox)', async () => {
    const back = await consent('outlook', codeParams('outlook', 'http://127.0.0.1:4030/oauth/callback'));
    const ok = await post(tokenUrl('outlook'), {
      grant_type: 'authorization_code',
      client_id: settings('outlook').clientId!,
      code: back.searchParams.get('code')!,
      redirect_uri: 'http://127.0.0.1:4030/oauth/callback',
      code_verifier: verifier,
    });
    expect((await post(`${settings('outlook').url}/revoke`, { token: ok.body.access_token })).status).toBe(200);
    expect((await http('GET', `${sandbox.baseUrls.outlook}/me`, { headers: { authorization: `Bearer ${ok.body.access_token}` } })).status).toBe(401);
  });
});
