import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { startWebServer, type WebServer } from './server.js';

/** A page view over plain HTTP: its session cookie and CSRF token. */
async function view(base: string, headers: Record<string, string> = {}): Promise<{ cookie: string; csrf: string; status: number; body: string }> {
  const res = await fetch(`${base}/`, { headers });
  const body = await res.text();
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
  return { cookie, csrf, status: res.status, body };
}

function post(base: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields),
  });
}

describe('Integrations page security (loopback, no token)', () => {
  let server: WebServer;
  beforeAll(async () => {
    server = await startWebServer();
  });
  afterAll(async () => server?.close());

  it('refuses a forged form post without the CSRF token, and changes nothing', async () => {
    const { cookie, csrf } = await view(server.url);
    expect(cookie).toMatch(/^switchboard_session_\d+=/);
    expect(csrf.length).toBeGreaterThan(20);
    const github = (await server.store.accounts.list({ provider: 'github' }))[0]!;
    const attempts = [
      { fields: { id: github.id, label: 'forged' }, headers: { cookie } },
      { fields: { id: github.id, label: 'forged', csrf: 'not-the-token' }, headers: { cookie } },
      { fields: { id: github.id, label: 'forged', csrf }, headers: {} },
      { fields: { id: github.id, label: 'forged', csrf }, headers: { cookie, origin: 'http://evil.example' } },
      { fields: { id: github.id, label: 'forged', csrf }, headers: { cookie, 'sec-fetch-site': 'cross-site' } },
    ];
    for (const a of attempts) {
      const res = await post(server.url, '/accounts/rename', a.fields, a.headers);
      expect(res.status, JSON.stringify(a)).toBe(403);
    }
    const removal = await post(server.url, '/accounts/remove', { id: github.id, confirm: 'yes' }, { cookie });
    expect(removal.status).toBe(403);
    expect(await removal.text()).toContain('CSRF');
    expect((await server.store.accounts.find(github.id))?.label).toBe(github.label);

    // The same post with the session's token goes through: the refusals above were the token's doing.
    const ok = await post(server.url, '/accounts/rename', { id: github.id, label: 'renamed', csrf }, { cookie });
    expect(ok.status).toBe(303);
    expect((await server.store.accounts.find(github.id))?.label).toBe('renamed');
  });

  it('sends a test event only with the CSRF token, from this page', async () => {
    const { cookie, csrf } = await view(server.url);
    const github = (await server.store.accounts.list({ provider: 'github' }))[0]!;
    const trigger = await server.store.triggers.create({ kind: 'github.new_star', accountId: github.id, config: { repo: 'sbx-octocat/hello-world' } });
    const before = await server.store.events.lastId();
    for (const [fields, headers] of [
      [{ id: trigger.id }, { cookie }],
      [{ id: trigger.id, csrf }, {}],
      [{ id: trigger.id, csrf }, { cookie, origin: 'http://evil.example' }],
    ] as const) {
      expect((await post(server.url, '/triggers/test', fields, headers)).status).toBe(403);
    }
    expect(await server.store.events.lastId()).toBe(before);
    expect((await post(server.url, '/triggers/test', { id: trigger.id, csrf }, { cookie })).status).toBe(303);
    const [event] = await server.store.events.after(before, { limit: 5 });
    expect(event?.payload.test).toBe(true);
    await server.store.triggers.remove(trigger.id);
  });

  it('removes an account only with the confirmation field', async () => {
    const { cookie, csrf } = await view(server.url);
    const vercel = (await server.store.accounts.list({ provider: 'vercel' }))[0]!;
    const res = await post(server.url, '/accounts/remove', { id: vercel.id, csrf }, { cookie });
    expect(res.status).toBe(303);
    expect(await server.store.accounts.find(vercel.id)).toBeDefined();
  });

  it('answers 404 for other paths and leaves /healthz to the listener', async () => {
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/accounts/remove?id=acc_missing`)).status).toBe(404);
  });

  it('escapes provider and user text in the page', async () => {
    const { cookie, csrf } = await view(server.url);
    const sales = (await server.store.accounts.list({ provider: 'sales' }))[0]!;
    const res = await post(server.url, '/accounts/rename', { id: sales.id, label: '<img src=x onerror=alert(1)>"', csrf }, { cookie });
    expect(res.status).toBe(303);
    const { body } = await view(server.url, { cookie });
    expect(body).not.toContain('<img src=x');
    expect(body).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;');
  });
});

describe('Integrations page behind SWITCHBOARD_HTTP_TOKEN', () => {
  const TOKEN = 'web-http-token-0123456789abcdef';
  let server: WebServer;
  beforeAll(async () => {
    server = await startWebServer({ token: TOKEN });
  });
  afterAll(async () => server?.close());

  it('asks for the token, and the page answers only to a logged-in session or the bearer token', async () => {
    const first = await view(server.url);
    expect(first.status).toBe(401);
    expect(first.body).toContain('name="token"');
    expect(first.body).not.toContain('Connected accounts');

    const wrong = await post(server.url, '/login', { token: 'wrong', csrf: first.csrf }, { cookie: first.cookie });
    expect(wrong.status).toBe(401);
    const noCsrf = await post(server.url, '/login', { token: TOKEN }, { cookie: first.cookie });
    expect(noCsrf.status).toBe(403);
    // Not logged in yet: a form post with the pre-login CSRF token changes nothing.
    const github = (await server.store.accounts.list({ provider: 'github' }))[0]!;
    expect((await post(server.url, '/accounts/default', { id: github.id, csrf: first.csrf }, { cookie: first.cookie })).status).toBe(403);

    const login = await post(server.url, '/login', { token: TOKEN, csrf: first.csrf }, { cookie: first.cookie });
    expect(login.status).toBe(303);
    const setCookie = login.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const cookie = setCookie.split(';')[0]!;
    expect(cookie).not.toBe(first.cookie);
    const page = await view(server.url, { cookie });
    expect(page.status).toBe(200);
    expect(page.body).toContain('Connected accounts');
    expect(page.body).not.toContain(TOKEN);
    // The pre-login session id is worth nothing after the login.
    expect((await view(server.url, { cookie: first.cookie })).status).toBe(401);

    const bearer = await fetch(`${server.url}/`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(bearer.status).toBe(200);
  });

  it('streams events only to a logged-in session or the bearer token', async () => {
    const stream = (headers: Record<string, string>) => fetch(`${server.url}/events/stream`, { headers, signal: AbortSignal.timeout(5_000) });
    const anonymous = await stream({});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain('event:');
    const first = await view(server.url);
    expect((await stream({ cookie: first.cookie })).status).toBe(401);
    const login = await post(server.url, '/login', { token: TOKEN, csrf: first.csrf }, { cookie: first.cookie });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    for (const headers of [{ cookie }, { authorization: `Bearer ${TOKEN}` }] as Array<Record<string, string>>) {
      const res = await stream(headers);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      await res.body!.cancel();
    }
  });

  it('logs in through the form in a browser', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      const first = await page.goto(`${server.url}/`);
      expect(first?.status()).toBe(401);
      await page.locator('input[name=token]').fill('not it');
      await page.getByRole('button', { name: 'Sign in' }).click();
      expect(await page.locator('#login-error').textContent()).toContain('not right');
      await page.locator('input[name=token]').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForSelector('#accounts');
      expect(await page.locator('h1').textContent()).toBe('Integrations & API Keys');
      expect(await page.content()).not.toContain(TOKEN);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForSelector('input[name=token]');
    } finally {
      await browser.close();
    }
  });
});

describe('Integrations page without pop-up sign-in', () => {
  let server: WebServer;
  beforeAll(async () => {
    server = await startWebServer({ signIn: async () => undefined });
  });
  afterAll(async () => server?.close());

  it('renders the sign-in buttons disabled with a note, and the sign-in route answers 503 with a clear message', async () => {
    const { cookie, csrf, body } = await view(server.url);
    expect(body).toContain('Pop-up sign-in is not available');
    expect(body).toMatch(/<button type="submit" disabled>Sign in with Microsoft Outlook<\/button>/);
    const res = await post(server.url, '/signin/outlook', { csrf, groups: 'mail' }, { cookie });
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('Pop-up sign-in is not available');
    const callback = await fetch(`${server.url}/oauth/callback/outlook?code=a&state=b`);
    expect(callback.status).toBe(503);
  });
});
