import { Agent, request } from 'undici';
import { SANDBOX_TOKENS } from '../dist/sandbox/index.js';
import { spawnBareHttpServer, spawnHttpServer, spawnStdioServer } from './spawn.js';
import { fmt, summary } from './stats.js';

const PATH = '/repos/sbx-octocat/hello-world';
const ARGS = { method: 'GET', endpoint: PATH, headers: { accept: 'application/vnd.github+json' } };

/** The upstream GET sent directly with undici: the baseline. */
function directGet(githubUrl) {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  const headers = { accept: 'application/vnd.github+json', authorization: `Bearer ${SANDBOX_TOKENS.github}`, 'x-github-api-version': '2022-11-28' };
  const call = async () => {
    const res = await request(githubUrl + PATH, { dispatcher, headers });
    await res.body.json();
    if (res.statusCode !== 200) throw new Error(`direct ${res.statusCode}`);
  };
  return { call, close: () => dispatcher.close() };
}

/** tools/call POSTed with undici on an SDK client's session: the server's share, without the SDK client's own cost. */
function rawToolCall(mcpUrl, transport) {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': transport.sessionId,
    'mcp-protocol-version': transport.protocolVersion,
  };
  let id = 1_000_000;
  const call = async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'github_api_call', arguments: ARGS } });
    const res = await request(mcpUrl, { method: 'POST', dispatcher, headers, body });
    const text = await res.body.text();
    const message = JSON.parse(/^data: (.+)$/m.exec(text)?.[1] ?? text);
    if (message.result?.structuredContent?.status !== 200) throw new Error(`raw ${res.statusCode} ${text.slice(0, 300)}`);
  };
  return { call, close: () => dispatcher.close() };
}

const viaMcp = (client) => async () => {
  const r = await client.callTool({ name: 'github_api_call', arguments: ARGS });
  if (r.isError || r.structuredContent.status !== 200) throw new Error(`mcp ${JSON.stringify(r.content).slice(0, 300)}`);
};

/**
 * Times each of `paths` (name → call) `calls` times after 100 warm-up rounds, one of each per round in a new random
 * order: a call can leave work behind (a stream's end still on its way), which a fixed order would bill to the same
 * next path every round.
 */
export async function rounds(paths, calls) {
  const entries = Object.entries(paths);
  const times = entries.map(() => []);
  for (let i = 0; i < 100; i++) for (const [, fn] of entries) await fn();
  const order = entries.map((_, j) => j);
  for (let i = 0; i < calls; i++) {
    for (let k = order.length - 1; k > 0; k--) {
      const r = Math.floor(Math.random() * (k + 1));
      [order[k], order[r]] = [order[r], order[k]];
    }
    for (const j of order) {
      const t0 = performance.now();
      await entries[j][1]();
      times[j].push(performance.now() - t0);
    }
  }
  return Object.fromEntries(entries.map(([name], j) => [name, summary(times[j])]));
}

async function overStdio(calls) {
  const stdio = await spawnStdioServer();
  const direct = directGet(stdio.baseUrls.github);
  try {
    return await rounds({ baseline: direct.call, switchboard: viaMcp(stdio.client) }, calls);
  } finally {
    await direct.close();
    await stdio.close();
  }
}

async function overHttp(calls) {
  const started = await Promise.allSettled([spawnHttpServer(), spawnBareHttpServer()]);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((s) => s.value?.close()));
    throw failed.reason;
  }
  const [http, bare] = started.map((s) => s.value);
  try {
    const client = await http.client();
    const direct = directGet(http.baseUrls.github);
    const raw = rawToolCall(http.mcpUrl, client.transport);
    const ping = () => bare.client.callTool({ name: 'ping', arguments: {} });
    const result = await rounds({ baseline: direct.call, switchboard: viaMcp(client), rawPost: raw.call, bareSdk: ping }, calls);
    await Promise.all([direct.close(), raw.close(), client.close()]);
    return result;
  } finally {
    await Promise.all([http.close(), bare.close()]);
  }
}

const row = (label, s) => `| ${label} | ${fmt(s.p50)} | ${fmt(s.p90)} | ${fmt(s.p99)} |`;

/** Tool-call overhead of a spawned `switchboard serve --sandbox` over stdio and over Streamable HTTP. */
export async function benchOverhead({ calls = 1000 } = {}) {
  // Direct GETs are not revalidated, so each counts against the GitHub sandbox's 5,000 an hour.
  if (calls + 100 > 4900) throw new Error('benchOverhead: at most 4,800 calls (the GitHub sandbox rate limit).');
  const stdio = await overStdio(calls);
  const http = await overHttp(calls);
  const added = { stdio: stdio.switchboard.p50 - stdio.baseline.p50, http: http.switchboard.p50 - http.baseline.p50 };
  const serverAdded = http.rawPost.p50 - http.baseline.p50;
  const ratio = (r) => (r.switchboard.p50 / r.baseline.p50).toFixed(2);
  const met = (ms) => (ms <= 1 ? 'met' : 'NOT met');
  return {
    title: 'Tool-call overhead over stdio and Streamable HTTP (2025-11-25): github_api_call GET vs direct undici',
    method:
      `A spawned \`switchboard serve --sandbox\` (stdio, then \`--http\`), driven by a real MCP client (SDK v1, which speaks 2025-11-25); ${calls} rounds after 100 warm-up rounds, ` +
      'each path once per round, in a new random order each round: the same GET of the GitHub sandbox (in the server process, on 127.0.0.1) sent directly with undici, ' +
      'and through github_api_call (ETag revalidation included: upstream answers 304 and the cached body is returned). Over HTTP, two more paths in the same rounds: ' +
      'the same tools/call POSTed with undici on the client\'s session (the server\'s share, without the SDK client), and a bare SDK v1 server\'s no-op tool (bench/bare-http-server.mjs: the SDK transport alone). ' +
      'Target: at most 1 ms added at the median.',
    table: [
      '| path | p50 | p90 | p99 |',
      '| --- | ---: | ---: | ---: |',
      row('stdio: direct undici (baseline)', stdio.baseline),
      row('stdio: github_api_call', stdio.switchboard),
      row('Streamable HTTP: direct undici (baseline)', http.baseline),
      row('Streamable HTTP, 2025-11-25 session: github_api_call (SDK v1 client)', http.switchboard),
      row('Streamable HTTP, 2025-11-25 session: github_api_call POSTed with undici (no SDK client)', http.rawPost),
      row('Streamable HTTP, 2025-11-25 session: bare SDK v1 server, no-op tool (SDK v1 client)', http.bareSdk),
    ],
    verdict:
      `Added at the median: ${fmt(added.stdio)} ms over stdio (${ratio(stdio)}x), ${fmt(added.http)} ms over Streamable HTTP with the SDK client (${ratio(http)}x); ` +
      `target ≤ 1 ms: stdio ${met(added.stdio)}, HTTP ${met(added.http)}. Without the SDK client the server adds ${fmt(serverAdded)} ms over HTTP (${met(serverAdded)}); ` +
      `the SDK client and transport alone take ${fmt(http.bareSdk.p50)} ms for a no-op tool.`,
    data: { name: 'tool_call_overhead', calls, stdio, http, addedMedianMs: { ...added, httpWithoutSdkClient: serverAdded } },
  };
}
