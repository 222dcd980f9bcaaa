import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { exited, startHttpServe } from './cli.js';
import { connect, REVISIONS, setUp, type Connection, type Revision, type Setup } from './revisions.js';
import { revisionSuite } from './revisions-suite.js';

// One `serve --http` process: a 2026-07-28 client and a 2025-11-25 client at the same /mcp, side by side.
let sandbox: Sandbox;
let setup: Setup;
let server: { child: ChildProcess; url: string; stderr: () => string };
const connections = new Map<Revision, Connection>();

beforeAll(async () => {
  sandbox = await startSandbox();
  setup = await setUp(sandbox, 'revisions-http');
  server = await startHttpServe([], setup.env);
  for (const revision of REVISIONS) connections.set(revision, await connect(revision, { url: server.url }));
});

afterAll(async () => {
  for (const c of connections.values()) await c.close();
  if (server) {
    server.child.kill('SIGTERM');
    await exited(server.child);
  }
  await setup?.close();
  await sandbox?.close();
});

describe('MCP over Streamable HTTP, in both revisions', () => {
  revisionSuite({
    sandbox: () => sandbox,
    connection: (revision) => connections.get(revision)!,
    setup: () => setup,
    serverLog: () => server.stderr(),
    callbackBase: () => new URL(server.url).origin,
  });

  it('a client that negotiates automatically lands on 2026-07-28', async () => {
    const auto = await connect('2026-07-28', { url: server.url }, 'auto');
    try {
      expect(auto.negotiated()).toBe('2026-07-28');
      expect(auto.client.getProtocolEra()).toBe('modern');
      expect((await auto.call('accounts_list', {})).isError).toBeFalsy();
    } finally {
      await auto.close();
    }
  });
});
