import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fmt, summary } from './stats.js';

const CLI = fileURLToPath(new URL('../dist/bin/switchboard.js', import.meta.url));

/** A bare SDK server with one tool: what any Node MCP server pays to start, measured the same way. */
const BASELINE = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
const server = new McpServer({ name: 'baseline', version: '1' });
server.registerTool('ping', { description: 'ping' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
await server.connect(new StdioServerTransport());
`;

/** Spawn to the tools/list answer, and to the answer of a first tools/call made right after it. */
async function timeToToolsList(command, args, env, firstCall) {
  const t0 = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: 'ignore' }));
  await client.listTools();
  const list = performance.now() - t0;
  const result = await client.callTool({ name: firstCall, arguments: {} });
  if (result.isError) throw new Error(`${firstCall} failed: ${JSON.stringify(result.content)}`);
  const call = performance.now() - t0;
  await client.close();
  return { list, call };
}

/** Spawn of `switchboard serve` to the tools/list answer over stdio, beside a bare SDK server. */
export async function benchStartup({ runs = 15 } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-start-'));
  const baselineFile = fileURLToPath(new URL('./.baseline-server.mjs', import.meta.url));
  writeFileSync(baselineFile, BASELINE);
  const env = { PATH: process.env.PATH, SWITCHBOARD_DATA_DIR: dataDir };
  const a = [];
  const b = [];
  const bare = () => timeToToolsList(process.execPath, [baselineFile], env, 'ping');
  const switchboard = () => timeToToolsList(process.execPath, [CLI, 'serve', '--port', '0'], env, 'accounts_list');
  await switchboard();
  for (let i = 0; i < runs; i++) {
    a.push(await bare());
    b.push(await switchboard());
  }
  rmSync(baselineFile, { force: true });
  rmSync(dataDir, { recursive: true, force: true });
  const base = summary(a.map((r) => r.list));
  const sb = summary(b.map((r) => r.list));
  const baseCall = summary(a.map((r) => r.call));
  const sbCall = summary(b.map((r) => r.call));
  const ratio = sb.p50 / base.p50;
  return {
    title: 'Start-up: spawn to tools/list over stdio',
    method:
      `${runs} runs each, interleaved, after one warm-up: a client spawns the process and waits for the tools/list answer, then makes a first tools/call ` +
      '(switchboard loads its tools and store for it; the bare server has them at once). Baseline: a bare SDK server with one tool. ' +
      'Targets: tools/list at most 1.3x the bare server, and at most 500 ms.',
    table: [
      '| server | p50 | p90 |',
      '| --- | ---: | ---: |',
      `| bare SDK server (baseline): tools/list | ${fmt(base.p50)} | ${fmt(base.p90)} |`,
      `| switchboard serve: tools/list | ${fmt(sb.p50)} | ${fmt(sb.p90)} |`,
      `| bare SDK server: first tools/call (ping) | ${fmt(baseCall.p50)} | ${fmt(baseCall.p90)} |`,
      `| switchboard serve: first tools/call (accounts_list) | ${fmt(sbCall.p50)} | ${fmt(sbCall.p90)} |`,
    ],
    verdict:
      `Switchboard answers tools/list ${fmt(sb.p50)} ms after spawn at the median (${ratio.toFixed(2)}x the bare server); ` +
      `targets ≤ 1.3x: ${ratio <= 1.3 ? 'met' : 'NOT met'}, ≤ 500 ms: ${sb.p50 <= 500 ? 'met' : 'NOT met'}. ` +
      `Its first tools/call answers ${fmt(sbCall.p50)} ms after spawn (${(sbCall.p50 / baseCall.p50).toFixed(2)}x the bare server's).`,
    data: { name: 'startup', runs, baseline: base, switchboard: sb, firstCall: { baseline: baseCall, switchboard: sbCall } },
  };
}
