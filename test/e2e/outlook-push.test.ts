import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deliverEmail,
  dropNotifications,
  grantSubscriptionsFor,
  liveSubscriptions,
  sendLifecycle,
  settleNotifications,
  startSandbox,
  subscriptionSide,
  type Sandbox,
  type SbxSubscription,
} from '../../src/sandbox/index.js';
import { openStore, type SqliteStore } from '../../src/store/index.js';
import { runCli, startUntilReady } from './cli.js';
import { until } from '../support/wait.js';

let sandbox: Sandbox;
let dataDir: string;
let env: Record<string, string>;
let store: SqliteStore;
let server: ChildProcess | undefined;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  sandbox = await startSandbox();
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-push-'));
  env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_OUTLOOK_BASE_URL: sandbox.baseUrls.outlook };
  const added = await runCli(['accounts', 'add', 'outlook', '--token-stdin'], { env, stdin: sandbox.accounts[0]!.secret.token! });
  expect(added.code, added.stderr).toBe(0);
  store = await openStore({ dataDir });
});

afterAll(async () => {
  if (server?.exitCode === null) server.kill('SIGKILL');
  await store.close();
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const subjects = async (id: string) => (await store.events.after(0, { triggerIds: [id], limit: 10 })).map((e) => e.payload.subject);
const email = (subject: string) => deliverEmail(sandbox.states.outlook, { subject, from: { name: 'Dana', address: 'dana@acme.com' } });
const notify = (url: string, clientState: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value: [{ subscriptionId: 'any', changeType: 'created', clientState, resource: 'Users/x/Messages/y' }] }) });

describe('serve --public-url with an outlook.new_email trigger', () => {
  it('subscribes; a notification is one event, a dropped one arrives at the backstop poll; renews, subscribes again when Graph removes it, and unsubscribes when the trigger is removed', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    server = (await startUntilReady(['serve', '--http', '--port', String(port), '--public-url', publicUrl], env, /"mcp":"http/)).child;

    // The shortest backstop allowed, so that a dropped notification is caught within the test.
    const added = await runCli(['triggers', 'add', 'outlook.new_email', '--backstop', '10', '--public-url', publicUrl], { env });
    expect(added.code, added.stderr).toBe(0);
    const id = /Created trigger (trg_[0-9a-f]+)/.exec(added.stdout)![1]!;
    expect(added.stdout).toMatch(/subscribes to Graph change notifications.* switchboard triggers list shows its mode \(push or poll\) and why\./);
    const url = `${publicUrl}/webhooks/outlook/${id}`;
    const subscribed = (notOf?: string) => until(() => liveSubscriptions(sandbox.states.outlook).find((s) => s.notificationUrl === url && s.id !== notOf), 'a subscription', 20_000);

    const subscription = await subscribed();
    const listed = await until(async () => {
      const out = await runCli(['triggers', 'list'], { env });
      return new RegExp(`^${id}\\s+outlook\\.new_email\\s+\\S+\\s+active\\s+push\\s`, 'm').test(out.stdout) && out;
    }, 'push in triggers list', 20_000);
    expect(listed.code).toBe(0);
    const [json] = JSON.parse((await runCli(['triggers', 'list', '--json'], { env })).stdout);
    expect(json).toMatchObject({ config: { backstop_interval_seconds: 10 }, mode: 'push', mode_reason: expect.stringMatching(/delta poll every 10 s/) });

    email('Straight from Graph');
    await until(async () => (await subjects(id)).length === 1, 'the event', 20_000);
    await settleNotifications(sandbox.states.outlook);
    expect(subscription.posts.filter((p) => p.kind === 'change').map((p) => p.status)).toEqual([202]);

    dropNotifications(sandbox.states.outlook);
    const dropped = email('Dropped on the way');
    expect(subscription.posts.find((p) => p.about === dropped.id)?.status).toBeNull();
    await until(async () => (await subjects(id)).length === 2, 'the backstop poll', 15_000);

    expect((await notify(url, 'guessed')).status).toBe(401);
    expect((await runCli(['triggers', 'list'], { env })).stdout).toContain(`${id}: 1 notification refused (wrong clientState).`);

    // From now on Graph grants six seconds, so the next subscription must be renewed within the test.
    grantSubscriptionsFor(sandbox.states.outlook, 6_000);
    expect((await sendLifecycle(sandbox.states.outlook, subscription.id, 'subscriptionRemoved')).status).toBe(202);
    const again: SbxSubscription = await subscribed(subscription.id);
    const firstExpiry = Date.parse(again.expirationDateTime);
    expect(firstExpiry - Date.now()).toBeLessThanOrEqual(6_000);
    await until(() => Date.now() > firstExpiry + 500, 'the first expiry to pass', 10_000);
    expect(liveSubscriptions(sandbox.states.outlook).map((s) => s.id)).toEqual([again.id]);
    expect(sandbox.servers.outlook.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith(`/subscriptions/${again.id}`)).length).toBeGreaterThanOrEqual(1);
    email('After the renewal');
    await until(async () => (await subjects(id)).length === 3, 'the event after the renewal', 20_000);
    await settleNotifications(sandbox.states.outlook);
    expect(again.posts.filter((p) => p.kind === 'change').map((p) => p.status)).toEqual([202]);

    const removed = await runCli(['triggers', 'remove', id], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(liveSubscriptions(sandbox.states.outlook)).toEqual([]);
    expect(subscriptionSide(sandbox.states.outlook).gone.map((s) => s.id)).toEqual(expect.arrayContaining([subscription.id, again.id]));
    expect((await notify(url, again.clientState!)).status).toBe(404);
    expect(await subjects(id)).toEqual(['Straight from Graph', 'Dropped on the way', 'After the renewal']);
  });
});
