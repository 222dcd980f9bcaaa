import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_TOKENS } from '../../src/sandbox/index.js';
import { activeElementId, axeViolations, inViewport, scrollWidths } from './page-checks.js';
import { usePages } from '../support/browser.js';
import { startWebServer, type WebServer } from './server.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

let server: WebServer;
let page: Page;

beforeAll(async () => {
  server = await startWebServer();
  mkdirSync(ARTIFACTS, { recursive: true });
});
afterAll(async () => {
  await server?.close();
});
usePages((p) => (page = p));

async function open(width = 1280, height = 800): Promise<void> {
  await page.setViewportSize({ width, height });
  expect((await page.goto(`${server.url}/`))?.status()).toBe(200);
}

/** Open while there are no triggers yet, folded away after. */
async function openTriggerForm(): Promise<void> {
  if (!(await page.locator('#trigger-form').isVisible())) await page.locator('#create-trigger summary').click();
}

/** The control is marked invalid and described by the message (besides any hint). */
async function describedByError(selector: string, errorId: string): Promise<void> {
  const control = page.locator(selector);
  expect(await control.getAttribute('aria-invalid')).toBe('true');
  expect((await control.getAttribute('aria-describedby'))?.split(' ')).toContain(errorId);
}

describe('a form that fails', () => {
  it('keeps a bad filter, shows the error next to it, and moves the focus to the message (390 px)', async () => {
    await open(390, 844);
    await openTriggerForm();
    await page.locator('#trigger-kind').selectOption('outlook.new_email');
    await page.locator('input[name="outlook.folder"]').fill('inbox');
    await page.locator('input[name="outlook.filter"]').fill('from:*@acme.com AND colour:blue');
    await page.getByRole('button', { name: 'Create trigger' }).click();
    await page.waitForURL(/#trigger-form-error$/);

    const message = page.locator('#trigger-form-error');
    expect(await message.textContent()).toMatch(/^Filter error at position 21: unknown field "colour"/);
    await describedByError('input[name="outlook.filter"]', 'trigger-form-error');
    // Right after its field, not at the top of the page.
    expect(await page.locator('input[name="outlook.filter"] ~ .field-error').getAttribute('id')).toBe('trigger-form-error');
    expect(await page.locator('input[name="outlook.filter"]').inputValue()).toBe('from:*@acme.com AND colour:blue');
    expect(await page.locator('input[name="outlook.folder"]').inputValue()).toBe('inbox');
    expect(await page.locator('#trigger-kind').inputValue()).toBe('outlook.new_email');
    expect(await activeElementId(page)).toBe('trigger-form-error');
    expect(await inViewport(page, '#trigger-form-error'), 'the message is on screen').toBe(true);
    expect(await server.store.triggers.list({ kind: 'outlook.new_email' })).toEqual([]);
    expect((await scrollWidths(page)).scrollWidth).toBeLessThanOrEqual(390);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}integrations-error-390.png` });

    // Shown once: the next view is clean.
    await open(390, 844);
    expect(await page.locator('.field-error').count()).toBe(0);
    expect(await page.locator('[aria-invalid]').count()).toBe(0);
  });

  it('keeps what was typed when the provider refuses an API key, never the key itself, with the error next to the key (1280 px)', async () => {
    await open();
    const form = page.locator('#add-sales');
    await form.locator('input[name=secret]').fill('sk-refused-by-the-provider-0001');
    await form.locator('input[name=label]').fill('prospecting');
    await form.locator('select[name=dialect]').selectOption('v2');
    await form.getByRole('button', { name: 'Add API key' }).click();
    await page.waitForURL(/#add-sales-error$/);

    expect(await page.locator('#add-sales-error').textContent()).toBe(
      'The provider refused this API key: 401 (Unauthorized: the API key is not valid). Check that you copied all of it, for the right account, and paste it again.',
    );
    await describedByError('#add-sales input[name=secret]', 'add-sales-error');
    expect(await page.locator('#add-sales input[name=secret] ~ .field-error').getAttribute('id')).toBe('add-sales-error');
    expect(await form.locator('input[name=label]').inputValue()).toBe('prospecting');
    expect(await form.locator('select[name=dialect]').inputValue()).toBe('v2');
    expect(await form.locator('input[name=secret]').inputValue()).toBe('');
    expect(await page.content()).not.toContain('sk-refused-by-the-provider-0001');
    expect(await activeElementId(page)).toBe('add-sales-error');
    expect(await inViewport(page, '#add-sales-error')).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: `${ARTIFACTS}integrations-error-1280.png` });
  });

  it("opens a token form that failed and shows the label clash next to the label", async () => {
    await open();
    await page.locator('[data-provider-card=github] summary').click();
    await page.locator('#add-github input[name=secret]').fill(SANDBOX_TOKENS.github);
    await page.locator('#add-github input[name=label]').fill('sandbox');
    await page.getByRole('button', { name: 'Add token for GitHub' }).click();
    await page.waitForURL(/#add-github-error$/);
    expect(await page.locator('#add-github').isVisible()).toBe(true);
    await describedByError('#add-github input[name=label]', 'add-github-error');
    expect(await page.locator('#add-github-error').textContent()).toContain('A github account is already labelled "sandbox"');
    expect(await activeElementId(page)).toBe('add-github-error');
  });

  it('shows a rename that clashes next to that account\'s label field, keeping the typed label', async () => {
    const second = await server.store.accounts.add({ provider: 'vercel', label: 'second', secret: { kind: 'token', token: 'unused' } });
    await open(390, 844);
    const item = page.locator(`li[data-account="${second.id}"]`);
    await item.getByLabel('New label for the Vercel account “second”').fill('sandbox');
    await item.getByRole('button', { name: 'Rename' }).click();
    await page.waitForURL(new RegExp(`#rename-${second.id}-error$`));
    await describedByError(`#rename-${second.id}-label`, `rename-${second.id}-error`);
    expect(await page.locator(`#rename-${second.id}-label`).inputValue()).toBe('sandbox');
    expect(await activeElementId(page)).toBe(`rename-${second.id}-error`);
    expect(await inViewport(page, `#rename-${second.id}-error`)).toBe(true);
    expect((await server.store.accounts.find(second.id))?.label).toBe('second');
    await server.store.accounts.remove(second.id);
  });
});

