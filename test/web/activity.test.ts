import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushAudit } from '../../src/governance/audit-trail.js';
import { usePages } from '../support/browser.js';
import { startWebServer, type WebServer } from './server.js';

let server: WebServer;
let page: Page;
beforeAll(async () => {
  server = await startWebServer({ http: true, sandbox: true });
});
afterAll(async () => {
  await server?.close();
});
usePages((p) => (page = p));

describe('the Activity section of the Integrations page', () => {
  it("shows the owner's recent calls and acts, newest first, with their outcome and how they came in", async () => {
    const actor = { owner: '', auth: 'stdio' as const, clientName: 'desk agent 3' };
    await server.deps.audit!.record({ action: 'tool.call', actor, tool: 'github_create_issue', effect: 'write', target: 'sbx-octocat/hello-world', outcome: 'ok', providerStatus: 201 });
    await server.deps.audit!.record({ action: 'tool.call', actor, tool: 'outlook_send_email', effect: 'write', outcome: 'error', errorClass: 'ProviderError', providerStatus: 403 });
    await flushAudit(server.deps.audit);
    expect((await page.goto(`${server.url}/`))?.status()).toBe(200);
    const rows = page.locator('#activity tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).locator('td').allInnerTexts()).toEqual([expect.any(String), 'outlook_send_email', '', 'error (ProviderError)', 'stdio']);
    expect(await rows.nth(1).locator('td').allInnerTexts()).toEqual([expect.any(String), 'github_create_issue', 'sbx-octocat/hello-world', 'ok', 'stdio']);
    expect(await page.locator('#activity th', { hasText: 'Who' }).count()).toBe(0);
    await page.locator('nav.sections a[href="#activity"]').click();
    expect(await page.locator('#activity-title').isVisible()).toBe(true);
  });
});
