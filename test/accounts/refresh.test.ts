import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deviceSignIn } from '../../src/accounts/device.js';
import { TokenRefresher } from '../../src/accounts/refresh.js';
import { openStore } from '../../src/store/index.js';
import type { Account } from '../../src/store/types.js';
import { startHarness, type Harness } from '../harness.js';
import { http } from '../sandbox/http.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const DEVICE_GRANT_PATH = /\/oauth2\/v2\.0\/token$/;

/** Signs an Outlook account in through the sandbox's device flow, as `accounts add outlook --device --label work` does. */
async function signInOutlook(label = 'work'): Promise<Account> {
  return deviceSignIn({ store: h.store, baseUrls: h.sandbox.baseUrls, oauth: h.sandbox.oauthSettings, redactor: h.deps.redactor }, 'outlook', {
    label,
    prompt: (p) => h.sandbox.oauth.outlook.approve(p.userCode),
    sleep: async () => undefined,
  });
}

function tokenRequests(grant: string) {
  return h.sandbox.servers.outlook.requests.filter((r) => DEVICE_GRANT_PATH.test(r.path) && new URLSearchParams(r.rawBody.toString()).get('grant_type') === grant);
}

async function refreshWith(refreshToken: string) {
  return http('POST', `${h.sandbox.oauthSettings.outlook.url}/token`, {
    body: new URLSearchParams({ grant_type: 'refresh_token', client_id: h.sandbox.oauthSettings.outlook.clientId!, refresh_token: refreshToken }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

describe('OAuth token refresh', () => {
  it('refreshes a token close to expiry before the call, storing the rotated refresh token; the old one is refused afterwards', async () => {
    h.sandbox.oauth.outlook.accessTokenTtlSeconds = 60; // under the 2-minute margin
    const account = await signInOutlook();
    const before = (await h.store.accounts.resolve('outlook', account.id)).secret;
    const me = await h.ok('outlook_api_call', { account: 'work', method: 'GET', endpoint: '/me' });
    expect(me.status).toBe(200);
    expect(h.sandbox.oauth.outlook.grants.refresh_token).toBe(1);
    const after = (await h.store.accounts.resolve('outlook', account.id)).secret;
    expect(after.token).not.toBe(before.token);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.expiresAt).toBeGreaterThan(before.expiresAt!);
    const sent = h.sandbox.servers.outlook.requests.filter((r) => r.path === '/v1.0/me').at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${after.token}`);
    // The refresh asked for the account's scopes again.
    expect(new URLSearchParams(tokenRequests('refresh_token')[0]!.rawBody.toString()).get('scope')).toContain('offline_access');
    const reused = await refreshWith(before.refreshToken!);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
    for (const secret of [before.token!, before.refreshToken!, after.token!, after.refreshToken!]) {
      expect(JSON.stringify(me)).not.toContain(secret);
      expect(h.logs.join('')).not.toContain(secret);
    }
    // The stored (rotated) one still works once.
    expect((await refreshWith(after.refreshToken!)).status).toBe(200);
  });

  it('leaves a token with time left alone, and refreshes once on a 401, then retries', async () => {
    const account = await signInOutlook();
    await h.ok('outlook_api_call', { account: 'work', method: 'GET', endpoint: '/me' });
    expect(h.sandbox.oauth.outlook.grants.refresh_token).toBe(0);
    const { secret } = await h.store.accounts.resolve('outlook', account.id);
    h.sandbox.oauth.outlook.expireAccessTokens(secret.token); // revoked early at the provider; the store still thinks it is valid
    const before = h.sandbox.servers.outlook.requests.filter((r) => r.path === '/v1.0/me').length;
    const me = await h.ok('outlook_api_call', { account: 'work', method: 'GET', endpoint: '/me' });
    expect(me.status).toBe(200);
    expect(h.sandbox.oauth.outlook.grants.refresh_token).toBe(1);
    const calls = h.sandbox.servers.outlook.requests.filter((r) => r.path === '/v1.0/me').slice(before);
    expect(calls.map((r) => r.headers.authorization === `Bearer ${secret.token}`)).toEqual([true, false]);
  });

  it('a token account that gets a 401 is not refreshed', async () => {
    h.sandbox.states.outlook.tokens.delete(h.sandbox.accounts.find((a) => a.provider === 'outlook')!.secret.token!);
    const text = await h.fails('outlook_api_call', { account: 'sample', method: 'GET', endpoint: '/me' });
    expect(text).toMatch(/answered 401/);
    expect(tokenRequests('refresh_token')).toHaveLength(0);
  });

  it('an expired refresh token makes the account needs_reconnect, and every tool says how to reconnect', async () => {
    h.sandbox.oauth.outlook.accessTokenTtlSeconds = 60;
    const account = await signInOutlook();
    h.sandbox.oauth.outlook.expireRefreshTokens();
    const text = await h.fails('outlook_list_folders', { account: 'work' });
    expect(text).toContain('The outlook account "work" needs to be reconnected');
    expect(text).toContain('switchboard accounts add outlook --device --label "work"');
    expect((await h.store.accounts.find(account.id))?.status).toBe('needs_reconnect');
    const listed = await h.ok('accounts_list', { provider: 'outlook' });
    expect(listed.accounts.find((a: { id: string }) => a.id === account.id).status).toBe('needs_reconnect');
    // Later calls answer the same from the store, without asking the provider again.
    const refreshes = tokenRequests('refresh_token').length;
    expect(await h.fails('outlook_api_call', { account: 'work', method: 'GET', endpoint: '/me' })).toContain('switchboard accounts add outlook --device --label "work"');
    expect(tokenRequests('refresh_token')).toHaveLength(refreshes);

    // Signing in again with that command brings the same account back.
    const again = await signInOutlook('work');
    expect(again.id).toBe(account.id);
    expect((await h.ok('outlook_api_call', { account: 'work', method: 'GET', endpoint: '/me' })).status).toBe(200);
  });

  it('concurrent calls in one process make one refresh', async () => {
    h.sandbox.oauth.outlook.accessTokenTtlSeconds = 60;
    await signInOutlook();
    h.sandbox.oauth.outlook.tokenLatencyMs = 100;
    const results = await Promise.all(Array.from({ length: 5 }, () => h.ok('outlook_api_call', { account: 'work', method: 'GET', endpoint: '/me' })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(h.sandbox.oauth.outlook.grants.refresh_token).toBe(1);
  });

  it('two store connections refreshing at once make one refresh call; the second uses the first one\'s token', async () => {
    h.sandbox.oauth.outlook.accessTokenTtlSeconds = 60;
    const account = await signInOutlook();
    h.sandbox.oauth.outlook.tokenLatencyMs = 200;
    const other = await openStore({ dataDir: h.dataDir, secretKey: 'test-secret-key' });
    try {
      const a = new TokenRefresher({ store: h.store, oauth: h.sandbox.oauthSettings });
      const b = new TokenRefresher({ store: other, oauth: h.sandbox.oauthSettings });
      const { secret } = await h.store.accounts.resolve('outlook', account.id);
      const [x, y] = await Promise.all([a.fresh(account, secret), b.fresh(account, secret)]);
      expect(h.sandbox.oauth.outlook.grants.refresh_token).toBe(1);
      expect(x.token).toBe(y.token);
      expect(x.token).not.toBe(secret.token);
      expect((await other.accounts.find(account.id))?.status).toBe('active');
    } finally {
      await other.close();
    }
  });
});