describe('messages and times', () => {
  it('keeps a success message until it is dismissed, and keeps "just now" current', async () => {
    await page.clock.install();
    await open();
    const vercel = (await server.store.accounts.list({ provider: 'vercel' }))[0]!;
    const item = page.locator(`li[data-account="${vercel.id}"]`);
    await item.getByLabel(/New label for/).fill('deployments');
    await item.getByRole('button', { name: 'Rename' }).click();
    await page.waitForURL(/#notice$/);
    const notice = page.locator('#notice');
    expect(await notice.textContent()).toContain('Renamed "sandbox" to "deployments"');
    const added = page.locator(`li[data-account="${vercel.id}"] dd time`).first();
    expect(await added.textContent()).toBe('just now');
    expect(await added.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);

    // Ten minutes pass on the page's clock: the message is still there, the time has moved on.
    await page.clock.fastForward('10:00');
    expect(await notice.isVisible()).toBe(true);
    expect(await added.textContent()).toBe('10 minutes ago');

    await page.getByRole('button', { name: 'Dismiss this message' }).click();
    expect(await notice.isVisible()).toBe(false);
    expect(await activeElementId(page)).toBe('main');
    await server.store.accounts.rename(vercel.id, 'sandbox');
  });
});

describe('the trigger form', () => {
  it("shows only the chosen kind's fields and its provider's accounts, and creates the trigger from them", async () => {
    await open(390, 844);
    await openTriggerForm();
    const form = page.locator('#trigger-form');
    const visibleNames = () => form.locator('input:visible, select:visible').evaluateAll((all) => all.map((e) => (e as HTMLInputElement).name));
    const accountGroups = () => form.locator('#trigger-account optgroup').evaluateAll((all) => all.filter((g) => !(g as HTMLOptGroupElement).disabled).map((g) => g.getAttribute('label')));

    await page.locator('#trigger-kind').selectOption('outlook.new_email');
    expect(await visibleNames()).toEqual(['kind', 'account', 'outlook.folder', 'outlook.mailbox', 'outlook.filter', 'outlook.poll_interval_seconds', 'outlook.backstop_interval_seconds', 'outlook.time_zone']);
    expect(await accountGroups()).toEqual(['Microsoft Outlook']);

    await page.locator('#trigger-kind').selectOption('github.new_watcher');
    expect(await visibleNames()).toEqual(['kind', 'account', 'github.repo', 'github.poll_interval_seconds']);
    expect(await accountGroups()).toEqual(['GitHub']);
    expect(await page.locator('#kind-about').textContent()).toContain('Each new watcher');
    // The registry marks repo as required for this kind; the hint is this kind's own.
    expect(await form.locator('input[name="github.repo"]').evaluate((e) => (e as HTMLInputElement).required)).toBe(true);
    expect(await form.locator('label[for="trigger-github-repo"]').textContent()).toBe('Repository (required)');
    expect(await form.locator('#trigger-github-repo-hint').textContent()).toBe('Repository as "owner/name"');
    // Hidden fields of other kinds are disabled, so they are not sent.
    expect(await form.locator('input[name="outlook.filter"]').isDisabled()).toBe(true);

    const github = (await server.store.accounts.list({ provider: 'github' }))[0]!;
    await form.locator('#trigger-account').selectOption(github.id);
    await form.locator('input[name="github.repo"]').fill('sbx-octocat/hello-world');
    await form.locator('input[name="github.poll_interval_seconds"]').fill('120');
    await page.getByRole('button', { name: 'Create trigger' }).click();
    await page.waitForURL(/#notice$/);
    expect(await page.locator('#notice').textContent()).toMatch(/Created trigger trg_/);
    const [trigger] = await server.store.triggers.list({ kind: 'github.new_watcher' });
    expect(trigger?.config).toEqual({ repo: 'sbx-octocat/hello-world', poll_interval_seconds: 120 });
    expect(trigger?.accountId).toBe(github.id);
    await server.store.triggers.remove(trigger!.id);
  });
});
