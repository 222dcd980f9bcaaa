import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsNext } from '../../src/triggers/tools.js';
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
usePages((p) => (page = p));

/** Opens the page and waits until its event stream is connected. */
async function openLive(): Promise<void> {
  expect((await page.goto(`${server.url}/`))?.status()).toBe(200);
  await page.locator('#live-status.on').waitFor();
  await page.evaluate(() => ((window as unknown as { loadedOnce: boolean }).loadedOnce = true));
}

const sameDocument = () => page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce === true);

/** A receiver for forwarded events on 127.0.0.1, resolving with the first POST it gets. */
async function startReceiver(): Promise<{ url: string; received: Promise<{ headers: IncomingHttpHeaders; body: any }>; close(): Promise<void> }> {
  let resolve!: (value: { headers: IncomingHttpHeaders; body: any }) => void;
  const received = new Promise<{ headers: IncomingHttpHeaders; body: any }>((r) => (resolve = r));
  const http = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      res.end('ok');
      resolve({ headers: req.headers, body: JSON.parse(body) });
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((r) => http.close(() => r())),
  };
}

describe('events without a reload', () => {
  it('shows an event committed to the log in the open page, and counts it on its trigger', async () => {
    const outlook = (await server.store.accounts.list({ provider: 'outlook' }))[0]!;
    const trigger = await server.store.triggers.create({ kind: 'outlook.new_email', accountId: outlook.id, config: {} });
    await openLive();
    expect(await page.locator(`[data-trigger="${trigger.id}"] .fired`).textContent()).toBe('0');

    const [event] = await server.store.triggers.commit(trigger.id, {
      events: [{ dedupeKey: 'live-1', occurredAt: new Date().toISOString(), summary: 'New email from Dana: Quarterly numbers', payload: { subject: 'Quarterly numbers' } }],
    });
    await server.deps.triggers!.log.poke();

    const item = page.locator(`#event-list li[data-event="${event!.id}"]`);
    await item.waitFor();
    expect(await item.locator('.summary').textContent()).toBe('New email from Dana: Quarterly numbers');
    expect(await item.locator('.kind').textContent()).toBe('outlook.new_email');
    expect(await item.locator('time').textContent()).toBe('just now');
    expect(await item.locator('.badge.test').count()).toBe(0);
    expect(await page.locator('#event-list li').first().getAttribute('data-event')).toBe(String(event!.id));
    expect(await page.locator(`[data-trigger="${trigger.id}"] .fired`).textContent()).toBe('1');
    expect(await page.locator(`[data-trigger="${trigger.id}"] .last-event`).textContent()).toBe('just now');
    expect(await page.locator('#no-events').isVisible()).toBe(false);
    expect(await sameDocument(), 'the page was reloaded').toBe(true);
    await server.store.triggers.remove(trigger.id);
  });

  it('picks up where it left off: an event committed while the stream was down arrives on reconnect', async () => {
    const github = (await server.store.accounts.list({ provider: 'github' }))[0]!;
    const trigger = await server.store.triggers.create({ kind: 'github.new_star', accountId: github.id, config: { repo: 'sbx-octocat/hello-world' } });
    await openLive();
    const after = await page.locator('#event-list').getAttribute('data-after');
    // The page's own cursor, as the browser would send it as Last-Event-ID; a stream opened later still replays from it.
    const [missed] = await server.store.triggers.commit(trigger.id, {
      events: [{ dedupeKey: 'missed-1', occurredAt: new Date().toISOString(), summary: 'Missed star', payload: {} }],
    });
    const res = await fetch(`${server.url}/events/stream?after=${after}`, { signal: AbortSignal.timeout(5_000) });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('Missed star')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text).toContain(`id: ${missed!.id}\nevent: trigger-event\ndata: `);
    expect(text).not.toContain('payload');
    await server.store.triggers.remove(trigger.id);
  });
});

describe('Send test event', () => {
  it('commits a synthetic event marked as a test through the normal log: the page, events_next and forwarding all get it', async () => {
    const receiver = await startReceiver();
    try {
      const github = (await server.store.accounts.list({ provider: 'github' }))[0]!;
      const trigger = await server.store.triggers.create({ kind: 'github.new_star', accountId: github.id, config: { repo: 'sbx-octocat/hello-world' }, forwardUrl: receiver.url });
      const cursor = await server.store.events.lastId();
      await openLive();
      await page.getByRole('button', { name: `Send test event to trigger ${trigger.id}` }).click();
      await page.waitForURL(/#notice$/);
      expect(await page.locator('#notice').textContent()).toMatch(new RegExp(`Sent test event #\\d+ to trigger ${trigger.id} \\(github.new_star\\)`));

      const logged = await server.store.events.after(cursor, { limit: 10 });
      expect(logged).toHaveLength(1);
      const [event] = logged;
      expect(event!.triggerId).toBe(trigger.id);
      expect(event!.payload).toMatchObject({ test: true, trigger_id: trigger.id, kind: 'github.new_star' });
      expect(event!.summary).toMatch(/^Test event for github.new_star, sent from the Integrations page/);
      expect(await page.locator(`#event-list li[data-event="${event!.id}"] .badge.test`).textContent()).toBe('test');

      // An MCP client reading the log gets it like any other event.
      const ctx = { deps: server.deps, signal: AbortSignal.timeout(5_000), progress: async () => undefined };
      const next = (await eventsNext.call({ cursor: String(cursor), triggers: [trigger.id] }, ctx)) as { events: Array<{ id: string; payload: Record<string, unknown> }> };
      expect(next.events.map((e) => e.id)).toEqual([String(event!.id)]);
      expect(next.events[0]!.payload.test).toBe(true);

      // And the trigger's forward URL receives it.
      const forwarded = await receiver.received;
      expect(forwarded.headers['x-switchboard-event-id']).toBe(String(event!.id));
      expect(forwarded.body).toMatchObject({ id: String(event!.id), trigger_id: trigger.id, payload: { test: true } });
      await server.store.triggers.remove(trigger.id);
    } finally {
      await receiver.close();
    }
  });
});
