import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { haproxyBinary } from '../haproxy.js';
import { freePort } from '../pg-global.js';
import { freshDatabase, type TestDatabase } from '../pg.js';
import { docSection, shellBlocks } from '../docs/markdown.js';
import { CLI } from './cli.js';
import { connect, type Connection } from './revisions.js';

/** The deployment section's code blocks by language. */
function deploymentBlocks(): { sh: string; haproxy: string } {
  const section = docSection('docs/postgres.md', '## Several instances on PostgreSQL');
  const [sh] = shellBlocks('docs/postgres.md', '## Several instances on PostgreSQL');
  const [haproxy] = [...section.matchAll(/```haproxy\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(sh, 'the section has a sh block').toBeTruthy();
  expect(haproxy, 'the section has a haproxy block').toBeTruthy();
  return { sh: sh!, haproxy: haproxy! };
}

let database: TestDatabase;
let dir: string;
let script: ChildProcess;
let output = '';
let proxy: string;
let instances: string[];
let store: Store;

async function healthy(url: string): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(1_000) }).then(
    (res) => res.ok,
    () => false,
  );
}

beforeAll(async () => {
  const haproxy = haproxyBinary();
  database = await freshDatabase();
  dir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-deployment-'));
  const [front, a, b] = [await freePort(), await freePort(), await freePort()];
  const ports = (text: string) => text.replaceAll('8700', String(front)).replaceAll('8701', String(a)).replaceAll('8702', String(b));
  const { sh, haproxy: config } = deploymentBlocks();
  writeFileSync(join(dir, 'haproxy.cfg'), ports(config));
  // The commands as written; only what names this machine differs: the database, the directories, the ports, where the programs are.
  const commands = ports(sh)
    .replace(/postgres:\/\/switchboard:PASSWORD@db\.internal:5432\/switchboard/, database.url)
    .replaceAll('/var/lib/switchboard/', `${dir}/`)
    .replace(/^switchboard /gm, `${process.execPath} ${CLI} `)
    .replace(/^haproxy /m, `exec ${haproxy.path} `);
  script = spawn('bash', ['-e', '-c', commands], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...haproxy.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  script.stdout!.on('data', (d) => (output += d));
  script.stderr!.on('data', (d) => (output += d));
  proxy = `http://127.0.0.1:${front}`;
  instances = [`http://127.0.0.1:${a}`, `http://127.0.0.1:${b}`];
  const deadline = Date.now() + 60_000;
  while (!((await healthy(`${proxy}/healthz`)) && (await healthy(`${instances[0]}/healthz`)) && (await healthy(`${instances[1]}/healthz`)))) {
    if (script.exitCode !== null || Date.now() > deadline) throw new Error(`the deployment did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 120_000);

afterAll(async () => {
  if (script?.pid) {
    try {
      process.kill(-script.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
    await new Promise((resolve) => (script.exitCode !== null || script.signalCode !== null ? resolve(undefined) : script.once('exit', resolve)));
  }
  await store?.close();
  await database?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('docs/postgres.md deployment: two instances on PostgreSQL behind HAProxy', () => {
  it('serves 2026-07-28 clients from any instance, and keeps a 2025-11-25 session on the instance that opened it', { timeout: 60_000 }, async () => {
    const modern: Connection = await connect('2026-07-28', { url: `${proxy}/mcp` });
    for (let i = 0; i < 4; i++) {
      const listed = await modern.call('accounts_list', {});
      expect(listed.isError).toBeFalsy();
    }
    await modern.close();

    const legacy: Connection = await connect('2025-11-25', { url: `${proxy}/mcp` });
    const sessionId = (legacy.client as unknown as { transport: { sessionId?: string } }).transport.sessionId;
    expect(sessionId).toBeTruthy();
    for (let i = 0; i < 4; i++) expect((await legacy.call('accounts_list', {})).isError).toBeFalsy();
    // The session is one instance's: the other answers 404, so a client sent there opens a new one.
    const statuses = await Promise.all(
      instances.map(async (base) => {
        const res = await fetch(`${base}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId!, 'mcp-protocol-version': '2025-11-25' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }),
        });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses.sort()).toEqual([200, 404]);
    await legacy.close();
  });

  it('tells a 2026-07-28 listener behind the proxy of an event committed by any instance', { timeout: 60_000 }, async () => {
    // The key the documented commands drew at random, read back from an instance's environment.
    const pid = Number(readFileSync(`/proc/${script.pid}/task/${script.pid}/children`, 'utf8').trim().split(/\s+/)[0]);
    const key = /SWITCHBOARD_SECRET_KEY=([0-9a-f]{64})/.exec(readFileSync(`/proc/${pid}/environ`, 'utf8').replaceAll('\0', '\n'))![1]!;
    store = await openStore({ dataDir: join(dir, 'test'), databaseUrl: database.url, secretKey: key });
    const account = await store.accounts.add({ provider: 'github', secret: { kind: 'token', token: 'ghp_deployment_test' } });
    const trigger = await store.triggers.create({ kind: 'github.push', accountId: account.id, config: { repo: 'octo/hello' } });

    const listener: Connection = await connect('2026-07-28', { url: `${proxy}/mcp` });
    await listener.watch(`switchboard://triggers/${trigger.id}/events`);
    const [event] = await store.triggers.commit(trigger.id, { events: [{ dedupeKey: 'd1', occurredAt: new Date().toISOString(), summary: 'pushed through the proxy', payload: {} }] });
    const deadline = Date.now() + 10_000;
    while (!listener.updates.some((u) => u.note?.eventId === String(event!.id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(listener.updates.map((u) => u.note?.summary)).toContain('pushed through the proxy');
    await listener.close();
  });
});
