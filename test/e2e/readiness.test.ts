import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, freshDatabase, type TestDatabase } from '../pg.js';
import { damagePagesUnderServer } from '../store/states.js';
import { freePort } from '../pg-global.js';
import { CLI, exited, runCli, startHttpServe } from './cli.js';

const TOKEN = 'readiness-test-token-0123456789abcdef';
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ready-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface ReadyAnswer {
  status: number;
  body: { status: string; checks: Record<string, { ok: boolean; failed?: string; reason?: string }> };
}

async function readyz(base: string): Promise<ReadyAnswer> {
  const res = await fetch(`${base}/readyz`);
  return { status: res.status, body: await res.json() };
}

/** Asks /readyz until `wanted` holds of its answer (a load balancer's probe, every 250 ms), for at most 15 s. */
async function readyzUntil(base: string, wanted: (answer: ReadyAnswer) => boolean): Promise<ReadyAnswer> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answer = await readyz(base);
    if (wanted(answer) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function mcpClient(url: string): Promise<Client> {
  const client = new Client({ name: 'readiness', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');

describe('GET /readyz, a SQLite store', () => {
  it('is ready without the token, as /healthz; once damaged while serving it is not, and every request needing the store says why', async () => {
    const dataDir = mkdtempSync(join(root, 'sqlite-'));
    const dbFile = join(dataDir, 'switchboard.db');
    expect((await runCli(['accounts', 'list'], { env: { SWITCHBOARD_DATA_DIR: dataDir } })).code).toBe(0);
    const { child, url, stderr } = await startHttpServe([], { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_HTTP_TOKEN: TOKEN });
    const base = url.replace(/\/mcp$/, '');
    const client = await mcpClient(url);
    try {
      expect(await readyz(base)).toEqual({ status: 200, body: { status: 'ready', version: expect.any(String), checks: { store: { ok: true }, shutdown: { ok: true } } } });
      expect(textOf(await client.callTool({ name: 'triggers_list', arguments: {} }))).toContain('"triggers":[]');

      damagePagesUnderServer(dataDir);

      const notReady = await readyzUntil(base, (a) => a.status === 503);
      expect(notReady.status).toBe(503);
      expect(notReady.body.status).toBe('not ready');
      expect(notReady.body.checks.store).toMatchObject({ ok: false, failed: 'intact' });
      expect(notReady.body.checks.store!.reason).toMatch(/^The SQLite store is damaged \(SQLITE_CORRUPT\): restore it from a backup, or move it aside/);
      expect(JSON.stringify(notReady.body)).not.toContain(dataDir);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);

      const page = await fetch(`${base}/`);
      expect(page.status).toBe(503);
      expect(await page.text()).toMatch(/^Service unavailable: The SQLite store is damaged \(SQLITE_CORRUPT\)/);
      const hook = await fetch(`${base}/webhooks/vercel/trg_0123456789abcdef`, { method: 'POST', body: '{}' });
      expect(hook.status).toBe(503);

      // Triggers live on pages still intact: the tool is refused all the same, rather than answer an empty list.
      for (const name of ['triggers_list', 'accounts_list']) {
        const result = await client.callTool({ name, arguments: {} });
        expect(result.isError, name).toBe(true);
        expect(textOf(result)).toContain(`The store ${dbFile} is damaged`);
        expect(textOf(result)).toMatch(/Restore it from a backup, or move it aside/);
      }
      const failing = stderr()
        .split('\n')
        .filter((line) => line.includes('"store failing"'));
      expect(failing).toHaveLength(1);
      expect(JSON.parse(failing[0]!)).toMatchObject({ level: 'error', part: 'intact' });
    } finally {
      await client.close();
      child.kill('SIGTERM');
      await exited(child);
    }
  });

  it('over stdio, the listener lease holder answers it with the lease among its checks', async () => {
    const port = await freePort();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--port', String(port)],
      env: { PATH: process.env.PATH ?? '', SWITCHBOARD_DATA_DIR: mkdtempSync(join(root, 'stdio-')) },
      stderr: 'pipe',
    });
    let stderr = '';
    const listening = new Promise<void>((resolve) =>
      transport.stderr!.on('data', (d) => {
        stderr += d;
        if (stderr.includes('lease taken')) resolve();
      }),
    );
    const client = new Client({ name: 'readiness-stdio', version: '1' });
    await client.connect(transport);
    try {
      await client.callTool({ name: 'accounts_list', arguments: {} });
      await listening;
      const answer = await readyzUntil(`http://127.0.0.1:${port}`, (a) => a.status === 200);
      expect(answer).toEqual({ status: 200, body: { status: 'ready', version: expect.any(String), checks: { store: { ok: true }, lease: { ok: true }, shutdown: { ok: true } } } });
    } finally {
      await client.close();
    }
  });
});

/** A TCP relay to the test run's PostgreSQL server, which the test can cut (as a network failure would) and restore. */
async function relayTo(target: number) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const open = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = tcpConnect(target, '127.0.0.1');
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => undefined);
          socket.on('close', () => {
            sockets.delete(socket);
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server!.address() as { port: number }).port));
    });
  const port = await open(0);
  return {
    port,
    cut: () =>
      new Promise<void>((resolve) => {
        server!.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
    restore: () => open(port),
  };
}

describe('GET /readyz, a PostgreSQL store', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(() => database.drop());

  it('is not ready while the database does not answer (tools say which and what to do, never the password), and ready again once it does', async () => {
    const direct = new URL(database.url);
    const relay = await relayTo(Number(direct.port));
    const relayed = new URL(database.url);
    relayed.port = String(relay.port);
    const dataDir = mkdtempSync(join(root, 'pg-'));
    const { child, url, stderr } = await startHttpServe([], {
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_HTTP_TOKEN: TOKEN,
      SWITCHBOARD_SECRET_KEY: 'readiness test key',
      SWITCHBOARD_DATABASE_URL: relayed.toString(),
    });
    const base = url.replace(/\/mcp$/, '');
    const client = await mcpClient(url);
    try {
      expect((await readyz(base)).status).toBe(200);
      await relay.cut();
      const down = await readyzUntil(base, (a) => a.status === 503);
      expect(down.body.checks.store).toMatchObject({ ok: false, failed: 'reachable' });
      expect(down.body.checks.store!.reason).toMatch(/^The PostgreSQL store cannot be used: (nothing answers at that host and port|the server closed the connection)/);
      const result = await client.callTool({ name: 'triggers_list', arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Cannot use the PostgreSQL database postgres:\/\/switchboard:\*\*\*@127\.0\.0\.1:\d+\/sb_\w+: /);

      await relay.restore();
      const up = await readyzUntil(base, (a) => a.status === 200);
      expect(up.body.checks.store).toEqual({ ok: true });
      expect(textOf(await client.callTool({ name: 'triggers_list', arguments: {} }))).toContain('"triggers":[]');
      expect(stderr()).toContain('"store serving again"');
      expect(stderr() + JSON.stringify(down.body) + textOf(result)).not.toContain(direct.password);
      await client.close();
      // After the outage it still stops on SIGTERM (by itself, long before the test's deadline).
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
    } finally {
      await client.close();
      child.kill('SIGKILL');
      await relay.cut();
    }
  });

  it('is not ready once another version migrates the database past this one', async () => {
    const { child, url } = await startHttpServe([], {
      SWITCHBOARD_DATA_DIR: mkdtempSync(join(root, 'pg-schema-')),
      SWITCHBOARD_SECRET_KEY: 'readiness test key',
      SWITCHBOARD_DATABASE_URL: database.url,
    });
    const base = url.replace(/\/mcp$/, '');
    const sql = connect(database.url);
    try {
      expect((await readyz(base)).status).toBe(200);
      await sql`INSERT INTO schema_migrations (version) VALUES (999)`;
      const newer = await readyzUntil(base, (a) => a.status === 503);
      expect(newer.body.checks.store).toMatchObject({ ok: false, failed: 'schema' });
      expect(newer.body.checks.store!.reason).toMatch(/schema \(999\) is newer than this server's \(\d+\): upgrade this server and restart it/);
      await sql`DELETE FROM schema_migrations WHERE version = 999`;
      expect((await readyzUntil(base, (a) => a.status === 200)).status).toBe(200);
    } finally {
      await sql.end({ timeout: 1 });
      child.kill('SIGTERM');
      await exited(child);
    }
  });
});
