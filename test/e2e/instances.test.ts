import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { freshDatabase, type TestDatabase } from '../pg.js';
import { exited, runCli, startHttpServe } from './cli.js';
import { connect, type Connection } from './revisions.js';
import { until } from '../support/wait.js';

const REPO = 'sbx-octocat/hello-world';
const SECRET_KEY = 'instances share this key';

let sandbox: Sandbox;
let database: TestDatabase;
let store: Store;
const dirs: string[] = [];
const cleanups: Array<() => Promise<unknown> | void> = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  database = await freshDatabase();
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await store?.close();
  await sandbox.close();
  await database.drop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** One instance's settings: its own data dir, the shared database and key. */
function instanceEnv(name: string): Record<string, string> {
  const dataDir = mkdtempSync(join(tmpdir(), `switchboard-e2e-instance-${name}-`));
  dirs.push(dataDir);
  return {
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_DATABASE_URL: database.url,
    SWITCHBOARD_SECRET_KEY: SECRET_KEY,
    SWITCHBOARD_GITHUB_BASE_URL: sandbox.baseUrls.github,
    SWITCHBOARD_PUBLIC_URL: 'https://switchboard.example.net',
  };
}

async function startInstance(name: string) {
  const started = await startHttpServe([], instanceEnv(name));
  cleanups.push(async () => {
    if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGTERM');
    await exited(started.child);
  });
  return { ...started, base: started.url.replace(/\/mcp$/, '') };
}

/** Where forwarded events land: it answers every POST at once, but for the first, which it holds until the end. */
function startReceiver(): Promise<{ url: string; seen: Array<{ eventId: string; at: number }>; server: Server }> {
  const seen: Array<{ eventId: string; at: number }> = [];
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      seen.push({ eventId: String(req.headers['x-switchboard-event-id']), at: Date.now() });
      if (seen.length === 1) held.push(res);
      else res.writeHead(204).end();
    });
  });
  cleanups.push(() => {
    for (const res of held) res.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}/events`, seen, server })));
}

describe('several instances on one PostgreSQL database', () => {
  it('share accounts, triggers and events; a webhook to A reaches a session on B; kill -9 of A under load loses nothing acknowledged', { timeout: 120_000 }, async () => {
    const receiver = await startReceiver();
    const a = await startInstance('a');
    const envA = instanceEnv('a-cli');
    expect((await runCli(['accounts', 'add', 'github', '--token-stdin'], { env: envA, stdin: SANDBOX_TOKENS.github })).code).toBe(0);
    const added = await runCli(['triggers', 'add', 'github.new_issue', '--config', JSON.stringify({ repo: REPO }), '--forward-url', receiver.url], { env: envA });
    expect(added.code, added.stderr).toBe(0);
    const triggerId = /Created trigger (trg_[0-9a-f]+)/.exec(added.stdout)![1]!;

    store = await openStore({ dataDir: envA.SWITCHBOARD_DATA_DIR!, databaseUrl: database.url, secretKey: SECRET_KEY });
    const hookId = (await store.triggers.get(triggerId))!.providerRefs.hookId as string;
    const hookSecret = await store.hooks.secret(hookId);
    const issue = await (await fetch(`${sandbox.baseUrls.github}/repos/${REPO}/issues`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SANDBOX_TOKENS.github}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Shared by every instance' }),
    })).json();
    const repository = await (await fetch(`${sandbox.baseUrls.github}/repos/${REPO}`, { headers: { authorization: `Bearer ${SANDBOX_TOKENS.github}` } })).json();
    const deliver = async (base: string, n: number): Promise<number> => {
      const body = JSON.stringify({ action: 'opened', issue: { ...issue, title: `Issue ${n}` }, repository, sender: issue.user });
      const res = await fetch(`${base}/webhooks/github/${hookId}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issues',
          'x-github-delivery': `delivery-${n}`,
          'x-hub-signature-256': 'sha256=' + createHmac('sha256', hookSecret).update(body).digest('hex'),
        },
        body,
      });
      await res.arrayBuffer();
      return res.status;
    };

    // A is alone: it claims the first event's forward, which the receiver holds open.
    expect(await deliver(a.base, 0)).toBe(200);
    await until(() => receiver.seen.length === 1, 'the first forward', 10_000);

    const b = await startInstance('b');
    const onB: Connection = await connect('2025-11-25', { url: b.url });
    cleanups.push(() => onB.close());
    const modernOnB: Connection = await connect('2026-07-28', { url: b.url });
    cleanups.push(() => modernOnB.close());
    const uri = `switchboard://triggers/${triggerId}/events`;
    await onB.watch(uri);
    await modernOnB.watch(uri);

    // The account added with A's settings works through B.
    const repo = await modernOnB.call('github_get_repository', { owner: 'sbx-octocat', repo: 'hello-world' });
    expect(repo.isError, JSON.stringify(repo.content)).toBeFalsy();
    expect(repo.structuredContent).toMatchObject({ full_name: REPO });

    // A webhook delivered to A reaches both sessions on B.
    expect(await deliver(a.base, 1)).toBe(200);
    for (const client of [onB, modernOnB]) {
      await until(() => client.updates.find((u) => u.note?.summary.includes('Issue 1')), 'the event on B', 10_000);
    }

    // Load on A, with A killed in the middle; senders move to B when A stops answering.
    const acknowledged: number[] = [];
    let next = 2;
    let killedAt = 0;
    const sender = async () => {
      while (next < 300) {
        const n = next++;
        const target = killedAt ? b.base : a.base;
        const status = await deliver(target, n).catch(() => 0);
        if (status === 200) acknowledged.push(n);
        else if (status !== 0) throw new Error(`delivery ${n} answered ${status}`);
        if (!killedAt && acknowledged.length >= 100) {
          killedAt = Date.now();
          a.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, sender));
    expect(killedAt).toBeGreaterThan(0);
    await exited(a.child);

    const events = await store.events.after(0, { triggerIds: [triggerId], limit: 1000 });
    const keys = events.map((e) => e.dedupeKey);
    for (const n of acknowledged) expect(keys).toContain(`delivery-${n}`);
    expect(new Set(keys).size).toBe(keys.length);

    // B carries on: its session hears of a delivery made after the kill.
    const last = acknowledged.at(-1)!;
    await until(() => onB.updates.find((u) => u.note?.summary.includes(`Issue ${last}`)), 'an event after the kill on B', 10_000);

    // The forward A had claimed is sent again by B once A's claim runs out.
    const firstId = String(events.find((e) => e.dedupeKey === 'delivery-0')!.id);
    const retried = await until(() => receiver.seen.slice(1).find((s) => s.eventId === firstId), 'B to take over the forward A held', 40_000);
    expect(retried.at - killedAt).toBeLessThan(30_000);
  });
});
