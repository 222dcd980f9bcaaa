import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore, type SqliteStore } from '../../src/store/index.js';
import { leaseHolder } from '../store/states.js';
import { CLI, exited, runCli, startUntilReady } from './cli.js';
import { until } from '../support/wait.js';

const WAITING = /^Waiting for events \(.*\)…$/m;

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
    expect(bad.stderr).toMatch(/^- --filter: Filter error at position 12/m);
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
    const startTail = async () =>
      track((await startUntilReady(['events', 'tail', '--trigger', triggerId, '--exec', `cat >> ${out}; echo >> ${out}`], env, WAITING)).child);
    let tail = await startTail();
    const events = [await commit('one'), await commit('two'), await commit('three')];
    const lines = () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean) : []);
    await until(() => lines().length === 3, 'three exec runs', 10_000);
    expect(lines().map((l) => JSON.parse(l).id)).toEqual(events.map((e) => String(e.id)));
    expect(JSON.parse(lines()[0]!)).toMatchObject({ trigger_id: triggerId, kind: 'outlook.new_email', summary: 'one', payload: { n: 1 } });
    tail.kill('SIGTERM');
    expect(await exited(tail)).toBe(0);

    const missed = await commit('four, while tail was down');
    tail = await startTail();
    // Events run in order, so once the next one has run, a second run of the missed one would be in the file.
    const next = await commit('five');
    await until(() => lines().length >= 5, 'the missed event and the next one', 10_000);
    expect(lines().map((l) => JSON.parse(l).id)).toEqual([...events, missed, next].map((e) => String(e.id)));
    tail.kill('SIGTERM');
    await exited(tail);
  });

  it('events tail --exec records an event as failed after --max-attempts; events failed lists it and events retry runs it', async () => {
    const out = join(dataDir, 'retry.log');
    const flag = join(dataDir, 'broken');
    writeFileSync(flag, '');
    const started = await startUntilReady(
      ['events', 'tail', '--trigger', triggerId, '--consumer', 'e2e', '--max-attempts', '2', '--exec', `test -e ${flag} && exit 3; cat >> ${out}`],
      env,
      WAITING,
    );
    const tail = track(started.child);
    expect(started.stderr()).toContain(`Waiting for events (trigger ${triggerId}, consumer e2e, Ctrl-C to stop)…`);
    const event = await commit('fails until fixed');
    await until(() => started.stderr().includes('recorded as failed for consumer e2e'), 'the event to be recorded as failed', 15_000);
    expect(started.stderr()).toMatch(new RegExp(`--exec exited with code 3 for event ${event.id} \\(attempt 1 of 2\\); trying again in \\d\\.\\d s\\.`));
    expect(started.stderr()).toContain(`switchboard events retry ${event.id} --consumer e2e`);

    const listed = await runCli(['events', 'failed', '--consumer', 'e2e', '--json'], { env });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ consumer: 'e2e', attempts: 2, last_error: 'exited with code 3', event: { id: String(event.id), summary: 'fails until fixed' } }]);

    const unknown = await runCli(['events', 'retry', '999999'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe('switchboard: Event 999999 is not in the failed list; switchboard events failed lists the failed events.\n');
    rmSync(flag);
    const retried = await runCli(['events', 'retry', String(event.id), '--consumer', 'e2e'], { env });
    expect(retried.code).toBe(0);
    expect(retried.stdout).toMatch(/^Queued 1 failed event\(s\) to run again \(consumer e2e: \d+\)/);
    await until(() => existsSync(out) && readFileSync(out, 'utf8').includes('fails until fixed'), 'the retried run', 10_000);
    await until(() => started.stderr().includes(`Event ${event.id} succeeded on retry`), 'the retry to be recorded', 5_000);
    expect((await runCli(['events', 'failed', '--consumer', 'e2e'], { env })).stdout).toBe('No failed events for consumer e2e.\n');
    tail.kill('SIGTERM');
    expect(await exited(tail)).toBe(0);
  });

  it('events tail --json prints NDJSON as events come', async () => {
    const started = await startUntilReady(['events', 'tail', '--json'], env, WAITING);
    const tail = track(started.child);
    expect(started.stderr()).toContain('Waiting for events (all triggers, Ctrl-C to stop)…');
    const e = await commit('json line');
    await until(() => started.stdout().includes('\n'), 'a line', 10_000);
    expect(JSON.parse(started.stdout().split('\n')[0]!)).toMatchObject({ id: String(e.id), summary: 'json line' });
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
    const holder = () => leaseHolder(dataDir, 'listener');
    const pidOf = (h: string) => Number(h.split(':')[1]);
    await until(() => [a.transport.pid, b.transport.pid].includes(pidOf(holder())), 'a lease holder', 10_000);

    const first = await commit('seen by both');
    await until(() => a.seen.includes(String(first.id)) && b.seen.includes(String(first.id)), 'both notified', 10_000);

    const leader = pidOf(holder()) === a.transport.pid ? a : b;
    const other = leader === a ? b : a;
    process.kill(leader.transport.pid!, 'SIGKILL');
    const killedAt = Date.now();
    await until(() => pidOf(holder()) === other.transport.pid, 'takeover', 30_000);
    expect(Date.now() - killedAt).toBeLessThan(30_000);

    const second = await commit('after takeover');
    await until(() => other.seen.includes(String(second.id)), 'the survivor notified', 10_000);
    await other.client.close();
  });
});
