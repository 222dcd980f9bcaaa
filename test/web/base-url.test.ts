import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGithubState, githubEnterpriseRoutes, startSandboxServer, type SandboxServer } from '../../src/sandbox/index.js';
import { launchBrowser } from '../support/browser.js';
import { startWebServer, type WebServer } from './server.js';

/** The Integrations page adds a GitHub Enterprise Server account: the token form's optional API base URL. */

const GHES_TOKEN = 'ghes-web-token-0000enterprise';

let server: WebServer;
let ghes: SandboxServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;

beforeAll(async () => {
  server = await startWebServer();
  const state = createGithubState();
  state.tokens = new Set([GHES_TOKEN]);
  ghes = await startSandboxServer('github-enterprise', githubEnterpriseRoutes(state));
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await ghes?.close();
  await server?.close();
});
beforeEach(async () => {
  page = await browser.context.newPage();
});
afterEach(() => page.close());

async function addGithubToken(label: string, baseUrl: string): Promise<void> {
  expect((await page.goto(`${server.url}/`))?.status()).toBe(200);
  await page.locator('[data-provider-card=github] summary').click();
  const form = page.locator('#add-github');
  await form.locator('input[name=secret]').fill(GHES_TOKEN);
  await form.locator('input[name=label]').fill(label);
  await form.getByLabel('API base URL for GitHub').fill(baseUrl);
  await form.locator('button[type=submit]').click();
}

describe('a token for GitHub Enterprise Server on the Integrations page', () => {
  it('is checked at that host, stored with its base URL, and the account shows it', async () => {
    const base = `${ghes.url}/api/v3`;
    await addGithubToken('enterprise', base);
    await page.waitForURL(/#notice$/);
    expect(await page.locator('#notice p').textContent()).toContain(`Connected github account "enterprise" (sbx-octocat) at ${base}`);
    const row = page.locator('ul[data-provider="github"] li[data-label="enterprise"]');
    expect(await row.locator('.base-url').textContent()).toBe(base);
    expect(await page.locator('ul[data-provider="github"] li[data-label="sandbox"] .base-url').count()).toBe(0);
    expect((await server.store.accounts.find('enterprise', 'github'))?.baseUrl).toBe(base);
    expect(ghes.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v3/user']);
    expect(await page.content()).not.toContain(GHES_TOKEN);
  });

  it('refuses a plain-http base URL next to the field, keeps what was typed but the token, and stores nothing', async () => {
    await addGithubToken('plain', 'http://ghe.example.com/api/v3');
    await page.waitForURL(/#add-github-error$/);
    const field = page.locator('#add-github input[name=base_url]');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect((await field.getAttribute('aria-describedby'))?.split(' ')).toContain('add-github-error');
    expect(await page.locator('#add-github-error').textContent()).toBe(
      'The API base URL must use https (plain http only on 127.0.0.1, [::1] or localhost): give https://ghe.example.com/api/v3.',
    );
    expect(await field.inputValue()).toBe('http://ghe.example.com/api/v3');
    expect(await page.locator('#add-github input[name=secret]').inputValue()).toBe('');
    expect(await server.store.accounts.find('plain', 'github')).toBeUndefined();
    expect(await page.content()).not.toContain(GHES_TOKEN);
  });
});
