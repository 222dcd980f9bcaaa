import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Agent, request } from 'undici';
import { connectorTools } from '../dist/connectors/index.js';
import { createLogger } from '../dist/log.js';
import { createServer } from '../dist/mcp/server.js';
import { Redactor } from '../dist/redact.js';
import { startSandbox } from '../dist/sandbox/index.js';
import { openStore } from '../dist/store/index.js';
import { fmt, summary } from './stats.js';

/** A GET through github_api_call via a real MCP client vs the same request sent directly with undici. */
export async function benchApiCall({ calls }) {
  const sandbox = await startSandbox();
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  const redactor = new Redactor();
  const store = await openStore({ dataDir, secretKey: 'bench', redactor });
  for (const a of sandbox.accounts) await store.accounts.add(a);
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  const server = createServer({
    store,
    baseUrls: sandbox.baseUrls,
    redactor,
    readOnly: false,
    dispatcher,
    logger: createLogger({ level: 'error', redactor }),
    version: 'bench',
    tools: connectorTools({ readOnly: false }),
  });
  const client = new Client({ name: 'bench', version: '1' });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  await client.connect(ct);
  await client.listTools();

  const token = sandbox.accounts.find((a) => a.provider === 'github').secret.token;
  const path = '/repos/sbx-octocat/hello-world';
  const direct = async () => {
    const res = await request(sandbox.baseUrls.github + path, {
      dispatcher,
      headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${token}`, 'x-github-api-version': '2022-11-28' },
    });
    await res.body.json();
    if (res.statusCode !== 200) throw new Error(`direct ${res.statusCode}`);
  };
  const viaMcp = async () => {
    const r = await client.callTool({ name: 'github_api_call', arguments: { method: 'GET', endpoint: path, headers: { accept: 'application/vnd.github+json' } } });
    if (r.isError || r.structuredContent.status !== 200) throw new Error(`mcp ${JSON.stringify(r.content)}`);
  };

  for (let i = 0; i < 200; i++) {
    await direct();
    await viaMcp();
  }
  const a = [];
  const b = [];
  for (let i = 0; i < calls; i++) {
    const first = i % 2 === 0 ? direct : viaMcp;
    const second = first === direct ? viaMcp : direct;
    for (const fn of [first, second]) {
      const t0 = performance.now();
      await fn();
      (fn === direct ? a : b).push(performance.now() - t0);
    }
  }
  await client.close();
  await dispatcher.close();
  await store.close();
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });

  const base = summary(a);
  const mcp = summary(b);
  const added = mcp.p50 - base.p50;
  return {
    title: 'Tool-call overhead: github_api_call GET vs direct undici',
    method: `${calls} calls each, interleaved, after 200 warm-up pairs; in-process MCP client (in-memory transport) against the GitHub sandbox on 127.0.0.1. Target: at most 1 ms added at the median.`,
    table: [
      '| path | p50 | p90 | p99 |',
      '| --- | ---: | ---: | ---: |',
      `| direct undici (baseline) | ${fmt(base.p50)} | ${fmt(base.p90)} | ${fmt(base.p99)} |`,
      `| github_api_call via MCP | ${fmt(mcp.p50)} | ${fmt(mcp.p90)} | ${fmt(mcp.p99)} |`,
    ],
    verdict: `Added at the median: ${fmt(added)} ms (ratio ${(mcp.p50 / base.p50).toFixed(2)}x); target ≤ 1 ms: ${added <= 1 ? 'met' : 'NOT met'}.`,
    data: { name: 'api_call_overhead', calls, baseline: base, switchboard: mcp, addedMedianMs: added, ratio: mcp.p50 / base.p50 },
  };
}
