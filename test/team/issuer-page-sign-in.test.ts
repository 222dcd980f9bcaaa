import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { cleanUp, sqlite } from '../store/adapters.js';
import { launchBrowser } from '../support/browser.js';
import { registerClient, startTestIssuer, type TestIssuer } from './oidc-issuer.js';
import { freePort, startTeamServer, type TeamServer } from './team.js';

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let sandbox: Sandbox;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  [browser, sandbox] = await Promise.all([launchBrowser(), startSandbox()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), sandbox?.close()]);
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  await cleanUp();
});

const PEOPLE = { ada: { email: 'ada@example.com' }, mallory: { email: 'mallory@elsewhere.example' } };
const CALLBACK = '/oauth/callback/oidc/sign-in';

/** A team server whose people sign in at a test issuer, where Switchboard's own client is registered first (public, or confidential). */
async function start(o: { client?: 'public' | 'confidential' } = {}): Promise<{ server: TeamServer; issuer: TestIssuer }> {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const issuer = await startTestIssuer({ people: PEOPLE, resource: `${publicUrl}/mcp` });
  closers.push(() => issuer.close());
  const env: Record<string, string> = { SWITCHBOARD_TEAM_ISSUER: issuer.url, SWITCHBOARD_TEAM_ALLOW: '@example.com' };
  if (o.client) {
    const registered = await registerClient(issuer.url, `${publicUrl}${CALLBACK}`, o.client === 'confidential');
    env.SWITCHBOARD_TEAM_CLIENT_ID = registered.client_id;
    if (registered.client_secret) env.SWITCHBOARD_TEAM_CLIENT_SECRET = registered.client_secret;
  }
  const server = await startTeamServer({ sandbox, location: await sqlite.location(), port, env });
  closers.push(() => server.close());
  return { server, issuer };
}

const onServer = (server: TeamServer) => (url: URL) => url.origin === new URL(server.url).origin;

/** A fresh browser opens the page, follows its sign-in link to the issuer, signs in there as `login` and allows Switchboard. */
async function openSignIn(server: TeamServer, issuer: TestIssuer, login: string): Promise<Page & { authorization: URL }> {
  await browser.context.clearCookies();
  const page = await browser.context.newPage();
  closers.push(() => page.close());
  await page.goto(server.url);
  const authorization = page.waitForRequest((r) => r.url().startsWith(`${issuer.url}/auth?`));
  await page.getByRole('link', { name: `Sign in with ${new URL(issuer.url).host}` }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).waitFor();
  return Object.assign(page, { authorization: new URL((await authorization).url()) });
}

/** Allows Switchboard at the issuer, and waits for the page the browser lands on back at Switchboard. */
async function allow(page: Page, server: TeamServer): Promise<Page> {
  const landed = page.waitForURL(onServer(server));
  await page.getByRole('button', { name: 'Continue' }).click();
  await landed;
  return page;
}

