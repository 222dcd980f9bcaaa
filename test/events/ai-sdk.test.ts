import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceNode } from '../conformance/suite.js';
import { exited, startHttpServe } from '../e2e/cli.js';
import { postModern } from '../mcp/sse.js';
import { until } from '../support/wait.js';

/**
 * An agent app on the AI SDK (@ai-sdk/mcp 2.0.x, its own webhook receiver verifying every signature) against
 * `switchboard serve --sandbox --http`: it lists the event types, subscribes to new email with a filter (the challenge
 * is answered before subscribe returns), receives a sandbox email that matches as a verified event and nothing for one
 * that does not, refreshes, and unsubscribes, which removes the trigger made for it.
 */

const APP = fileURLToPath(new URL('./ai-sdk-client.mjs', import.meta.url));
const NAME = 'outlook.new_email';

let dataDir: string;
let serve: { child: ChildProcess; url: string };
let node22: string;

beforeAll(async () => {
  node22 = await conformanceNode();
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-ai-sdk-'));
  serve = await startHttpServe(['--sandbox'], { SWITCHBOARD_DATA_DIR: dataDir });
}, 240_000);
afterAll(async () => {
  serve?.child.kill('SIGTERM');
  if (serve) await exited(serve.child);
  rmSync(dataDir, { recursive: true, force: true });
});

type Line = Record<string, any>;

/** The app as a child process: steps go in as JSON lines, what it says comes back as JSON lines. */
async function startApp(options: { discovery?: boolean; url?: string } = {}) {
  const child = spawn(node22, [APP, JSON.stringify({ url: serve.url, ...options })], { stdio: ['pipe', 'pipe', 'pipe'], cwd: fileURLToPath(new URL('../..', import.meta.url)) });
  const lines: Line[] = [];
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(JSON.parse(line)));
  await until(() => lines.find((l) => l.ready) ?? (child.exitCode !== null && Promise.reject(new Error(`the app exited: ${stderr}`))), 'the app to start', 30_000);
  /** Sends one step and returns its answer (the first line that is not a receipt, event or receiver report). */
  const step = async (input: Line, key: string): Promise<Line> => {
    const from = lines.length;
    child.stdin.write(JSON.stringify(input) + '\n');
    const answer = await until(() => lines.slice(from).find((l) => key in l || 'error' in l), `the app's answer to ${input.do}`, 30_000);
    if ('error' in answer) throw new Error(`${input.do} failed in the app: ${JSON.stringify(answer.error)}`);
    return answer[key];
  };
  return {
    lines,
    step,
    receipts: () => lines.filter((l) => l.received).map((l) => l.received),
    events: () => lines.filter((l) => l.event),
    async close() {
      child.stdin.write('{"do":"close"}\n');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

const sandbox = (dir = dataDir) => JSON.parse(readFileSync(join(dir, 'sandbox', 'sandbox.json'), 'utf8')) as { servers: { outlook: string } };

async function deliverEmail(subject: string, from: string, dir = dataDir) {
  const res = await fetch(`${sandbox(dir).servers.outlook}/_sandbox/outlook/deliver`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ subject, from: { name: 'Sender', address: from }, text: `Body of ${subject}` }),
  });
  expect(res.status).toBe(201);
}

