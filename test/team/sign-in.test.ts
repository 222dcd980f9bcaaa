import { auth, type Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { flushAudit } from '../../src/governance/audit-trail.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ADAPTERS, cleanUp, postgresAdapter, sqlite } from '../store/adapters.js';
import { launchBrowser } from '../support/browser.js';
import { connect, INITIALIZE, post, signIn, signInInBrowser, startCallbackServer, startTeamServer, TestOAuthClient, type TeamServer } from './team.js';

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let callback: Awaited<ReturnType<typeof startCallbackServer>>;
let sandbox: Sandbox;
let server: TeamServer | undefined;
const clients: Client[] = [];

beforeAll(async () => {
  [browser, callback, sandbox] = await Promise.all([launchBrowser(), startCallbackServer(), startSandbox()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), callback?.close(), sandbox?.close()]);
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await server?.close();
  server = undefined;
  sandbox.states.github.login = 'sbx-octocat';
  await cleanUp();
});

const refreshWith = (url: string, oauth: TestOAuthClient, refreshToken: string) =>
  fetch(`${url}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: oauth.client!.client_id }),
  });

describe.each(ADAPTERS)('team sign-in on $name', (adapter) => {
  it('registers a client, signs people in with GitHub and Microsoft, serves their calls, and refreshes with rotation', async () => {
    server = await startTeamServer({ sandbox, location: await adapter.location() });
    const octocat = await signIn(browser.context, server.url, 'GitHub', new TestOAuthClient(callback.url));
    expect(octocat.client?.client_id).toBeTruthy();
    expect(octocat.saved).toMatchObject({ token_type: expect.stringMatching(/bearer/i), scope: expect.stringContaining('switchboard') });
    const client = await connect(server.url, octocat);
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('github_create_issue');
    expect((await client.callTool({ name: 'accounts_list', arguments: {} })).isError).toBeFalsy();

    const avery = await signIn(browser.context, server.url, 'Microsoft', new TestOAuthClient(callback.url));
    expect(avery.saved?.access_token).not.toBe(octocat.saved?.access_token);
    const users = await server.runtime.deps.store.team.users.list();
    expect(users).toEqual([
      expect.objectContaining({ provider: 'github', subject: '1001', login: 'sbx-octocat', email: 'octocat@sbx.example', role: 'admin', disabled: false }),
      expect.objectContaining({ provider: 'outlook', login: 'avery@contoso.example', email: 'avery@contoso.example', role: 'member' }),
    ]);

    // Refresh: a new access token and a new refresh token; the old refresh token is spent.
    const before = octocat.saved!;
    expect(await auth(octocat, { serverUrl: new URL(`${server.url}/mcp`) })).toBe('AUTHORIZED');
    expect(octocat.saved!.access_token).not.toBe(before.access_token);
    expect(octocat.saved!.refresh_token).toBeTruthy();
    expect(octocat.saved!.refresh_token).not.toBe(before.refresh_token);
    expect((await post(server.url, INITIALIZE, octocat.saved!.access_token)).status).toBe(200);
    const replayed = await refreshWith(server.url, octocat, before.refresh_token!);
    expect(replayed.status).toBe(400);
    expect(await replayed.json()).toMatchObject({ error: 'invalid_grant' });
    // A spent refresh token presented again revokes its grant: whoever holds the rotated tokens must sign in again.
    expect((await post(server.url, INITIALIZE, octocat.saved!.access_token)).status).toBe(401);
    expect((await refreshWith(server.url, octocat, octocat.saved!.refresh_token!)).status).toBe(400);
    // The other person's tokens are untouched.
    expect((await post(server.url, INITIALIZE, avery.saved!.access_token)).status).toBe(200);
  });

  it("ends a disabled person's tokens, refresh included, for good, and refuses their next sign-in", async () => {
    const location = await adapter.location();
    server = await startTeamServer({ sandbox, location });
    const oauth = await signIn(browser.context, server.url, 'GitHub', new TestOAuthClient(callback.url));
    const avery = await signIn(browser.context, server.url, 'Microsoft', new TestOAuthClient(callback.url));
    const [user] = await server.runtime.deps.store.team.users.list();
    await server.runtime.deps.store.team.users.setDisabled(user!.id, true);
    const refused = await post(server.url, INITIALIZE, oauth.saved!.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');

    // Enabled again, the person signs in anew: the tokens they held before stay refused, the refresh token too.
    await server.runtime.deps.store.team.users.setDisabled(user!.id, false);
    expect((await post(server.url, INITIALIZE, oauth.saved!.access_token)).status).toBe(401);
    const refresh = await refreshWith(server.url, oauth, oauth.saved!.refresh_token!);
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
    // Someone else's tokens are untouched.
    expect((await post(server.url, INITIALIZE, avery.saved!.access_token)).status).toBe(200);
    expect((await refreshWith(server.url, avery, avery.saved!.refresh_token!)).status).toBe(200);

    await server.runtime.deps.store.team.users.setDisabled(user!.id, true);

    const again = new TestOAuthClient(callback.url);
    await expect(connect(server.url, again)).rejects.toThrow();
    const params = await signInInBrowser(browser.context, again.authorizationUrl!, 'GitHub', callback.url);
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('error_description')).toMatch(/sbx-octocat's access to this Switchboard is disabled/);
  });
});

describe('who may sign in', () => {
  it('admits members of an allowed GitHub organization, refuses everyone else, and takes admins from SWITCHBOARD_TEAM_ADMINS', async () => {
    server = await startTeamServer({ sandbox, location: await sqlite.location(), env: { SWITCHBOARD_TEAM_ALLOW: 'github-org:sbx-org', SWITCHBOARD_TEAM_ADMINS: 'monalisa@sbx.example' } });
    // sbx-octocat is a member of sbx-org, and signs in first, but is not named an admin.
    await signIn(browser.context, server.url, 'GitHub', new TestOAuthClient(callback.url));
    sandbox.states.github.login = 'sbx-monalisa';
    await signIn(browser.context, server.url, 'GitHub', new TestOAuthClient(callback.url));
    expect((await server.runtime.deps.store.team.users.list()).map((u) => [u.login, u.role])).toEqual([
      ['sbx-octocat', 'member'],
      ['sbx-monalisa', 'admin'],
    ]);

    sandbox.states.github.login = 'sbx-hubot';
    const stranger = new TestOAuthClient(callback.url);
    await expect(connect(server.url, stranger)).rejects.toThrow();
    const params = await signInInBrowser(browser.context, stranger.authorizationUrl!, 'GitHub', callback.url);
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('error_description')).toContain('hubot@sbx.example may not sign in to this Switchboard');
    expect(await server.runtime.deps.store.team.users.list()).toHaveLength(2);
    // Each sign-in, and the refused one, is in the audit trail: who, never an address.
    const [octocat, monalisa] = await server.runtime.deps.store.team.users.list();
    await flushAudit(server.runtime.deps.audit);
    const signIns = (await server.runtime.deps.store.audit.list()).filter((r) => r.action.startsWith('signin')).reverse();
    expect(signIns.map((r) => [r.action, r.owner, r.target, r.outcome, r.auth])).toEqual([
      ['signin', octocat!.id, 'github sbx-octocat', 'ok', 'oauth'],
      ['signin', monalisa!.id, 'github sbx-monalisa', 'ok', 'oauth'],
      ['signin.refused', '', 'github sbx-hubot', 'refused', 'oauth'],
    ]);
    expect(JSON.stringify(signIns)).not.toContain('@sbx.example');
  });

  it("finishes a provider's redirect only in the browser that started the sign-in", async () => {
    server = await startTeamServer({ sandbox, location: await sqlite.location() });
    const oauth = new TestOAuthClient(callback.url);
    await expect(connect(server.url, oauth)).rejects.toThrow();
    const page = await browser.context.newPage();
    await page.goto(oauth.authorizationUrl!.href);
    await page.getByRole('link', { name: 'Continue with GitHub' }).click();
    // The sandbox's consent page: its form would send this browser back to the callback. Another browser (no cookies) follows it instead.
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    const form = await page.locator('form').evaluate((f: HTMLFormElement) => ({ action: f.action, request: (f.elements.namedItem('request') as HTMLInputElement).value }));
    await page.close();
    const allowed = await fetch(form.action, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ request: form.request, decision: 'allow' }) });
    const back = await fetch(allowed.headers.get('location')!, { redirect: 'manual' });
    expect(back.status).toBe(403);
    expect(await back.text()).toContain('started in another browser');
    expect(await server.runtime.deps.store.team.users.list()).toEqual([]);
  });
});

describe('several instances on one database', () => {
  it('share the sign-in, the tokens and the keys: a sign-in shown by one finishes on the other, and each takes the other\'s tokens', async () => {
    const location = await postgresAdapter.location();
    server = await startTeamServer({ sandbox, location });
    const other = await startTeamServer({ sandbox, location, publicUrl: server.url });
    try {
      const oauth = new TestOAuthClient(callback.url);
      await expect(connect(server.url, oauth)).rejects.toThrow();
      const page = await browser.context.newPage();
      // The authorization request reaches the first instance; the person's browser then talks to the second.
      await page.goto(oauth.authorizationUrl!.href);
      const interaction = new URL(page.url());
      expect(interaction.pathname).toMatch(/^\/auth\/interaction\//);
      const landed = page.waitForURL((url) => url.href.startsWith(callback.url));
      await page.goto(`${other.url}${interaction.pathname}`);
      await page.getByRole('link', { name: 'Continue with GitHub' }).click();
      await page.getByRole('button', { name: 'Allow' }).click();
      await landed;
      const params = new URL(page.url()).searchParams;
      await page.close();
      expect(await auth(oauth, { serverUrl: new URL(`${server.url}/mcp`), authorizationCode: params.get('code')!, iss: params.get('iss') ?? undefined })).toBe('AUTHORIZED');

      expect((await post(other.url, INITIALIZE, oauth.saved!.access_token)).status).toBe(200);
      const refreshed = await refreshWith(other.url, oauth, oauth.saved!.refresh_token!);
      expect(refreshed.status).toBe(200);
      const { access_token } = (await refreshed.json()) as { access_token: string };
      expect((await post(server.url, INITIALIZE, access_token)).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});
