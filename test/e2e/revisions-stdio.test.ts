import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { connect, REVISIONS, setUp, type Connection, type Revision, type Setup } from './revisions.js';
import { revisionSuite } from './revisions-suite.js';

// Each client starts `serve` over stdio on a data dir of its own, so each server is its data dir's listener lease
// holder: the process that serves /oauth/callback, without which no sign-in link is offered.
let sandbox: Sandbox;
const setups = new Map<Revision, Setup>();
const connections = new Map<Revision, Connection>();

beforeAll(async () => {
  sandbox = await startSandbox();
  for (const revision of REVISIONS) setups.set(revision, await setUp(sandbox, `revisions-stdio-${revision.slice(0, 4)}`));
  await Promise.all(REVISIONS.map(async (revision) => connections.set(revision, await connect(revision, { env: setups.get(revision)!.env }))));
});

afterAll(async () => {
  for (const c of connections.values()) await c.close();
  for (const s of setups.values()) await s.close();
  await sandbox?.close();
});

describe('MCP over stdio, in both revisions', () => {
  revisionSuite({
    sandbox: () => sandbox,
    connection: (revision) => connections.get(revision)!,
    setup: (revision) => setups.get(revision)!,
    serverLog: (revision) => connections.get(revision)!.stderr(),
  });

  it('a client that negotiates automatically lands on 2026-07-28', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-auto-'));
    const auto = await connect('2026-07-28', { env: { SWITCHBOARD_DATA_DIR: dataDir } }, 'auto');
    try {
      expect(auto.negotiated()).toBe('2026-07-28');
      expect(auto.client.getProtocolEra()).toBe('modern');
      expect((await auto.call('accounts_list', {})).isError).toBeFalsy();
    } finally {
      await auto.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
