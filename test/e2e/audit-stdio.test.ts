import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, expect, it } from 'vitest';
import { CLI, runCli } from './cli.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

it('the built server over stdio records each call as stdio, with the client it named, and writes them all before it exits', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-audit-e2e-'));
  dirs.push(dataDir);
  const env = { PATH: process.env.PATH ?? '', SWITCHBOARD_DATA_DIR: dataDir };
  const client = new Client({ name: 'stdio agent', version: '1.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--sandbox', '--port', '0'], env, stderr: 'pipe' }));
  for (let i = 0; i < 3; i++) await client.callTool({ name: 'github_api_call', arguments: { method: 'GET', endpoint: '/user', headers: { accept: 'application/vnd.github+json' } } });
  await client.close();
  const listed = await runCli(['audit', '--sandbox', '--json'], { env });
  expect(listed.code, listed.stderr).toBe(0);
  const records = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
  expect(records.filter((r) => r.action === 'tool.call')).toEqual(
    Array.from({ length: 3 }, () => expect.objectContaining({ auth: 'stdio', who: 'owner', clientName: 'stdio agent 1.0', tool: 'github_api_call', effect: 'delete', outcome: 'ok', target: 'GET /user' })),
  );
  // The provider's own status: the first GET is answered 200, the next ones revalidate and are answered 304.
  expect(records.filter((r) => r.action === 'tool.call').map((r) => r.providerStatus)).toEqual([304, 304, 200]);
  const verified = await runCli(['audit', 'verify', '--sandbox'], { env });
  expect(verified.stdout).toMatch(/^The audit trail is intact: \d+ record\(s\)/);
}, 60_000);
