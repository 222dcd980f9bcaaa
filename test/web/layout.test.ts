import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendTestEvent } from '../../src/triggers/test-event.js';
import { activeElementId, axeViolations, controlNames, scrollWidths } from './page-checks.js';
import { usePages } from '../support/browser.js';
import { startWebServer, type WebServer } from './server.js';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

let server: WebServer;
let page: Page;
let triggerIds: string[];

// The page as a newcomer sees it after some use: several accounts (a Vercel team among them), triggers and events.
beforeAll(async () => {
  server = await startWebServer({ http: true, sandbox: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  const token = { kind: 'token' as const, token: 'not-used-by-these-tests' };
  await server.store.accounts.add({ provider: 'vercel', label: 'acme-team', identity: 'sbx-vercel', meta: { teamId: 'team_acme123', teamSlug: 'acme', teamName: 'Acme Inc' }, secret: token });
  await server.store.accounts.add({ provider: 'vercel', label: 'id-only', identity: 'sbx-vercel', meta: { teamId: 'team_only456' }, secret: token });
  const outlook = (await server.store.accounts.list({ provider: 'outlook' }))[0]!;
  const github = (await server.store.accounts.list({ provider: 'github' }))[0]!;
  const triggers = [
    await server.store.triggers.create({ kind: 'outlook.new_email', accountId: outlook.id, config: { filter: 'from:*@acme.com AND subject:"a rather long quarterly invoice subject line"' } }),
    await server.store.triggers.create({ kind: 'github.workflow_run_completed', accountId: github.id, config: { repo: 'sbx-octocat/a-repository-with-a-long-name', conclusions: ['failed', 'cancelled'] } }),
  ];
  triggerIds = triggers.map((t) => t.id);
  for (const t of triggers) await sendTestEvent(server.store, server.deps.triggers!.log, t.id, 'the layout test');
});
afterAll(async () => {
  await server?.close();
});
const browser = usePages((p) => (page = p));

async function open(width: number, height: number): Promise<void> {
  await page.setViewportSize({ width, height });
  expect((await page.goto(`${server.url}/`))?.status()).toBe(200);
}

/** Everything folded away is opened, so every control is measured and checked. */
function unfold(): Promise<void> {
  return page.locator('details').evaluateAll((all) => all.forEach((d) => ((d as HTMLDetailsElement).open = true)));
}

describe('the Integrations page at 1280 and 390 px', () => {
  for (const { width, height } of WIDTHS) {
    it(`fits ${width} px without scrolling sideways, passes axe-core, and is saved as integrations-${width}.png`, async () => {
      await open(width, height);
      expect(await page.locator('[data-account]').count()).toBeGreaterThanOrEqual(5);
      expect(await page.locator('[data-trigger]').count()).toBe(2);
      expect(await page.locator('#event-list li').count()).toBeGreaterThanOrEqual(2);
      const shot = await page.screenshot({ path: `${ARTIFACTS}integrations-${width}.png`, fullPage: true });
      expect(shot.length).toBeGreaterThan(10_000);
      for (const state of ['as it opens', 'unfolded']) {
        if (state === 'unfolded') await unfold();
        const { scrollWidth, clientWidth } = await scrollWidths(page);
        expect(scrollWidth, `the page scrolls sideways ${state}`).toBeLessThanOrEqual(clientWidth);
      }
      // Each trigger's buttons stay inside its card.
      for (const id of triggerIds) {
        const card = (await page.locator(`[data-trigger="${id}"]`).boundingBox())!;
        for (const button of await page.locator(`[data-trigger="${id}"] button`).all()) {
          const box = (await button.boundingBox())!;
          expect(box.x + box.width, `a button of ${id} leaves its card`).toBeLessThanOrEqual(card.x + card.width);
        }
      }
      expect(await axeViolations(page)).toEqual([]);
    });
  }

  it('gives every control a name of its own, including one "New label" field per account', async () => {
    await open(1280, 800);
    await unfold();
    const names = (await controlNames(page)).map((c) => `${c.role}: ${c.name}`);
    expect(names.filter((n) => /: $/.test(n)), 'controls without a name').toEqual([]);
    const repeated = names.filter((n, i) => names.indexOf(n) !== i);
    expect(repeated, 'controls that share a name').toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['textbox: New label for the Vercel account “acme-team”', 'textbox: New label for the GitHub account “sandbox”']));
    expect(names.length).toBeGreaterThan(40);
  });

  it('starts with a skip link to the main content', async () => {
    await open(390, 844);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to main content');
    await page.keyboard.press('Enter');
    expect(await activeElementId(page)).toBe('main');
  });

  it('shows the MCP endpoint with a copy button, and says this is the sandbox', async () => {
    await open(390, 844);
    const endpoint = page.locator('#mcp-endpoint');
    expect(await endpoint.inputValue()).toBe(`${server.url}/mcp`);
    expect(await page.getByLabel('MCP endpoint').count()).toBe(1);
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.getByRole('button', { name: 'Copy the MCP endpoint' }).click();
    await expect.poll(() => page.locator('#copy-status').textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${server.url}/mcp`);
    expect(await page.locator('#sandbox-badge').textContent()).toContain('Sandbox');
  });

  it("shows a Vercel account's team: name and slug when verified, else its id", async () => {
    await open(1280, 800);
    const team = (label: string) => page.locator(`ul[data-provider=vercel] li[data-label="${label}"] .team`).textContent();
    expect(await team('acme-team')).toBe('Acme Inc (acme) team_acme123');
    expect(await team('id-only')).toBe('team_only456');
    expect(await team('sandbox')).toBe('personal account');
  });
});
