import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore, type SqliteStore } from '../../src/store/index.js';
import { CLI, exited, runCli } from './cli.js';

let sandbox: Sandbox;
let dataDir: string;
let env: Record<string, string>;
let store: SqliteStore;
let triggerId: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-trg-'));
  env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_OUTLOOK_BASE_URL: sandbox.baseUrls.outlook };
  const added = await runCli(['accounts', 'add', 'outlook', '--token-stdin'], { env, stdin: sandbox.accounts[0]!.secret.token! });
  expect(added.code).toBe(0);
  store = await openStore({ dataDir });
});

/** Every child a test starts, so a failing test leaves no process behind. */
const children: ChildProcess[] = [];
function track(child: ChildProcess): ChildProcess {
  children.push(child);
  return child;
}

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await store.close();
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

let n = 0;
async function commit(summary: string) {
  n++;
  const [event] = await store.triggers.commit(triggerId, { events: [{ dedupeKey: `k${n}`, occurredAt: new Date().toISOString(), summary, payload: { n } }] });
  return event!;
}

async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('triggers from the CLI', () => {
  it('adds, lists and refuses a bad filter with its position', async () => {
    const added = await runCli(['triggers', 'add', 'outlook.new_email', '--filter', 'subject:hello AND from:*@acme.com'], { env });
    expect(added.code).toBe(0);
    triggerId = /Created trigger (trg_[0-9a-f]+)/.exec(added.stdout)![1]!;
    expect(added.stdout).toMatch(/every 60 s/);
    const list = await runCli(['triggers', 'list', '--json'], { env });
    expect(JSON.parse(list.stdout)).toMatchObject([{ id: triggerId, kind: 'outlook.new_email', config: { filter: 'subject:hello AND from:*@acme.com' } }]);
    const bad = await runCli(['triggers', 'add', 'outlook.new_email', '--filter', 'subject:hi AND'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/config\.filter: Filter error at position 12/);
  });

  it('triggers secret stores a webhook secret only for webhook kinds, from stdin', async () => {
    const r = await runCli(['triggers', 'secret', triggerId, '--secret-stdin'], { env, stdin: 'a-secret-value-123' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/receives no webhooks/);
    const missing = await runCli(['triggers', 'secret', 'trg_0000000000000000', '--secret-stdin'], { env, stdin: 'a-secret-value-123' });
    expect(missing.stderr).toMatch(/No trigger "trg_0000000000000000"/);
  });

  it('events tail --exec runs the command once per event and resumes where it stopped', async () => {
    const out = join(dataDir, 'exec.log');
    const startTail = () =>
      track(spawn(process.execPath, [CLI, 'events', 'tail', '--trigger', triggerId, '--exec', `cat >> ${out}; echo >> ${out}`], {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: 'pipe',
      }));
    let tail = startTail();
    await new Promise((r) => setTimeout(r, 700));
    const events = [await commit('one'), await commit('two'), await commit('three')];
    const lines = () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean) : []);
    await until(() => lines().length === 3, 5_000, 'three exec runs');
    expect(lines().map((l) => JSON.parse(l).id)).toEqual(events.map((e) => String(e.id)));
    expect(JSON.parse(lines()[0]!)).toMatchObject({ trigger_id: triggerId, kind: 'outlook.new_email', summary: 'one', payload: { n: 1 } });
    tail.kill('SIGTERM');
    expect(await exited(tail)).toBe(0);

    const missed = await commit('four, while tail was down');
    tail = startTail();
    await until(() => lines().length === 4, 5_000, 'the missed event');
    await new Promise((r) => setTimeout(r, 300));
    expect(lines().map((l) => JSON.parse(l).id)).toEqual([...events, missed].map((e) => String(e.id)));
    tail.kill('SIGTERM');
    await exited(tail);
  });

  it('events tail --json prints NDJSON as events come', async () => {
    const tail = track(spawn(process.execPath, [CLI, 'events', 'tail', '--json'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' }));
    let stdout = '';
    tail.stdout.on('data', (d) => (stdout += d));
    await new Promise((r) => setTimeout(r, 700));
    const e = await commit('json line');
    await until(() => stdout.includes('\n'), 5_000, 'a line');
    expect(JSON.parse(stdout.split('\n')[0]!)).toMatchObject({ id: String(e.id), summary: 'json line' });
    tail.kill('SIGTERM');
    await exited(tail);
  });
});

const EventNotification = z.object({ method: z.literal('notifications/switchboard/event'), params: z.object({ eventId: z.string() }).passthrough() });

describe('two servers on one data dir', () => {
  it('both notify their clients; when the lease holder is killed the other takes over', { timeout: 60_000 }, async () => {
    const start = async () => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--port', '0'], env, stderr: 'pipe' });
      const client = new Client({ name: 'window', version: '1' });
      const seen: string[] = [];
      client.setNotificationHandler(EventNotification, (msg) => void seen.push(msg.params.eventId));
      await client.connect(transport);
      return { transport, client, seen };
    };
    const a = await start();
    const b = await start();
    const holder = () => (store.db.prepare("SELECT holder FROM leases WHERE name = 'runner'").get() as { holder: string } | undefined)?.holder ?? '';
    const pidOf = (h: string) => Number(h.split(':')[1]);
    await until(() => [a.transport.pid, b.transport.pid].includes(pidOf(holder())), 10_000, 'a lease holder');

    const first = await commit('seen by both');
    await until(() => a.seen.includes(String(first.id)) && b.seen.includes(String(first.id)), 1_500, 'both notified within ~1 s');

    const leader = pidOf(holder()) === a.transport.pid ? a : b;
    const other = leader === a ? b : a;
    process.kill(leader.transport.pid!, 'SIGKILL');
    const killedAt = Date.now();
    await until(() => pidOf(holder()) === other.transport.pid, 30_000, 'takeover');
    expect(Date.now() - killedAt).toBeLessThan(30_000);

    const second = await commit('after takeover');
    await until(() => other.seen.includes(String(second.id)), 1_500, 'the survivor notified');
    await other.client.close();
  });
});
