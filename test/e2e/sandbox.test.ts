import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exited, runCli, startHttpServe } from './cli.js';

let dataDir: string;
let env: Record<string, string>;
const TEMPORARY = /No serve --sandbox is running/;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-sandbox-'));
  // Real hosts are unreachable here: a command that left the sandbox would fail.
  env = { SWITCHBOARD_DATA_DIR: dataDir };
});

afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('--sandbox without a running server', () => {
  it('uses stand-ins of its own and the sandbox store, never the real one', { timeout: 60_000 }, async () => {
    const list = await runCli(['accounts', 'list', '--sandbox', '--json'], { env });
    expect(list.code).toBe(0);
    expect(list.stderr).toMatch(TEMPORARY);
    const accounts = JSON.parse(list.stdout) as Array<{ provider: string; label: string; identity: string | null }>;
    expect(accounts.map((a) => `${a.provider}:${a.label}`).sort()).toEqual(['github:sandbox', 'outlook:sandbox', 'sales:sandbox', 'vercel:sandbox']);

    const added = await runCli(['accounts', 'add', 'github', '--sandbox', '--token-stdin', '--label', 'second'], { env, stdin: 'sbx-github-token-0001' });
    expect(added.stderr + added.stdout).toMatch(/Connected github account "second" \(sbx-octocat\)/);
    const trigger = await runCli(['triggers', 'add', 'outlook.new_email', '--sandbox', '--interval', '10'], { env });
    expect(trigger.code, trigger.stderr).toBe(0);
    expect((await runCli(['triggers', 'list', '--sandbox'], { env })).stdout).toMatch(/outlook\.new_email\s+sandbox\s+active/);

    const real = await runCli(['accounts', 'list'], { env });
    expect(real.stdout).toMatch(/No accounts connected/);
    expect((await runCli(['triggers', 'list'], { env })).stdout).toMatch(/No triggers/);
  });
});

describe('--sandbox beside serve --sandbox', () => {
  it('works against the running server\'s stand-ins, announced in its data directory while it runs', { timeout: 60_000 }, async () => {
    const { child, url, stderr } = await startHttpServe(['--sandbox'], env);
    try {
      const announced = join(dataDir, 'sandbox', 'sandbox.json');
      expect(JSON.parse(readFileSync(announced, 'utf8'))).toMatchObject({ pid: child.pid, mcp: url });
      expect(stderr()).toMatch(/Integrations page: http:\/\/127\.0\.0\.1:\d+\//);

      const added = await runCli(['accounts', 'add', 'vercel', '--sandbox', '--token-stdin', '--label', 'cli-added'], { env, stdin: 'sbx-vercel-token-0001' });
      expect(added.code, added.stderr).toBe(0);
      expect(added.stderr).not.toMatch(TEMPORARY);

      // The server sees what the CLI added: one store, one set of stand-ins.
      const client = new Client({ name: 'sandbox-e2e', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const r = await client.callTool({ name: 'accounts_list', arguments: { provider: 'vercel' } });
      expect((r.structuredContent as { accounts: Array<{ label: string }> }).accounts.map((a) => a.label)).toEqual(['sandbox', 'cli-added']);
      await client.close();
    } finally {
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
    }
    expect(existsSync(join(dataDir, 'sandbox', 'sandbox.json'))).toBe(false);
    const after = await runCli(['accounts', 'list', '--sandbox'], { env });
    expect(after.stderr).toMatch(TEMPORARY);
  });
});
