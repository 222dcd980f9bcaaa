import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS, cleanUp } from '../store/adapters.js';
import { launchBrowser } from '../support/browser.js';
import { startWebServer, type WebServer } from './server.js';

const TOKEN = 'instances-http-token-0123456789';

/**
 * A load balancer without stickiness: each request goes to the next instance in turn, its Host kept, so both
 * instances see one site. The page's event stream (long-lived) and the favicon always go to the first, so they do not
 * shift the turns of the requests the test follows.
 */
async function roundRobin(upstreams: string[]): Promise<{ url: string; served: Array<{ request: string; by: number }>; close(): Promise<void> }> {
  const served: Array<{ request: string; by: number }> = [];
  let turn = 0;
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const by = path.startsWith('/events/stream') || path === '/favicon.ico' ? 0 : turn++ % upstreams.length;
    served.push({ request: `${req.method} ${path.split('?')[0]}`, by });
    const target = new URL(upstreams[by]!);
    const forward = request({ host: target.hostname, port: target.port, method: req.method, path, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe.each(ADAPTERS)('the Integrations page on two instances of one $name store, behind a load balancer without stickiness', (adapter) => {
  const started: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const s of started.splice(0).reverse()) await s.close();
    await cleanUp();
  });

  it('a session logged in on one instance is accepted by the other, with its CSRF token, messages and pop-up sign-in', async () => {
    const location = await adapter.location();
    const one: WebServer = await startWebServer({ token: TOKEN, databaseUrl: location.databaseUrl });
    started.push(one);
    const two = await startWebServer({ token: TOKEN, sameAs: one });
    started.push(two);
    const balancer = await roundRobin([one.url, two.url]);
    started.push(balancer);
    const browser = await launchBrowser();
    started.push(browser);
    const page = await browser.context.newPage();
    const servedBy = (request: string) => balancer.served.filter((s) => s.request === request).map((s) => s.by);

    // The login form comes from one instance, the login is checked by the other, and the page after it by the first.
    expect((await page.goto(`${balancer.url}/`))?.status()).toBe(401);
    await page.locator('input[name=token]').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${balancer.url}/`);
    expect(await page.locator('ul[data-provider=vercel] li[data-label=sandbox]').count()).toBe(1);
    expect(servedBy('POST /login')).toEqual([1]);
    expect(servedBy('GET /').slice(-1)).toEqual([0]);

    // A form posted to one instance (CSRF token from the other's page); its message shown by the other, once.
    await page.locator('ul[data-provider=vercel] li[data-label=sandbox] input[name=label]').fill('deployments');
    await page.locator('ul[data-provider=vercel] li[data-label=sandbox]').getByRole('button', { name: 'Rename' }).click();
    await page.waitForURL(/#notice$/);
    expect(await page.locator('#notice p').textContent()).toContain('Renamed "sandbox" to "deployments"');
    expect(servedBy('POST /accounts/rename')).toEqual([1]);
    expect(servedBy('GET /').slice(-1)).toEqual([0]);
    await page.reload();
    expect(await page.locator('#notice').count()).toBe(0);

    // The pop-up sign-in starts on one instance and the provider's redirect lands on the other.
    await page.locator('#signin-github input[name=label]').fill('popup');
    const popupOpened = page.waitForEvent('popup');
    await page.locator('#signin-github').getByRole('button', { name: /Sign in with GitHub/ }).click();
    const popup = await popupOpened;
    const closed = popup.waitForEvent('close');
    await popup.getByRole('button', { name: 'Allow' }).click();
    await closed;
    await expect.poll(() => page.locator('ul[data-provider=github] li[data-label=popup]').count(), { timeout: 8_000 }).toBe(1);
    const [begun] = servedBy('POST /signin/github');
    expect(servedBy('GET /oauth/callback/github')).toEqual([1 - begun!]);
    expect((await two.store.accounts.find('popup', 'github'))?.identity).toBe('sbx-octocat');

    // Logged out through one instance, the session is gone on both.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${balancer.url}/`);
    expect((await page.goto(`${balancer.url}/`))?.status()).toBe(401);
    expect((await page.goto(`${balancer.url}/`))?.status()).toBe(401);
  }, 60_000);
});
