import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedPolicy } from '../../src/governance/policy-source.js';
import { APPROVAL_META_KEY } from '../../src/mcp/approval.js';
import { createServer, type ServerDeps } from '../../src/mcp/server.js';
import { usePages } from '../support/browser.js';
import { freshDatabase, type TestDatabase } from '../pg.js';
import { startWebServer, type WebServer } from './server.js';

/** The out-of-band decision on the Integrations page, in Chromium: a waiting call approved (it then runs once) or denied. */

const POLICY = { teamDomains: ['contoso.example'], approvals: [{ name: 'Outside email', tools: ['outlook_send_email'], when: { recipientOutside: true }, approver: 'admin' }] };

let page: Page;
usePages((p) => (page = p));

describe.each(['SQLite', 'PostgreSQL'])('approvals on the page, on %s', (adapter) => {
  let server: WebServer;
  let database: TestDatabase | undefined;
  let client: Client;
  beforeAll(async () => {
    database = adapter === 'PostgreSQL' ? await freshDatabase() : undefined;
    server = await startWebServer({ databaseUrl: database?.url });
    await server.store.policy.set(JSON.stringify(POLICY), 'cli', new Date().toISOString());
    server.deps.policy = storedPolicy(server.store, { refreshMs: 0 });
    client = new Client({ name: 'page-approvals', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await createServer(server.deps as ServerDeps).connect(b);
    await client.connect(a);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await database?.drop();
  });

  const send = (subject: string) => client.callTool({ name: 'outlook_send_email', arguments: { to: ['jordan.lee@fabrikam.example'], subject, body: 'Hi.' } }) as Promise<CallToolResult>;
  const sent = () => server.sandbox.servers.outlook.requests.filter((r) => r.path.endsWith('/sendMail')).length;
  const idOf = (r: CallToolResult) => (r._meta as Record<string, { approval_id: string }>)[APPROVAL_META_KEY]!.approval_id;

  it('shows the waiting call in plain words; Approve lets the same call run once', async () => {
    const waiting = await send('Approve me');
    const id = idOf(waiting);
    expect(sent()).toBe(0);
    await page.goto(`${server.url}/#approvals`);
    const item = page.locator(`#approval-${id}`);
    await expect.poll(() => item.textContent()).toContain('jordan.lee@fabrikam.example (outside the team)');
    expect(await item.textContent()).toContain('subject: Approve me');
    await item.getByRole('button', { name: `Approve ${id}` }).click();
    await page.waitForURL(/#notice$/);
    expect(await page.locator('#approvals #notice').textContent()).toContain(`Approved ${id}`);
    expect(await page.locator(`#approval-${id}`).count()).toBe(0);
    const ran = await send('Approve me');
    expect(ran.isError, JSON.stringify(ran)).toBeFalsy();
    expect(sent()).toBe(1);
  });

  it('Deny with a reason: the next such call is refused with it', async () => {
    const id = idOf(await send('Deny me'));
    await page.goto(`${server.url}/#approvals`);
    const item = page.locator(`#approval-${id}`);
    await item.getByLabel(`Reason for denying ${id}`).fill('not to customers yet');
    await item.getByRole('button', { name: `Deny ${id}` }).click();
    await page.waitForURL(/#notice$/);
    expect(await page.locator('#approvals #notice').textContent()).toContain(`Denied ${id}`);
    const refused = await send('Deny me');
    expect(refused.isError).toBe(true);
    expect((refused.content[0] as { text: string }).text).toMatch(/denied approval apr_\w+ \(rule "Outside email"\): not to customers yet/);
    expect(sent()).toBe(1);
  });
});