describe('the Integrations page with an external issuer', () => {
  it('signs a person in at the issuer (public client, PKCE) and shows their own accounts, not another person\'s', async () => {
    const { server, issuer } = await start({ client: 'public' });
    const { store } = server.runtime.deps;
    const ada = await store.team.users.signIn({ provider: 'oidc', subject: `${issuer.url}#ada`, login: 'ada@example.com', email: 'ada@example.com' });
    const bob = await store.team.users.signIn({ provider: 'oidc', subject: `${issuer.url}#bob`, login: 'bob@example.com', email: 'bob@example.com' });
    await store.ownedBy(ada.id).accounts.add({ provider: 'github', label: 'ada-work', secret: { kind: 'token', token: 'ghp_ada_page_token' } });
    await store.ownedBy(bob.id).accounts.add({ provider: 'github', label: 'bob-private', secret: { kind: 'token', token: 'ghp_bob_page_token' } });

    const started = await openSignIn(server, issuer, 'ada');
    const asked = Object.fromEntries(started.authorization.searchParams);
    expect(asked).toMatchObject({ response_type: 'code', scope: 'openid email profile', redirect_uri: `${server.url}${CALLBACK}`, code_challenge_method: 'S256' });
    expect(Object.keys(asked).sort()).toEqual(['client_id', 'code_challenge', 'code_challenge_method', 'nonce', 'redirect_uri', 'response_type', 'scope', 'state']);
    const page = await allow(started, server);
    expect(new URL(page.url()).pathname).toBe('/');
    await expect.poll(() => page.locator('#main').textContent()).toContain('ada-work');
    const shown = await page.content();
    expect(shown).not.toContain('bob-private');
    expect(shown).not.toContain('ghp_ada_page_token');
    await page.getByRole('button', { name: /Sign out/ }).waitFor();

    // The same person as their access tokens name: kept by issuer and sub, not made again.
    expect(await store.team.users.list()).toEqual(expect.arrayContaining([expect.objectContaining({ id: ada.id, provider: 'oidc', subject: `${issuer.url}#ada` })]));
    expect(await store.team.users.list()).toHaveLength(2);
    expect(server.logs.join('')).toContain('"pageSignIn":"oidc"');
    expect(issuer.requests).toContain('/token');

    await store.team.users.setDisabled(ada.id, true);
    const again = await allow(await openSignIn(server, issuer, 'ada'), server);
    expect(new URL(again.url()).pathname).toBe(CALLBACK);
    expect(await again.locator('h1').textContent()).toBe('Not signed in');
    expect(await again.locator('p').textContent()).toBe("ada@example.com's access to this Switchboard is disabled; ask an admin.");
  });

  it('refuses a person the rules do not allow (confidential client)', async () => {
    const { server, issuer } = await start({ client: 'confidential' });
    const page = await allow(await openSignIn(server, issuer, 'mallory'), server);
    expect(new URL(page.url()).pathname).toBe(CALLBACK);
    expect(await page.locator('p').textContent()).toBe('mallory@elsewhere.example may not sign in to this Switchboard; ask its operator to add them to SWITCHBOARD_TEAM_ALLOW.');
    expect(await server.runtime.deps.store.team.users.list()).toEqual([]);
    // No session: the page still asks to sign in.
    await page.goto(server.url);
    await page.getByRole('link', { name: `Sign in with ${new URL(issuer.url).host}` }).waitFor();
  });

  it("finishes the issuer's redirect only with its state, in the browser that started it, and once", async () => {
    const { server, issuer } = await start({ client: 'public' });
    const page = await openSignIn(server, issuer, 'ada');
    const [started] = (await browser.context.cookies(`${server.url}${CALLBACK}`)).filter((c) => c.name === 'sb_team_sign_in');
    expect(started?.path).toBe('/oauth/callback/');
    const cookie = `${started!.name}=${started!.value}`;

    const forged = await fetch(`${server.url}${CALLBACK}?code=any&state=forged-state`, { headers: { cookie }, redirect: 'manual' });
    expect(forged.status).toBe(404);
    expect(await forged.text()).toContain('This sign-in is unknown, was already used, or is older than 10 minutes.');

    // Another browser is one without the cookie this sign-in set.
    await browser.context.clearCookies({ name: 'sb_team_sign_in' });
    await allow(page, server);
    const back = new URL(page.url());
    expect(back.pathname).toBe(CALLBACK);
    expect(back.searchParams.get('code')).toBeTruthy();
    expect(await page.locator('h1').textContent()).toBe('Sign-in from another browser');

    const replayed = await fetch(back, { headers: { cookie }, redirect: 'manual' });
    expect(replayed.status).toBe(404);
    expect(await server.runtime.deps.store.team.users.list()).toEqual([]);
  });

  it('without SWITCHBOARD_TEAM_CLIENT_ID offers no sign-in and says how to enable it', async () => {
    const { server } = await start();
    const login = await fetch(server.url);
    expect(login.status).toBe(401);
    const text = await login.text();
    expect(text).toContain(`registers one there with redirect URI ${server.url}${CALLBACK} and sets SWITCHBOARD_TEAM_CLIENT_ID`);
    expect(text).not.toContain('/auth/page/');
    expect((await fetch(`${server.url}/auth/page/oidc`)).status).toBe(404);
  });
});

describe("Switchboard's client at the issuer", () => {
  const TEAM = { SWITCHBOARD_TEAM: '1', SWITCHBOARD_PUBLIC_URL: 'https://switchboard.example.com', SWITCHBOARD_TEAM_ALLOW: '@example.com' };
  const ISSUER = { SWITCHBOARD_TEAM_ISSUER: 'https://login.example.com/realms/team' };

  it('reads the client id, and the secret of a confidential client', () => {
    expect(loadConfig({ ...TEAM, ...ISSUER, SWITCHBOARD_TEAM_CLIENT_ID: ' switchboard ' }).team?.external).toEqual({ ...{ issuer: ISSUER.SWITCHBOARD_TEAM_ISSUER }, clientId: 'switchboard' });
    expect(loadConfig({ ...TEAM, ...ISSUER, SWITCHBOARD_TEAM_CLIENT_ID: 'switchboard', SWITCHBOARD_TEAM_CLIENT_SECRET: 's3cret-value' }).team?.external).toEqual({
      issuer: ISSUER.SWITCHBOARD_TEAM_ISSUER,
      clientId: 'switchboard',
      clientSecret: 's3cret-value',
    });
  });

  it.each([
    [{ SWITCHBOARD_TEAM_CLIENT_ID: 'switchboard' }, /^SWITCHBOARD_TEAM_CLIENT_ID goes with SWITCHBOARD_TEAM_ISSUER/],
    [{ SWITCHBOARD_TEAM_CLIENT_SECRET: 's3cret-value' }, /^SWITCHBOARD_TEAM_CLIENT_SECRET goes with SWITCHBOARD_TEAM_ISSUER/],
    [{ ...ISSUER, SWITCHBOARD_TEAM_CLIENT_SECRET: 's3cret-value' }, /^SWITCHBOARD_TEAM_CLIENT_SECRET goes with SWITCHBOARD_TEAM_CLIENT_ID: set the client id/],
    [{ ...ISSUER, SWITCHBOARD_TEAM_CLIENT_ID: 'switch board' }, /^SWITCHBOARD_TEAM_CLIENT_ID must be one value without spaces/],
  ])('refuses an unusable setting, naming it and never the secret (%#)', (env, message) => {
    const refusal = (() => {
      try {
        loadConfig({ ...TEAM, ...env });
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(refusal).toMatch(message);
    expect(refusal).not.toContain('s3cret-value');
  });
});
