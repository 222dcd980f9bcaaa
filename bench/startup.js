import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fmt, summary } from './stats.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** A bare SDK server with one tool: what any Node MCP server pays to start, measured the same way. */
const BASELINE = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
const server = new McpServer({ name: 'baseline', version: '1' });
server.registerTool('ping', { description: 'ping' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
await server.connect(new StdioServerTransport());
`;

async function timeToToolsList(command, args, env) {
  const t0 = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: 'ignore' }));
  await client.listTools();
  const ms = performance.now() - t0;
  await client.close();
  return ms;
}

/** Spawn of `switchboard serve` to the tools/list answer over stdio, beside a bare SDK server. */
export async function benchStartup({ runs = 15 } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-start-'));
  const baselineFile = fileURLToPath(new URL('./.baseline-server.mjs', import.meta.url));
  writeFileSync(baselineFile, BASELINE);
  const env = { PATH: process.env.PATH, SWITCHBOARD_DATA_DIR: dataDir };
  const a = [];
  const b = [];
  await timeToToolsList(process.execPath, [CLI, 'serve', '--port', '0'], env);
  for (let i = 0; i < runs; i++) {
    a.push(await timeToToolsList(process.execPath, [baselineFile], env));
    b.push(await timeToToolsList(process.execPath, [CLI, 'serve', '--port', '0'], env));
  }
  rmSync(baselineFile, { force: true });
  rmSync(dataDir, { recursive: true, force: true });
  const base = summary(a);
  const sb = summary(b);
  return {
    title: 'Start-up: spawn to tools/list over stdio',
    method: `${runs} runs each, interleaved, after one warm-up: a client spawns the process and waits for the tools/list answer. Baseline: a bare SDK server with one tool. Target: at most 500 ms.`,
    table: ['| server | p50 | p90 |', '| --- | ---: | ---: |', `| bare SDK server (baseline) | ${fmt(base.p50)} | ${fmt(base.p90)} |`, `| switchboard serve | ${fmt(sb.p50)} | ${fmt(sb.p90)} |`],
    verdict: `Switchboard starts in ${fmt(sb.p50)} ms at the median (${(sb.p50 / base.p50).toFixed(2)}x the bare server); target ≤ 500 ms: ${sb.p50 <= 500 ? 'met' : 'NOT met'}.`,
    data: { name: 'startup', runs, baseline: base, switchboard: sb },
  };
}
