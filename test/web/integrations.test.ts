import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverEmail } from '../../src/sandbox/index.js';
import { usePages } from '../support/browser.js';
import { startWebServer, type WebServer } from './server.js';

let server: WebServer;
let page: Page;

beforeAll(async () => {
  server = await startWebServer();
});
afterAll(async () => {
  await server?.close();
});
const browser = usePages((p) => (page = p));

const open = async () => {
  const response = await page.goto(`${server.url}/`);
  expect(response?.status()).toBe(200);
  return response!;
};
const notice = () => page.locator('#notice p').textContent();
const row = (provider: string, label: string) => page.locator(`ul[data-provider="${provider}"] li[data-label="${label}"]`);

describe('Integrations & API Keys page in a browser', () => {
  it('adds a sales API key through the form, checked with the provider, and lists it', async () => {
    const key = 'sk-web-sales-key-0002';
    server.sandbox.states.sales.apiKeys.add(key);
    await open();
    const form = page.locator('#add-sales');
    await form.locator('input[name=secret]').fill(key);
    await form.locator('input[name=label]').fill('prospecting');
    await form.locator('select[name=dialect]').selectOption('v2');
    await form.locator('button[type=submit]').click();
    await page.waitForURL(/#notice$/);
    expect(await notice()).toContain('Connected sales account "prospecting"');
    await expect.poll(() => row('sales', 'prospecting').count()).toBe(1);
    const stored = await server.store.accounts.find('prospecting', 'sales');
    expect(stored?.meta.dialect).toBe('v2');
    const used = server.sandbox.servers.sales.requests.filter((r) => r.headers.api_key === key);
    expect(used.length, 'the key was checked with the provider').toBeGreaterThan(0);

    // A key the provider refuses is not stored, and the page says why.
    await page.locator('#add-sales input[name=secret]').fill('sk-not-a-valid-key-9999');
    await page.locator('#add-sales input[name=label]').fill('refused');
    await page.locator('#add-sales button[type=submit]').click();
    await page.waitForURL(/#add-sales-error$/);
    expect(await page.locator('#add-sales-error').textContent()).toMatch(/^The provider refused this API key: 401/);
    expect(await server.store.accounts.find('refused', 'sales')).toBeUndefined();
    expect(await page.content()).not.toContain('sk-not-a-valid-key-9999');
  });

  it('adds a second GitHub account with a token and makes it the default', async () => {
    const token = 'ghp_webSecondAccount0000000000000000';
    server.sandbox.states.github.tokens.add(token);
    await open();
    await page.locator('[data-provider-card=github] summary').click();
    await page.locator('#add-github input[name=secret]').fill(token);
    await page.locator('#add-github input[name=label]').fill('work');
    await page.locator('#add-github button[type=submit]').click();
    await page.waitForURL(/#notice$/);
    expect(await notice()).toContain('Connected github account "work" (sbx-octocat)');
    expect(await page.locator('ul[data-provider=github] > li').count()).toBe(2);
    expect(await row('github', 'work').locator('.badge.default').count()).toBe(0);
    expect(await row('github', 'sandbox').locator('.badge.default').count()).toBe(1);

    await row('github', 'work').getByRole('button', { name: 'Make default' }).click();
    await page.waitForURL(/#notice$/);
    expect(await notice()).toContain('"work" is now the default github account');
    expect(await row('github', 'work').locator('.badge.default').count()).toBe(1);
    expect(await row('github', 'sandbox').locator('.badge.default').count()).toBe(0);
    expect((await server.store.accounts.resolve('github')).account.label).toBe('work');
  });

  it('renames an account', async () => {
    await open();
    const vercel = row('vercel', 'sandbox');
    await vercel.locator('input[name=label]').fill('deployments');
    await vercel.getByRole('button', { name: 'Rename' }).click();
    await page.waitForURL(/#notice$/);
    expect(await notice()).toContain('Renamed "sandbox" to "deployments"');
    expect(await row('vercel', 'deployments').count()).toBe(1);
  });

  it('removes an account only after the confirmation step, with its triggers', async () => {
    const token = 'ghp_webDoomedAccount00000000000000000';
    server.sandbox.states.github.tokens.add(token);
    await open();
    await page.locator('[data-provider-card=github] summary').click();
    await page.locator('#add-github input[name=secret]').fill(token);
    await page.locator('#add-github input[name=label]').fill('doomed');
    await page.locator('#add-github button[type=submit]').click();
    await page.waitForURL(/#notice$/);
    const doomed = (await server.store.accounts.find('doomed', 'github'))!;
    const trigger = await server.store.triggers.create({ kind: 'github.new_star', accountId: doomed.id, config: { repo: 'octo/hello', mode: 'poll' } });

    await row('github', 'doomed').getByRole('link', { name: 'Remove…' }).click();
    await expect.poll(() => page.locator('#confirm h2').textContent()).toContain('“doomed”');
    expect(await page.locator('#confirm').textContent()).toContain('1 trigger stop and are deleted');
    // Cancel changes nothing.
    await page.getByRole('link', { name: 'Cancel' }).click();
    expect(await row('github', 'doomed').count()).toBe(1);
    expect(await server.store.accounts.find(doomed.id)).toBeDefined();

    await row('github', 'doomed').getByRole('link', { name: 'Remove…' }).click();
    await page.getByRole('button', { name: 'Yes, remove it' }).click();
    await page.waitForURL(/#notice$/);
    expect(await notice()).toContain('Removed github account "doomed"');
    expect(await row('github', 'doomed').count()).toBe(0);
    expect(await server.store.accounts.find(doomed.id)).toBeUndefined();
    expect(await server.store.triggers.get(trigger.id)).toBeUndefined();
  });

  it('creates an Outlook new-email trigger with a filter, shows its event, and removes it: no more events after', async () => {
    await open();
    const form = page.locator('#trigger-form');
    if (!(await form.isVisible())) await page.locator('#create-trigger summary').click();
    await form.locator('select[name=kind]').selectOption('outlook.new_email');
    const outlook = (await server.store.accounts.list({ provider: 'outlook' }))[0]!;
    await form.locator('select[name=account]').selectOption(outlook.id);
    await form.locator('input[name="outlook.filter"]').fill('from:*@acme.com');
    await form.locator('button[type=submit]').click();
    await page.waitForURL(/#notice$/);
    expect(await notice()).toMatch(/^Created trigger trg_/);
    const [trigger] = await server.store.triggers.list({ kind: 'outlook.new_email' });
    expect(trigger?.config).toEqual({ filter: 'from:*@acme.com' });
    expect(await page.locator(`[data-trigger="${trigger!.id}"]`).textContent()).toContain('from:*@acme.com');

    deliverEmail(server.sandbox.states.outlook, { subject: 'Web page order', from: { name: 'Dana', address: 'dana@acme.com' } });
    deliverEmail(server.sandbox.states.outlook, { subject: 'Not from acme', from: { name: 'Eve', address: 'eve@other.example' } });
    await poll(trigger!.id);
    await open();
    expect(await page.locator(`[data-trigger="${trigger!.id}"] .fired`).textContent()).toBe('1');
    // This server has no public URL: the trigger polls, and says so.
    expect(await page.locator(`[data-trigger="${trigger!.id}"]`).textContent()).toMatch(/Modepoll[\s\S]*No public URL/);
    expect(await page.locator('#event-list').textContent()).toContain('Web page order');
    expect(await page.locator('#event-list').textContent()).not.toContain('Not from acme');

    await page.getByRole('button', { name: `Remove trigger ${trigger!.id}` }).click();
    await page.waitForURL(/#notice$/);
    expect(await notice()).toContain(`Removed trigger ${trigger!.id}`);
    expect(await page.locator(`[data-trigger="${trigger!.id}"]`).count()).toBe(0);
    expect(await server.store.triggers.get(trigger!.id)).toBeUndefined();

    // A control trigger on the same mailbox proves the runner keeps polling; the removed one gets nothing.
    const control = await server.store.triggers.create({ kind: 'outlook.new_email', accountId: outlook.id, config: {} });
    await poll(control.id);
    const cursor = await server.store.events.lastId();
    deliverEmail(server.sandbox.states.outlook, { subject: 'After removal', from: { name: 'Dana', address: 'dana@acme.com' } });
    server.runner.pollSoon(trigger!.id);
    await poll(control.id);
    const after = await server.store.events.after(cursor, { limit: 100 });
    expect(after.map((e) => e.triggerId)).toEqual([control.id]);
    await server.store.triggers.remove(control.id);
  });

  it('shows how many Graph notifications a trigger refused, where it refused any', async () => {
    const outlook = (await server.store.accounts.list({ provider: 'outlook' }))[0]!;
    const forged = await server.store.triggers.create({ kind: 'outlook.new_email', accountId: outlook.id, config: {} });
    const quiet = await server.store.triggers.create({ kind: 'outlook.new_email', accountId: outlook.id, config: { folder: 'archive' } });
    try {
      const body = JSON.stringify({ value: [{ subscriptionId: 'guessed', changeType: 'created', clientState: 'guessed', resource: 'Users/x/Messages/y' }] });
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${server.url}/webhooks/outlook/${forged.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        expect(res.status).toBe(401);
      }
      await open();
      const facts = page.locator(`[data-trigger="${forged.id}"] dl.facts`);
      expect(await facts.locator('.refused').textContent()).toBe('2');
      expect(await facts.textContent()).toContain('Refused notifications2');
      expect(await page.locator(`[data-trigger="${quiet.id}"] .refused`).count()).toBe(0);
    } finally {
      await server.store.triggers.remove(forged.id);
      await server.store.triggers.remove(quiet.id);
    }
  });

  it('says MCP runs over stdio when it does, with the command to copy, and shows no sandbox badge outside the sandbox', async () => {
    await open();
    expect(await page.getByLabel('MCP over stdio, started with').inputValue()).toBe('switchboard serve');
    expect(await page.getByRole('button', { name: 'Copy the MCP endpoint' }).isVisible()).toBe(true);
    expect(await page.locator('#sandbox-badge').count()).toBe(0);
  });

  it('carries a strict Content-Security-Policy and the other security headers', async () => {
    const response = await open();
    const headers = response.headers();
    const csp = headers['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toMatch(/style-src 'nonce-[A-Za-z0-9+/=]+'/);
    for (const d of ["form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) expect(csp).toContain(d);
    expect(csp).not.toContain('unsafe');
    expect(headers['x-content-type-options']).toBe('nosniff');
    // same-origin: nothing goes to other origins, and form posts still carry the Origin the listener checks.
    expect(headers['referrer-policy']).toBe('same-origin');
    const cookie = (await browser.context.cookies(server.url)).find((c) => c.name.startsWith('switchboard_session_'));
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    // The nonce'd stylesheet applied, and a script without the nonce would not run.
    expect(await page.evaluate(() => getComputedStyle(document.body).margin)).toBe('0px');
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    expect(await (await fetch(`${server.url}/`)).text()).toContain(`<script nonce="`);
    expect(nonce.length).toBeGreaterThanOrEqual(22);
  });

  it('never puts a secret in the page', async () => {
    await open();
    const htmlText = await page.content();
    const rawText = await (await fetch(`${server.url}/`)).text();
    const added = ['sk-web-sales-key-0002', 'ghp_webSecondAccount0000000000000000'];
    for (const secret of [...server.secrets, ...added]) {
      expect(htmlText, 'a secret reached the page').not.toContain(secret);
      expect(rawText, 'a secret reached the page').not.toContain(secret);
    }
    expect(await page.locator('input[type=password]').evaluateAll((els) => els.filter((e) => (e as { value: string }).value !== '').length)).toBe(0);
  });

  it('connects an Outlook account through the pop-up against the sandbox authorization server, with the chosen groups', async () => {
    await open();
    const form = page.locator('#signin-outlook');
    await form.locator('input[value=contacts]').uncheck();
    await form.locator('input[value=mailbox-settings]').uncheck();
    await form.locator('input[value=team-collaboration]').check();
    await form.locator('input[name=label]').fill('popup');
    const popupOpened = page.waitForEvent('popup');
    await form.getByRole('button', { name: 'Sign in with Microsoft Outlook' }).click();
    const popup = await popupOpened;
    const popupCsp: string[] = [];
    popup.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) popupCsp.push(msg.text());
    });
    // The sandbox's consent page lists the scopes of the chosen groups.
    await popup.waitForURL(/\/common\/oauth2\/v2\.0\/authorize/);
    const consent = (await popup.textContent('body')) ?? '';
    expect(consent).toContain('OnlineMeetingTranscript.Read.All');
    expect(consent).not.toContain('Contacts.ReadWrite');
    const closed = popup.waitForEvent('close');
    await popup.getByRole('button', { name: 'Allow' }).click();
    await closed;
    expect(popupCsp).toEqual([]);

    // The opener hears of it (same origin only) and reloads with the new account listed.
    await expect.poll(() => row('outlook', 'popup').count(), { timeout: 8_000 }).toBe(1);
    // The message survives that reload, and stays until dismissed.
    expect(await page.locator('#signin-result.notice.ok').textContent()).toContain('Connected outlook account "popup" (avery@contoso.example).');
    await page.getByRole('button', { name: 'Dismiss the sign-in message' }).click();
    expect(await page.locator('#signin-result').isVisible()).toBe(false);
    const badges = await row('outlook', 'popup').locator('.badge').allTextContents();
    expect(badges).toEqual(expect.arrayContaining(['mail', 'calendar', 'team-collaboration']));
    expect(badges).not.toContain('contacts');
    const stored = (await server.store.accounts.find('popup', 'outlook'))!;
    expect(stored.identity).toBe('avery@contoso.example');
    expect(stored.groups.sort()).toEqual(['calendar', 'mail', 'team-collaboration']);
    expect(server.sandbox.oauth.outlook.grants.authorization_code).toBe(1);
    // The tokens it got never reach the page.
    const { secret } = await server.store.accounts.resolve('outlook', stored.id);
    expect(secret.kind).toBe('oauth');
    expect(await page.content()).not.toContain(secret.token!);
    expect(await page.content()).not.toContain(secret.refreshToken!);
  });

  it('refuses a replayed or forged sign-in callback with a clear page', async () => {
    const res = await page.goto(`${server.url}/oauth/callback/outlook?code=forged&state=never-issued`);
    expect(res?.status()).toBe(400);
    expect(await page.locator('.notice.error').textContent()).toContain('start it again');
    const denied = await page.goto(`${server.url}/oauth/callback/github?error=access_denied&error_description=The+user+cancelled`);
    expect(denied?.status()).toBe(400);
    expect(await page.locator('.notice.error').textContent()).toContain('access_denied');
    expect((await page.goto(`${server.url}/oauth/callback/sales?code=x&state=y`))?.status()).toBe(404);
  });

  it('shows status, including needs reconnect with what to do, and when an account was last used', async () => {
    const vercel = (await server.store.accounts.list({ provider: 'vercel' }))[0]!;
    const outlook = (await server.store.accounts.list({ provider: 'outlook' }))[0]!;
    await server.store.accounts.setStatus(vercel.id, 'needs_reconnect');
    await server.store.accounts.touch(outlook.id);
    try {
      await open();
      const item = page.locator(`li[data-account="${vercel.id}"]`);
      expect(await item.locator('.status-needs_reconnect').textContent()).toBe('needs reconnect');
      expect(await item.textContent()).toContain('Sign in again under Add an integration');
      const used = (await server.store.accounts.find(outlook.id))!.lastUsedAt!;
      const time = page.locator(`li[data-account="${outlook.id}"] .last-used time`);
      expect(await time.getAttribute('datetime')).toBe(used);
      // Human-readable, with the exact time a hover away.
      expect(await time.textContent()).toBe('just now');
      expect(await time.getAttribute('title')).toBe(`${used.replace('T', ' ').slice(0, 19)} UTC`);
    } finally {
      await server.store.accounts.setStatus(vercel.id, 'active');
    }
  });
});

/** Polls a trigger now and waits for the commit. */
async function poll(triggerId: string): Promise<void> {
  const before = (await server.store.triggers.get(triggerId))!;
  server.runner.pollSoon(triggerId);
  const end = Date.now() + 5_000;
  for (;;) {
    const now = (await server.store.triggers.get(triggerId))!;
    if (now.state.lastPollAt !== before.state.lastPollAt || now.errors !== before.errors) return;
    if (Date.now() > end) throw new Error('poll did not happen');
    await new Promise((r) => setTimeout(r, 10));
  }
}

