import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deviceSignIn, type DevicePrompt } from '../../src/accounts/device.js';
import { loopbackSignIn } from '../../src/accounts/loopback.js';
import { createSignIn, type SignInDeps } from '../../src/accounts/sign-in.js';
import { InputError } from '../../src/errors.js';
import { Redactor } from '../../src/redact.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore, type SqliteStore } from '../../src/store/index.js';
import { http } from '../sandbox/http.js';
import { ADAPTERS, cleanUp, openAt } from '../store/adapters.js';

let sandbox: Sandbox;
let store: SqliteStore;
let dataDir: string;
let deps: SignInDeps;

beforeEach(async () => {
  sandbox = await startSandbox();
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-signin-'));
  store = await openStore({ dataDir, secretKey: 'sign-in-tests' });
  deps = { store, baseUrls: sandbox.baseUrls, oauth: sandbox.oauthSettings, redactor: new Redactor() };
});

afterEach(async () => {
  await store.close();
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const noSleep = async () => undefined;

/** Presses Allow on the consent page at `url` and answers where the browser is sent next. */
async function allow(url: string, decision = 'allow'): Promise<URL> {
  const page = await http('GET', url);
  expect(page.status, String(page.body)).toBe(200);
  const request = /name="request" value="([^"]+)"/.exec(page.body)![1]!;
  const action = new URL(/<form method="post" action="([^"]+)"/.exec(page.body)![1]!, url).href;
  const answer = await http('POST', action, {
    body: new URLSearchParams({ request, decision }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.location!);
}

describe('device code sign-in', () => {
  it('Outlook: shows the code, polls until approved, stores the account with groups and scopes', async () => {
    const prompts: DevicePrompt[] = [];
    let polls = 0;
    const account = await deviceSignIn(deps, 'outlook', {
      groups: ['mail', 'calendar'],
      label: 'work',
      prompt: (p) => prompts.push(p),
      sleep: async () => {
        // Approve after two pending answers, as a person typing the code would.
        if (++polls === 3) expect(sandbox.oauth.outlook.approve(prompts[0]!.userCode)).toBe(true);
      },
    });
    expect(prompts[0]!.verificationUri).toBe(`${sandbox.servers.outlook.url}/devicelogin`);
    expect(prompts[0]!.message).toContain(prompts[0]!.userCode);
    expect(polls).toBe(3);
    expect(account).toMatchObject({ provider: 'outlook', label: 'work', identity: 'avery@contoso.example', groups: ['mail', 'calendar'], status: 'active' });
    expect(account.meta).toMatchObject({ signIn: 'device', tenant: 'common' });
    expect(account.scopes.sort()).toEqual(['Calendars.ReadWrite', 'Mail.ReadWrite', 'Mail.Send', 'User.Read', 'offline_access'].sort());
    const device = sandbox.servers.outlook.requests.find((r) => r.path.endsWith('/devicecode'))!;
    expect(new URLSearchParams(device.rawBody.toString()).get('scope')).toBe('Mail.ReadWrite Mail.Send Calendars.ReadWrite offline_access User.Read');
    const { secret } = await store.accounts.resolve('outlook', 'work');
    expect(secret.kind).toBe('oauth');
    expect(secret.refreshToken).toBeTruthy();
    expect(secret.expiresAt! - Date.now()).toBeGreaterThan(3_500_000);
    expect(sandbox.states.outlook.tokens.has(secret.token!)).toBe(true);
  });

  it('GitHub: honours slow_down with the interval it names, and stores the granted scopes', async () => {
    sandbox.oauth.github.deviceIntervalSeconds = 2;
    sandbox.servers.github.once('POST /login/oauth/access_token', { status: 200, body: { error: 'slow_down', error_description: 'Too many requests', interval: 9 } });
    const waits: number[] = [];
    let code = '';
    const account = await deviceSignIn(deps, 'github', {
      prompt: (p) => (code = p.userCode),
      sleep: async (ms) => {
        waits.push(ms);
        if (waits.length === 2) sandbox.oauth.github.approve(code);
      },
    });
    expect(waits).toEqual([2000, 9000]);
    expect(account).toMatchObject({ provider: 'github', identity: 'sbx-octocat', groups: [] });
    expect(account.meta.signIn).toBe('device');
    const polls = sandbox.servers.github.requests.filter((r) => r.path === '/login/oauth/access_token');
    // The device grant carries no client secret.
    expect(new URLSearchParams(polls.at(-1)!.rawBody.toString()).get('client_secret')).toBeNull();
  });

  it('a declined sign-in stores nothing and says so', async () => {
    const error = await deviceSignIn(deps, 'github', {
      prompt: (p) => sandbox.oauth.github.approve(p.userCode, 'denied'),
      sleep: noSleep,
    }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(/declined/);
    expect(await store.accounts.list()).toEqual([]);
  });

  it('says which setting is missing when there is no client id, and refuses device sign-in for Vercel and sales', async () => {
    const none = { ...deps, oauth: { ...deps.oauth, outlook: { ...deps.oauth.outlook, clientId: undefined } } };
    await expect(deviceSignIn(none, 'outlook', { prompt: () => undefined, sleep: noSleep })).rejects.toThrow(/Set SWITCHBOARD_OUTLOOK_CLIENT_ID/);
    await expect(deviceSignIn(deps, 'vercel', { prompt: () => undefined, sleep: noSleep })).rejects.toThrow(/no device sign-in; use --browser/);
    await expect(deviceSignIn(deps, 'sales', { prompt: () => undefined, sleep: noSleep })).rejects.toThrow(/--api-key-stdin/);
  });

  it('signing in again with the same label reconnects the account in place', async () => {
    const first = await deviceSignIn(deps, 'outlook', { label: 'work', groups: ['mail'], prompt: (p) => sandbox.oauth.outlook.approve(p.userCode), sleep: noSleep });
    await store.accounts.setStatus(first.id, 'needs_reconnect');
    const again = await deviceSignIn(deps, 'outlook', { label: 'Work', prompt: (p) => sandbox.oauth.outlook.approve(p.userCode), sleep: noSleep });
    expect(again.id).toBe(first.id);
    expect(again.status).toBe('active');
    expect(again.groups).toEqual(['mail']);
    expect((await store.accounts.list()).length).toBe(1);
  });
});

describe('browser sign-in for the pop-up: beginSignIn / completeSignIn', () => {
  const redirectUri = 'http://127.0.0.1:8765/oauth/callback/outlook';

  it('sends PKCE S256 and a state, checks both, and stores the account', async () => {
    const signIn = createSignIn(deps);
    const { url, state } = await signIn.beginSignIn('outlook', { redirectUri, groups: ['contacts'], label: 'popup' });
    const u = new URL(url);
    expect(u.searchParams.get('code_challenge_method')).toBe('S256');
    expect(u.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(u.searchParams.get('state')).toBe(state);
    expect(u.searchParams.get('scope')).toBe('Contacts.ReadWrite offline_access User.Read');
    const back = await allow(url);
    expect(back.searchParams.get('state')).toBe(state);
    const account = await signIn.completeSignIn('outlook', { code: back.searchParams.get('code')!, state, redirectUri });
    expect(account).toMatchObject({ label: 'popup', groups: ['contacts'], identity: 'avery@contoso.example' });
    expect(account.meta.signIn).toBe('browser');
    const token = sandbox.servers.outlook.requests.find((r) => r.path.endsWith('/token'))!;
    const form = new URLSearchParams(token.rawBody.toString());
    expect(form.get('code_verifier')).toMatch(/^[\w-]{43,128}$/);
    expect(form.get('redirect_uri')).toBe(redirectUri);

    // The state works once.
    await expect(signIn.completeSignIn('outlook', { code: back.searchParams.get('code')!, state, redirectUri })).rejects.toThrow(/unknown, was already used/);
  });

  it('refuses an unknown state, another redirect URI, another provider and a state older than 10 minutes', async () => {
    let clock = Date.now();
    const signIn = createSignIn({ ...deps, now: () => clock });
    await expect(signIn.completeSignIn('outlook', { code: 'x', state: 'forged', redirectUri })).rejects.toThrow(InputError);
    const a = await signIn.beginSignIn('outlook', { redirectUri });
    await expect(signIn.completeSignIn('outlook', { code: 'x', state: a.state, redirectUri: 'http://127.0.0.1:1/oauth/callback/outlook' })).rejects.toThrow(/another address/);
    const b = await signIn.beginSignIn('outlook', { redirectUri });
    await expect(signIn.completeSignIn('github', { code: 'x', state: b.state, redirectUri })).rejects.toThrow(/unknown/);
    const c = await signIn.beginSignIn('outlook', { redirectUri });
    const back = await allow(c.url);
    clock += 10 * 60_000 + 1;
    await expect(signIn.completeSignIn('outlook', { code: back.searchParams.get('code')!, state: c.state, redirectUri })).rejects.toThrow(/older than 10 minutes/);
    expect(sandbox.oauth.outlook.grants.authorization_code).toBe(0);
    expect(await store.accounts.list()).toEqual([]);
  });

  it('at most 200 sign-ins wait at once; one more is refused until one finishes or expires', async () => {
    let clock = Date.now();
    const signIn = createSignIn({ ...deps, now: () => clock });
    const begun = [];
    for (let i = 0; i < 200; i++) begun.push(await signIn.beginSignIn('outlook', { redirectUri }));
    await expect(signIn.beginSignIn('outlook', { redirectUri })).rejects.toThrow(/Too many sign-ins are waiting to finish/);
    await expect(signIn.completeSignIn('outlook', { code: '', state: begun[0]!.state, redirectUri })).rejects.toThrow(/no authorization code/);
    await signIn.beginSignIn('outlook', { redirectUri });
    await expect(signIn.beginSignIn('outlook', { redirectUri })).rejects.toThrow(/Too many sign-ins/);
    clock += 10 * 60_000 + 1;
    await expect(signIn.beginSignIn('outlook', { redirectUri })).resolves.toHaveProperty('state');
  });

  it('GitHub sends the client secret with the code; Vercel stores the team and the integration sign-in', async () => {
    const signIn = createSignIn(deps);
    const gh = await signIn.beginSignIn('github', { redirectUri: 'http://127.0.0.1:8765/oauth/callback/github' });
    const ghBack = await allow(gh.url);
    const ghAccount = await signIn.completeSignIn('github', { code: ghBack.searchParams.get('code')!, state: gh.state, redirectUri: 'http://127.0.0.1:8765/oauth/callback/github' });
    expect(ghAccount.identity).toBe('sbx-octocat');
    const exchange = sandbox.servers.github.requests.find((r) => r.path === '/login/oauth/access_token')!;
    expect(new URLSearchParams(exchange.rawBody.toString()).get('client_secret')).toBe(sandbox.oauthSettings.github.clientSecret);
    const vcRedirect = 'http://127.0.0.1:8765/oauth/callback/vercel';
    const vc = await signIn.beginSignIn('vercel', { redirectUri: vcRedirect, label: 'deploys' });
    const vcBack = await allow(vc.url);
    const vcAccount = await signIn.completeSignIn('vercel', { code: vcBack.searchParams.get('code')!, state: vc.state, redirectUri: vcRedirect });
    expect(vcAccount).toMatchObject({ provider: 'vercel', label: 'deploys', identity: 'sbx-vercel' });
    const { secret } = await store.accounts.resolve('vercel', 'deploys');
    expect(secret).toMatchObject({ kind: 'oauth' });
    expect(secret.expiresAt).toBeUndefined();
  });

  it('a wrong client secret is reported as a configuration problem, without the secret or the code', async () => {
    const wrong = createSignIn({ ...deps, oauth: { ...deps.oauth, github: { ...deps.oauth.github, clientSecret: 'not-the-secret-0000' } } });
    const redirect = 'http://127.0.0.1:8765/oauth/callback/github';
    const { url, state } = await wrong.beginSignIn('github', { redirectUri: redirect });
    const code = (await allow(url)).searchParams.get('code')!;
    const error = (await wrong.completeSignIn('github', { code, state, redirectUri: redirect }).catch((e: Error) => e)) as Error;
    expect(error.message).toMatch(/GitHub's authorization server refused the request \(incorrect_client_credentials.*Check SWITCHBOARD_GITHUB_CLIENT_ID and SWITCHBOARD_GITHUB_CLIENT_SECRET/);
    expect(error.message).not.toContain('not-the-secret-0000');
    expect(error.message).not.toContain(code);
    expect(await store.accounts.list()).toEqual([]);
  });

  it('an unregistered redirect URI is refused by the provider before any consent', async () => {
    const signIn = createSignIn(deps);
    const { url } = await signIn.beginSignIn('outlook', { redirectUri: 'http://127.0.0.1:8765/elsewhere' });
    const page = await http('GET', url);
    expect(page.status).toBe(400);
    expect(page.body).toMatch(/not registered/);
  });
});

describe.each(ADAPTERS)('browser sign-in across instances on $name', (adapter) => {
  afterEach(cleanUp);

  it('a sign-in started on one instance finishes on another, once, however many callbacks race', async () => {
    const location = await adapter.location();
    const [one, two] = [await openAt(location, { secretKey: 'shared' }), await openAt(location, { secretKey: 'shared' })];
    const instance = (shared: typeof one) => createSignIn({ ...deps, store: shared });
    const redirectUri = 'http://127.0.0.1:8765/oauth/callback/github';
    const { url, state } = await instance(one).beginSignIn('github', { redirectUri, label: 'elsewhere' });
    const code = (await allow(url)).searchParams.get('code')!;
    const outcomes = await Promise.allSettled([two, one, two].map((shared) => instance(shared).completeSignIn('github', { code, state, redirectUri })));
    expect(outcomes.filter((o) => o.status === 'fulfilled').map((o) => (o as PromiseFulfilledResult<{ label: string }>).value.label)).toEqual(['elsewhere']);
    for (const o of outcomes.filter((o) => o.status === 'rejected')) expect(String((o as PromiseRejectedResult).reason)).toMatch(/unknown, was already used/);
    expect((await one.accounts.list()).map((a) => a.label)).toEqual(['elsewhere']);
    expect(sandbox.oauth.github.grants.authorization_code).toBe(1);
  });
});

describe('browser sign-in for the CLI: loopback redirect', () => {
  it('listens on 127.0.0.1, ignores an answer with another state, exchanges the code and closes', async () => {
    let opened = '';
    const done = loopbackSignIn(deps, 'github', {
      label: 'laptop',
      onUrl: (url) => (opened = url),
    });
    await expect.poll(() => opened).not.toBe('');
    const redirect = new URL(new URL(opened).searchParams.get('redirect_uri')!);
    expect(redirect.hostname).toBe('127.0.0.1');
    expect(redirect.pathname).toBe('/oauth/callback');
    const forged = await http('GET', `${redirect.href}?code=stolen&state=forged`);
    expect(forged.status).toBe(400);
    const back = await allow(opened);
    const landing = await http('GET', back.href);
    expect(landing.status).toBe(200);
    expect(landing.body).toMatch(/Connected github account &#34;laptop&#34;/);
    const account = await done;
    expect(account).toMatchObject({ label: 'laptop', identity: 'sbx-octocat' });
    expect(account.meta.signIn).toBe('browser');
    await expect(http('GET', back.href)).rejects.toThrow();
  });

  it('a cancelled consent ends the wait with the provider\'s error and stores nothing', async () => {
    let opened = '';
    const done = loopbackSignIn(deps, 'outlook', { onUrl: (url) => (opened = url) }).catch((e: Error) => e);
    await expect.poll(() => opened).not.toBe('');
    const back = await allow(opened, 'deny');
    expect((await http('GET', back.href)).status).toBe(400);
    const error = await done;
    expect((error as Error).message).toMatch(/did not sign you in: access_denied/);
    expect(await store.accounts.list()).toEqual([]);
  });
});
