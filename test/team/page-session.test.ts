import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { issuePageTicket } from '../../src/web/page-ticket.js';
import { ADAPTERS, cleanUp, sqlite, type Adapter } from '../store/adapters.js';
import { launchBrowser } from '../support/browser.js';
import { pageSession, startTeamServer, type TeamServer } from './team.js';

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

async function start(adapter: Adapter): Promise<{ server: TeamServer; adapter: Adapter; location: Awaited<ReturnType<Adapter['location']>> }> {
  const location = await adapter.location();
  const server = await startTeamServer({ sandbox, location });
  closers.push(() => server.close());
  return { server, adapter, location };
}

describe.each(ADAPTERS)('a disabled person on the Integrations page on $name', (adapter) => {
  it('loses their page sessions when disabled, and they stay ended when enabled again', async () => {
    const { server } = await start(adapter);
    const { store } = server.runtime.deps;
    const ada = await store.team.users.signIn({ provider: 'github', subject: 'ada-1', login: 'ada', email: 'ada@contoso.example' });
    const bob = await store.team.users.signIn({ provider: 'github', subject: 'bob-1', login: 'bob', email: 'bob@contoso.example' });
    await store.ownedBy(ada.id).accounts.add({ provider: 'github', label: 'ada-work', secret: { kind: 'token', token: 'ghp_ada_page_token' } });
    const adaPage = await pageSession(server, store, ada);
    const bobPage = await pageSession(server, store, bob);
    expect(adaPage.page).toContain('ada-work');

    await store.team.users.setDisabled(ada.id, true);
    const refused = await adaPage.get('/');
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain('Sign in to see your accounts');
    await store.team.users.setDisabled(ada.id, false);
    expect((await adaPage.get('/')).status).toBe(401);
    expect((await adaPage.post('/accounts/rename', { id: 'any', label: 'x' })).status).toBe(403);
    expect((await bobPage.get('/')).status).toBe(200);
  });

  it("refuses a session whose person is disabled even where disabling did not end it, and ends it then", async () => {
    const { server, location } = await start(adapter);
    const { store } = server.runtime.deps;
    const ada = await store.team.users.signIn({ provider: 'github', subject: 'ada-1', login: 'ada', email: 'ada@contoso.example' });
    const account = await store.ownedBy(ada.id).accounts.add({ provider: 'github', label: 'ada-work', secret: { kind: 'token', token: 'ghp_ada_page_token' } });
    const page = await pageSession(server, store, ada);
    // Disabled in the database behind the store's back: the session row is still there.
    const flip = () => adapter.raw(location, 'UPDATE team_users SET disabled = NOT disabled WHERE id = ?', ada.id);
    await flip();
    expect(await adapter.raw(location, 'SELECT owner FROM web_sessions WHERE owner = ?', ada.id)).toHaveLength(1);

    expect((await page.get('/')).status).toBe(401);
    const posted = await page.post('/accounts/rename', { id: account.id, label: 'renamed' });
    expect(posted.status).toBe(403);
    expect(await posted.text()).toBe('Forbidden: sign in first.');
    expect((await page.get('/events/stream?after=0')).status).toBe(401);
    expect(await store.ownedBy(ada.id).accounts.find(account.id)).toMatchObject({ label: 'ada-work' });

    await flip();
    expect((await page.get('/')).status).toBe(401);
    expect(await adapter.raw(location, 'SELECT owner FROM web_sessions WHERE owner = ?', ada.id)).toEqual([]);
  });
});

describe("the page's sign-in ticket", () => {
  it('signs a person in only in the browser that signed in: sent to another browser it is refused, signs no one in, and is spent', async () => {
    const { server } = await start(sqlite);
    const { store } = server.runtime.deps;
    const port = new URL(server.url).port;
    const sessionCookies = async () => (await browser.context.cookies(server.url)).filter((c) => c.name === `switchboard_session_${port}`);

    // The sender signs in with GitHub, but keeps the last redirect (the ticket) instead of following it.
    await browser.context.clearCookies();
    const sender = await browser.context.newPage();
    await sender.goto(server.url);
    await sender.getByRole('link', { name: 'Sign in with GitHub' }).click();
    await sender.getByRole('button', { name: 'Allow' }).waitFor();
    const form = await sender.locator('form').evaluate((f: HTMLFormElement) => ({ action: f.action, request: (f.elements.namedItem('request') as HTMLInputElement).value }));
    const started = (await browser.context.cookies(server.url + '/oauth/callback/')).find((c) => c.name === 'sb_team_sign_in')!;
    await sender.close();
    const allowed = await fetch(form.action, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ request: form.request, decision: 'allow' }) });
    const back = await fetch(allowed.headers.get('location')!, { redirect: 'manual', headers: { cookie: `${started.name}=${started.value}` } });
    expect(back.status).toBe(303);
    const ticket = new URL(back.headers.get('location')!, server.url);
    expect(ticket.pathname).toBe('/login/team');
    const bound = back.headers.getSetCookie().find((c) => c.startsWith('sb_team_page='))!;
    expect(bound).toMatch(/; Path=\/login\/team; HttpOnly; SameSite=Lax$/);

    // The colleague opens the link in their own browser.
    await browser.context.clearCookies();
    const colleague = await browser.context.newPage();
    closers.push(() => colleague.close());
    const opened = await colleague.goto(ticket.href);
    expect(opened!.status()).toBe(403);
    expect(await colleague.locator('main').textContent()).toContain('This sign-in link belongs to the browser that signed in, and works only there.');
    expect(await sessionCookies()).toEqual([]);
    await colleague.goto(server.url);
    await colleague.getByRole('link', { name: 'Sign in with GitHub' }).waitFor();
    expect(await sessionCookies()).toEqual([]);

    // Spent: the sender's own browser cannot use it afterwards either.
    const late = await fetch(ticket, { redirect: 'manual', headers: { cookie: bound.split(';')[0]! } });
    expect(late.status).toBe(403);
    expect(await late.text()).toContain('This sign-in is unknown, used, expired or no longer allowed.');
    expect(late.headers.getSetCookie().some((c) => c.startsWith('switchboard_session_'))).toBe(false);

    // A cookie of another sign-in does not fit either.
    const [person] = await store.team.users.list();
    const first = await issuePageTicket(store, person!.id, false);
    const second = await issuePageTicket(store, person!.id, false);
    const crossed = await fetch(`${server.url}${first.location}`, { redirect: 'manual', headers: { cookie: second.cookie.split(';')[0]! } });
    expect(crossed.status).toBe(403);
    expect(await crossed.text()).toContain('works only there');

    // The whole sign-in in one browser lands on the page, signed in.
    await colleague.getByRole('link', { name: 'Sign in with GitHub' }).click();
    await colleague.getByRole('button', { name: 'Allow' }).click();
    await colleague.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(new URL(colleague.url()).pathname).toBe('/');
    expect(await sessionCookies()).toHaveLength(1);
  });
});
