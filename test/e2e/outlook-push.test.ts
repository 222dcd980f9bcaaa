import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverEmail, liveSubscriptions, startSandbox, subscriptionSide, type Sandbox } from '../../src/sandbox/index.js';
import { openStore, type SqliteStore } from '../../src/store/index.js';
import { runCli, startUntilReady } from './cli.js';

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

async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
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

describe('serve --public-url with an outlook.new_email trigger', () => {
  it('subscribes, turns a change notification into one event, shows the mode, and unsubscribes when the trigger is removed', async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    server = (await startUntilReady(['serve', '--http', '--port', String(port), '--public-url', publicUrl], env, /"mcp":"http/)).child;

    const added = await runCli(['triggers', 'add', 'outlook.new_email', '--backstop', '600', '--public-url', publicUrl], { env });
    expect(added.code, added.stderr).toBe(0);
    const id = /Created trigger (trg_[0-9a-f]+)/.exec(added.stdout)![1]!;
    expect(added.stdout).toMatch(/subscribes to Graph change notifications.* switchboard triggers list shows its mode \(push or poll\) and why\./);

    const subscription = await until(() => liveSubscriptions(sandbox.states.outlook).find((s) => s.notificationUrl === `${publicUrl}/webhooks/outlook/${id}`), 'the subscription');
    const listed = await until(async () => {
      const out = await runCli(['triggers', 'list'], { env });
      return new RegExp(`^${id}\\s+outlook\\.new_email\\s+\\S+\\s+active\\s+push\\s`, 'm').test(out.stdout) && out;
    }, 'push in triggers list');
    expect(listed.code).toBe(0);
    const [json] = JSON.parse((await runCli(['triggers', 'list', '--json'], { env })).stdout);
    expect(json).toMatchObject({ config: { backstop_interval_seconds: 600 }, mode: 'push', mode_reason: expect.stringMatching(/delta poll every 600 s/) });

    deliverEmail(sandbox.states.outlook, { subject: 'Straight from Graph', from: { name: 'Dana', address: 'dana@acme.com' } });
    await until(async () => (await store.events.after(0, { triggerIds: [id], limit: 10 })).length > 0, 'the event');
    expect(subscription.posts.filter((p) => p.kind === 'change').map((p) => p.status)).toEqual([202]);

    const removed = await runCli(['triggers', 'remove', id], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(liveSubscriptions(sandbox.states.outlook)).toEqual([]);
    expect(subscriptionSide(sandbox.states.outlook).gone.map((s) => s.id)).toContain(subscription.id);
    expect((await store.events.after(0, { triggerIds: [id], limit: 10 })).map((e) => e.payload.subject)).toEqual(['Straight from Graph']);
  });
});