async function triggers(url = serve.url): Promise<Array<{ id: string; kind: string; fired: number }>> {
  const client = new Client({ name: 'ai-sdk-e2e', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const result = await client.callTool({ name: 'triggers_list', arguments: {} });
  await client.close();
  return (result.structuredContent as { triggers: Array<{ id: string; kind: string; fired: number }> }).triggers;
}

describe('the AI SDK as an events client', () => {
  it('lists, subscribes with its own webhook, receives a matching sandbox email as a verified event, refreshes and unsubscribes', { timeout: 120_000 }, async () => {
    const app = await startApp();
    try {
      const listed = (await app.step({ do: 'list' }, 'listed')) as Array<{ name: string; delivery: string[] }>;
      expect(listed).toHaveLength(31);
      expect(listed.every((t) => t.delivery.includes('webhook'))).toBe(true);

      const args = { filter: 'from:*@acme.com', poll_interval_seconds: 10 };
      const subscribed = await app.step({ do: 'subscribe', name: NAME, arguments: args }, 'subscribed');
      expect(subscribed.id).toMatch(/^sub_[0-9a-f]{64}$/);
      expect(Date.parse(subscribed.refreshBefore)).toBeGreaterThan(Date.now());
      const subscribedAt = app.lines.findIndex((l) => l.subscribed);
      const challenges = app.lines.slice(0, subscribedAt).filter((l) => l.received?.control);
      expect(challenges).toHaveLength(1);
      expect(challenges[0]!.received.status).toBe(200);
      const made = (await triggers()).filter((t) => t.kind === NAME);
      expect(made).toHaveLength(1);

      await deliverEmail('Not for this agent', 'someone@elsewhere.example');
      await deliverEmail('Quarterly numbers', 'dana@acme.com');
      const [delivered] = await until(() => (app.events().length ? app.events() : undefined), 'the matching email as an event', 40_000);
      const event = delivered!.event;
      expect(delivered!.subscription).toBe(subscribed.id);
      expect(event).toMatchObject({ name: NAME, data: { subject: 'Quarterly numbers' } });
      // The app says the event when its handler ran, and the receipt once the receiver has answered: wait for both.
      const receipt = await until(() => app.receipts().find((r) => r.webhookId === event.eventId), 'the receipt of the event', 10_000);
      expect(receipt.status).toBe(204);
      const { body } = await postModern(serve.url, 'events/list');
      const type = body.result.events.find((t: { name: string }) => t.name === NAME);
      const ajv = new Ajv2020({ strict: true, allErrors: true });
      addFormats(ajv);
      const valid = ajv.compile(type.payloadSchema);
      expect(valid(event.data), JSON.stringify(valid.errors)).toBe(true);

      const refreshed = await app.step({ do: 'refresh' }, 'refreshed');
      expect(refreshed.id).toBe(subscribed.id);
      expect(Date.parse(refreshed.refreshBefore)).toBeGreaterThanOrEqual(Date.parse(subscribed.refreshBefore));
      expect(app.receipts().filter((r) => r.control)).toHaveLength(1);

      await app.step({ do: 'unsubscribe' }, 'unsubscribed');
      expect((await triggers()).filter((t) => t.kind === NAME)).toEqual([]);
      const posts = app.receipts().length;
      await deliverEmail('After unsubscribing', 'dana@acme.com');
      await new Promise((r) => setTimeout(r, 1_500));
      expect(app.receipts()).toHaveLength(posts);
      expect(app.events()).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it('works through the 2025-11-25 initialize fallback too', { timeout: 60_000 }, async () => {
    const app = await startApp({ discovery: false });
    try {
      expect(await app.step({ do: 'list' }, 'listed')).toHaveLength(31);
      const subscribed = await app.step({ do: 'subscribe', name: NAME, arguments: { filter: 'subject:fallback' } }, 'subscribed');
      expect(subscribed.id).toMatch(/^sub_/);
      expect(subscribed.refreshBefore).toMatch(/Z$/);
      await app.step({ do: 'unsubscribe' }, 'unsubscribed');
      expect((await triggers()).filter((t) => t.kind === NAME)).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('gets what it missed while its subscription had lapsed when it refreshes with its kept cursor', { timeout: 120_000 }, async () => {
    // A server that grants lifetimes as short as 5 s, so the subscription lapses within the test.
    const lapsingDir = mkdtempSync(join(tmpdir(), 'switchboard-ai-sdk-lapse-'));
    const lapsing = await startHttpServe(['--sandbox'], { SWITCHBOARD_DATA_DIR: lapsingDir, SWITCHBOARD_EVENTS_MIN_TTL_SECONDS: '5' });
    const app = await startApp({ url: lapsing.url });
    try {
      const subscribed = await app.step({ do: 'subscribe', name: NAME, arguments: { filter: 'subject:lapsed', poll_interval_seconds: 10 }, ttlMs: 5_000 }, 'subscribed');
      const lapsedAt = Date.parse(subscribed.refreshBefore);
      expect(lapsedAt - Date.now()).toBeLessThanOrEqual(5_000);
      await new Promise((r) => setTimeout(r, Math.max(0, lapsedAt - Date.now()) + 500));

      await deliverEmail('lapsed while away', 'dana@acme.com', lapsingDir);
      await until(async () => (await triggers(lapsing.url)).find((t) => t.kind === NAME && t.fired === 1), 'the email in the log', 40_000);
      expect(app.events()).toEqual([]);

      const refreshed = await app.step({ do: 'refresh' }, 'refreshed');
      expect(refreshed).toMatchObject({ id: subscribed.id, truncated: false });
      const [missed] = await until(() => (app.events().length ? app.events() : undefined), 'the missed email, replayed', 40_000);
      expect(missed!.event).toMatchObject({ name: NAME, data: { subject: 'lapsed while away' } });
    } finally {
      await app.close();
      lapsing.child.kill('SIGTERM');
      await exited(lapsing.child);
      rmSync(lapsingDir, { recursive: true, force: true });
    }
  });
});
