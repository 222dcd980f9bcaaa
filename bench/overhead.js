import { Agent, request } from 'undici';
import { SANDBOX_TOKENS } from '../dist/sandbox/index.js';
import { spawnBareHttpServer, spawnHttpServer, spawnStdioServer } from './spawn.js';
import { fmt, summary } from './stats.js';

const PATH = '/repos/sbx-octocat/hello-world';
const ARGS = { method: 'GET', endpoint: PATH, headers: { accept: 'application/vnd.github+json' } };

/** Times `calls` interleaved pairs: the same GET sent directly with undici, and through github_api_call. */
async function pairs(client, githubUrl, calls) {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  const direct = async () => {
    const res = await request(githubUrl + PATH, {
      dispatcher,
      headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${SANDBOX_TOKENS.github}`, 'x-github-api-version': '2022-11-28' },
    });
    await res.body.json();
    if (res.statusCode !== 200) throw new Error(`direct ${res.statusCode}`);
  };
  const viaMcp = async () => {
    const r = await client.callTool({ name: 'github_api_call', arguments: ARGS });
    if (r.isError || r.structuredContent.status !== 200) throw new Error(`mcp ${JSON.stringify(r.content).slice(0, 300)}`);
  };
  for (let i = 0; i < 100; i++) await Promise.all([direct(), viaMcp()]);
  const a = [];
  const b = [];
  for (let i = 0; i < calls; i++) {
    const order = i % 2 === 0 ? [direct, viaMcp] : [viaMcp, direct];
    for (const fn of order) {
      const t0 = performance.now();
      await fn();
      (fn === direct ? a : b).push(performance.now() - t0);
    }
  }
  await dispatcher.close();
  return { baseline: summary(a), switchboard: summary(b) };
}

/** The SDK's Streamable HTTP transport alone: a bare server's no-op tool, called the same way. */
async function bareSdkCalls(calls) {
  const bare = await spawnBareHttpServer();
  try {
    for (let i = 0; i < 100; i++) await bare.client.callTool({ name: 'ping', arguments: {} });
    const times = [];
    for (let i = 0; i < calls; i++) {
      const t0 = performance.now();
      await bare.client.callTool({ name: 'ping', arguments: {} });
      times.push(performance.now() - t0);
    }
    return summary(times);
  } finally {
    await bare.close();
  }
}

/** Tool-call overhead of a spawned `switchboard serve --sandbox` over stdio and over Streamable HTTP. */
export async function benchOverhead({ calls = 1000 } = {}) {
  const stdio = await spawnStdioServer();
  let overStdio;
  try {
    overStdio = await pairs(stdio.client, stdio.baseUrls.github, calls);
  } finally {
    await stdio.close();
  }
  const http = await spawnHttpServer();
  let overHttp;
  try {
    const client = await http.client();
    overHttp = await pairs(client, http.baseUrls.github, calls);
    await client.close();
  } finally {
    await http.close();
  }
  const bare = await bareSdkCalls(calls);
  const rows = [];
  const added = {};
  for (const [name, r] of [['stdio', overStdio], ['Streamable HTTP', overHttp]]) {
    added[name] = r.switchboard.p50 - r.baseline.p50;
    rows.push(`| ${name}: direct undici (baseline) | ${fmt(r.baseline.p50)} | ${fmt(r.baseline.p90)} | ${fmt(r.baseline.p99)} |`);
    rows.push(`| ${name}: github_api_call | ${fmt(r.switchboard.p50)} | ${fmt(r.switchboard.p90)} | ${fmt(r.switchboard.p99)} |`);
  }
  const met = (ms) => (ms <= 1 ? 'met' : 'NOT met');
  return {
    title: 'Tool-call overhead over stdio and Streamable HTTP: github_api_call GET vs direct undici',
    method:
      `A spawned \`switchboard serve --sandbox\` (stdio, then \`--http\`), driven by a real MCP client; ${calls} interleaved pairs after 100 warm-up pairs: ` +
      'the same GET of the GitHub sandbox (in the server process, on 127.0.0.1) sent directly with undici, and through github_api_call (ETag revalidation included). Target: at most 1 ms added at the median.',
    table: [
      '| path | p50 | p90 | p99 |',
      '| --- | ---: | ---: | ---: |',
      ...rows,
      `| Streamable HTTP: bare SDK server, no-op tool (the transport alone) | ${fmt(bare.p50)} | ${fmt(bare.p90)} | ${fmt(bare.p99)} |`,
    ],
    verdict:
      `Added at the median: ${fmt(added.stdio)} ms over stdio (${(overStdio.switchboard.p50 / overStdio.baseline.p50).toFixed(2)}x), ${fmt(added['Streamable HTTP'])} ms over Streamable HTTP ` +
      `(${(overHttp.switchboard.p50 / overHttp.baseline.p50).toFixed(2)}x); target ≤ 1 ms: stdio ${met(added.stdio)}, HTTP ${met(added['Streamable HTTP'])}. ` +
      `A bare SDK server's no-op tool takes ${fmt(bare.p50)} ms over the same transport, so Switchboard adds ${fmt(overHttp.switchboard.p50 - overHttp.baseline.p50 - bare.p50)} ms beyond the SDK's HTTP transport and the upstream request.`,
    data: { name: 'tool_call_overhead', calls, stdio: overStdio, http: overHttp, bareSdkHttp: bare, addedMedianMs: added },
  };
}
