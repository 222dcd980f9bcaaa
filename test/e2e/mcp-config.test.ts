import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from './cli.js';

let dataDir: string;
let elsewhere: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-mcpconfig-'));
  elsewhere = mkdtempSync(join(tmpdir(), 'switchboard-e2e-elsewhere-'));
});

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

interface Entry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

async function listToolsWith(entry: Entry): Promise<string[]> {
  // As a desktop assistant starts it: another working directory, no PATH, only the snippet's environment.
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env: entry.env, cwd: elsewhere, stderr: 'pipe' });
  const client = new Client({ name: 'desktop', version: '1' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

describe('switchboard mcp-config', () => {
  it('prints a Claude Desktop snippet whose command starts this install from any directory', async () => {
    const r = await runCli(['mcp-config', '--data-dir', dataDir], { env: {} });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/claude_desktop_config\.json/);
    const entry = JSON.parse(r.stdout).mcpServers.switchboard as Entry;
    expect(entry.command).toBe(process.execPath);
    expect(entry.args).toEqual([realpathSync(CLI), 'serve']);
    expect(entry.env).toEqual({ SWITCHBOARD_DATA_DIR: dataDir });
    const tools = await listToolsWith(entry);
    expect(tools).toContain('github_create_issue');
    expect(tools).toContain('accounts_list');
  });

  it('carries --sandbox and the tool options into the command, and serves the sample accounts', async () => {
    const r = await runCli(['mcp-config', '--client', 'cursor', '--sandbox', '--toolsets', 'github', '--read-only', '--name', 'sb'], { env: { SWITCHBOARD_DATA_DIR: dataDir } });
    expect(r.code).toBe(0);
    const entry = JSON.parse(r.stdout).mcpServers.sb as Entry;
    expect(entry.args).toEqual([realpathSync(CLI), 'serve', '--sandbox', '--toolsets', 'github', '--read-only']);
    const tools = await listToolsWith(entry);
    expect(tools).toContain('github_get_repository');
    expect(tools.some((t) => t.startsWith('outlook_') || t === 'github_create_issue')).toBe(false);
  });

  it('prints the VS Code form and a claude mcp add command', async () => {
    const vscode = await runCli(['mcp-config', '--client', 'vscode', '--data-dir', dataDir], { env: {} });
    const server = JSON.parse(vscode.stdout).servers.switchboard;
    expect(server).toMatchObject({ type: 'stdio', command: process.execPath, args: [realpathSync(CLI), 'serve'] });
    const code = await runCli(['mcp-config', '--client', 'claude-code', '--data-dir', dataDir], { env: {} });
    expect(code.stdout.trim()).toBe(
      `claude mcp add --transport stdio --scope user --env SWITCHBOARD_DATA_DIR=${dataDir} switchboard -- ${process.execPath} ${realpathSync(CLI)} serve`,
    );
  });

  it('refuses a server name clients could not use', async () => {
    const r = await runCli(['mcp-config', '--name', 'has space'], { env: { SWITCHBOARD_DATA_DIR: dataDir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--name must be 1 to 32 letters, digits, - or _/);
  });
});
