import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS, openStore } from '../../src/store/index.js';
import { setSchemaVersion } from '../store/states.js';
import { CLI, runCli, serveStdioUntilExit, type CliResult } from './cli.js';

// A process that fails to start must exit by itself: these wait for the exit, with a deadline far beyond the 2 s it needs.
const EXIT_DEADLINE_MS = 25_000;

let dataDir: string;
let busy: Server;
let busyPort: number;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-start-'));
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => busy.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

function expectPortAdvice(r: CliResult): void {
  expect(r.code, 'killed at the deadline: the process did not exit by itself').not.toBeNull();
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain(`port ${busyPort} is in use`);
  expect(r.stderr).toMatch(/--port N\b/);
  expect(r.stderr).toMatch(/--port 0 for any free one/);
}

describe('serve fails to start: it says why and how to fix it, and exits', () => {
  it('serve --http on a busy port', async () => {
    const r = await runCli(['serve', '--http', '--port', String(busyPort)], { env: { SWITCHBOARD_DATA_DIR: dataDir }, timeoutMs: EXIT_DEADLINE_MS });
    expectPortAdvice(r);
  });

  it('serve --sandbox --http on a busy port, with the sandbox providers already started', async () => {
    const r = await runCli(['serve', '--sandbox', '--http', '--port', String(busyPort)], { env: { SWITCHBOARD_DATA_DIR: dataDir }, timeoutMs: EXIT_DEADLINE_MS });
    expectPortAdvice(r);
  });

  it('serve over stdio on a data dir that is a file', async () => {
    const file = join(dataDir, 'not-a-directory');
    writeFileSync(file, 'x');
    const r = await serveStdioUntilExit(['--port', '0'], { SWITCHBOARD_DATA_DIR: file });
    expect(r.code, 'killed at the deadline: the process did not exit by itself').not.toBeNull();
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`Cannot open the store in ${file}: it is a file, not a directory`);
    expect(r.stderr).toContain('--data-dir DIR');
  });

  it('serve --http on a store written by a newer Switchboard', async () => {
    const newer = mkdtempSync(join(dataDir, 'newer-'));
    await (await openStore({ dataDir: newer })).close();
    setSchemaVersion(newer, MIGRATIONS.at(-1)!.version + 1);
    const r = await runCli(['serve', '--http', '--port', '0'], { env: { SWITCHBOARD_DATA_DIR: newer }, timeoutMs: EXIT_DEADLINE_MS });
    expect(r.code).not.toBeNull();
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/written by a newer Switchboard .* upgrade Switchboard or use another --data-dir/);
  });
});

describe('serve over stdio when the lease holder cannot bind its listener', () => {
  it('keeps serving MCP and logs which port is busy and what to do', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--port', String(busyPort)],
      env: { PATH: process.env.PATH ?? '', SWITCHBOARD_DATA_DIR: mkdtempSync(join(dataDir, 'lease-')) },
      stderr: 'pipe',
    });
    let stderr = '';
    const warned = new Promise<void>((resolve) =>
      transport.stderr!.on('data', (d) => {
        stderr += d;
        if (stderr.includes('HTTP listener not started')) resolve();
      }),
    );
    const client = new Client({ name: 'busy-port', version: '1' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(5);
      await warned;
      const line = JSON.parse(stderr.split('\n').find((l) => l.includes('HTTP listener not started'))!);
      expect(line).toMatchObject({ level: 'warn' });
      expect(line.msg).toMatch(/no process serves webhooks/);
      expect(line.message).toContain(`port ${busyPort} is in use`);
      expect(line.message).toMatch(/--port 0/);
      const r = await client.callTool({ name: 'accounts_list', arguments: {} });
      expect(r.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
