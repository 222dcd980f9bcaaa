import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { windowStart } from '../../src/governance/budgets.js';
import { fixedPolicy, PolicySchema } from '../../src/policy.js';
import { PERSONAL_OWNER } from '../../src/store/index.js';
import { usePages } from '../support/browser.js';
import { startWebServer, type WebServer } from '../web/server.js';

/** The Integrations page in Chromium shows the budgets' usage and offers only the trigger kinds the tools rules allow. */

let server: WebServer;
let page: Page;
beforeAll(async () => {
  server = await startWebServer();
});
afterAll(async () => {
  await server?.close();
});
usePages((p) => (page = p));

describe('governance on the Integrations page', () => {
  it('shows the usage of each budget beside its limit, and hides the trigger kinds the policy denies', async () => {
    const github = (await server.store.accounts.list({ provider: 'github' }))[0]!;
    const before = await (await fetch(`${server.url}/`)).text();
    expect(before).not.toContain('id="budgets"');

    server.deps.policy = fixedPolicy(PolicySchema.parse({ budgets: [{ accounts: ['github'], providerRequestsPerHour: 500 }], tools: [{ for: ['*'], deny: ['vercel.*'] }] }));
    const hour = new Date(windowStart('providerRequests', Date.now())).toISOString();
    await server.store.budgets.take({ owner: PERSONAL_OWNER, accountId: github.id, meter: 'providerRequests', windowStart: hour }, 7, 500);

    expect((await page.goto(`${server.url}/`))?.status()).toBe(200);
    const row = page.locator('#budgets tbody tr');
    await expect.poll(() => row.count()).toBe(1);
    const cells = await row.locator('td').allTextContents();
    expect(cells.slice(0, 5)).toEqual(['owner', `github "${github.label}"`, 'providerRequestsPerHour', '7', '500']);
    expect(await page.locator('nav.sections a[href="#budgets"]').count()).toBe(1);

    const kinds = await page.locator('#trigger-kind option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
    expect(kinds).toContain('github.new_issue');
    expect(kinds.filter((k) => k.startsWith('vercel.'))).toEqual([]);
  });
});
