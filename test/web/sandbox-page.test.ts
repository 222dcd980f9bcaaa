import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandboxCredentials } from '../../src/sandbox/index.js';
import { launchBrowser } from '../support/browser.js';
import { axeViolations, scrollWidths } from './page-checks.js';
import { startWebServer, type WebServer } from './server.js';

let server: WebServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;

beforeAll(async () => {
  [server, browser] = await Promise.all([startWebServer({ sandbox: true, sandboxCredentials: true }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});
beforeEach(async () => {
  page = await browser.context.newPage();
});
afterEach(async () => {
  await page.close();
});

async function open(width: number): Promise<void> {
  await page.setViewportSize({ width, height: 844 });
  expect((await page.goto(`${server.url}/`))?.status()).toBe(200);
}

describe('the sandbox page', () => {
  it('gives every credential the stand-ins accept, readable at 390 px', async () => {
    await open(390);
    const panel = page.locator('#sandbox-credentials');
    expect(await panel.isVisible()).toBe(true);
    const shown = await panel.locator('code.credential').allTextContents();
    expect(shown).toEqual(sandboxCredentials().map((c) => c.value));
    expect(shown).toEqual(expect.arrayContaining(['sbx-sales-key-0001', 'sbx-github-token-0001', 'sbx-outlook-token-0001', 'sbx-vercel-token-0001']));
    expect(await panel.locator('li[data-provider="sales"]').textContent()).toContain('API key');
    expect(await page.getByRole('link', { name: 'Sandbox credentials' }).getAttribute('href')).toBe('#sandbox-credentials');
    expect((await scrollWidths(page)).scrollWidth).toBeLessThanOrEqual(390);
    expect(await axeViolations(page)).toEqual([]);
  });
});

describe("the GitHub trigger form's Repository and Organization", () => {
  it('are marked "exactly one of", and neither or both is refused before anything is sent', async () => {
    await open(1280);
    if (!(await page.locator('#trigger-form').isVisible())) await page.locator('#create-trigger summary').click();
    const form = page.locator('#trigger-form');
    await page.locator('#trigger-kind').selectOption('github.new_issue');
    for (const id of ['trigger-github-repo', 'trigger-github-org']) {
      expect(await form.locator(`label[for="${id}"]`).textContent()).toMatch(/ \(exactly one of Repository or Organization\)$/);
    }
    const repo = form.locator('input[name="github.repo"]');
    const org = form.locator('input[name="github.org"]');
    const create = page.getByRole('button', { name: 'Create trigger' });

    await create.click();
    expect(await repo.evaluate((e) => (e as HTMLInputElement).validationMessage)).toBe('Give exactly one of Repository or Organization.');
    await repo.fill('sbx-octocat/hello-world');
    await org.fill('sbx-org');
    await create.click();
    expect(await repo.evaluate((e) => (e as HTMLInputElement).validationMessage)).toBe('Give exactly one of Repository or Organization, not both.');
    expect(page.url()).toBe(`${server.url}/`);
    expect(await server.store.triggers.list({ kind: 'github.new_issue' })).toEqual([]);

    // A kind with only one of the two says nothing of the kind.
    await page.locator('#trigger-kind').selectOption('github.new_watcher');
    expect(await form.locator('label[for="trigger-github-repo"]').textContent()).toBe('Repository (required)');
  });
});
