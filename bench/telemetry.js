import { createServer } from 'node:http';
import { Agent, request } from 'undici';
import { rounds } from './overhead.js';
import { cpuMs, spawnHttpServer } from './spawn.js';
import { fmt } from './stats.js';

const ARGS = { method: 'GET', endpoint: '/repos/sbx-octocat/hello-world', headers: { accept: 'application/vnd.github+json' } };

/** A local OTLP/HTTP receiver that takes every export and keeps only its size: where the traced server sends its spans. */
async function startReceiver() {
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (c) => (bytes += c.length));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, bytes: () => bytes, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** tools/call POSTed with undici on a 2025-11-25 session: the server's share, without an SDK client's own cost. */
async function rawCaller(server) {
  const client = await server.client();
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': client.transport.sessionId, 'mcp-protocol-version': client.transport.protocolVersion };
  let id = 1_000_000;
  const call = async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'github_api_call', arguments: ARGS } });
    const res = await request(server.mcpUrl, { method: 'POST', dispatcher, headers, body });
    const text = await res.body.text();
    const message = JSON.parse(/^data: (.+)$/m.exec(text)?.[1] ?? text);
    if (message.result?.structuredContent?.status !== 200) throw new Error(`raw ${res.statusCode} ${text.slice(0, 300)}`);
  };
  return { call, close: async () => (await dispatcher.close(), await client.close()) };
}

/**
 * Telemetry's cost on a tool call: four `serve --sandbox --http` processes in the same rounds, telemetry off (twice:
 * the second shows the noise between two identical servers), metrics only (SWITCHBOARD_METRICS=on), and metrics with
 * every span sampled to a local OTLP receiver (http/json, OTEL_TRACES_SAMPLER=always_on).
 */
export async function benchTelemetry({ calls = 1000 } = {}) {
  if (calls + 100 > 4900) throw new Error('benchTelemetry: at most 4,800 calls (the GitHub sandbox rate limit).');
  const receiver = await startReceiver();
  const setups = {
    off: {},
    offAgain: {},
    metrics: { SWITCHBOARD_METRICS: 'on' },
    traced: {
      SWITCHBOARD_METRICS: 'on',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'always_on',
    },
  };
  const servers = {};
  const callers = {};
  try {
    for (const [name, env] of Object.entries(setups)) {
      servers[name] = await spawnHttpServer({ env });
      callers[name] = await rawCaller(servers[name]);
    }
    const cpuBefore = Object.fromEntries(Object.entries(servers).map(([name, s]) => [name, cpuMs(s.pid)]));
    const times = await rounds(Object.fromEntries(Object.entries(callers).map(([name, c]) => [name, c.call])), calls);
    const cpuPerCall = Object.fromEntries(Object.entries(servers).map(([name, s]) => [name, (cpuMs(s.pid) - cpuBefore[name]) / (calls + 100)]));
    const vs = (name, figure) => ((figure[name] / figure.off - 1) * 100).toFixed(1);
    const median = Object.fromEntries(Object.entries(times).map(([name, t]) => [name, t.p50]));
    const spanBytes = receiver.bytes();
    const row = (label, name) => `| ${label} | ${fmt(times[name].p50)} | ${fmt(times[name].p90)} | ${fmt(cpuPerCall[name])} | ${name === 'off' ? '' : `${vs(name, median)}%`} | ${name === 'off' ? '' : `${vs(name, cpuPerCall)}%`} |`;
    const within = (name, limit) => Number(vs(name, median)) <= limit && Number(vs(name, cpuPerCall)) <= limit;
    return {
      title: 'Telemetry overhead: a tool call with telemetry off, metrics only, and every span sampled',
      method:
        `Four spawned \`switchboard serve --sandbox --http\` processes, one tools/call of github_api_call (a GET of the GitHub sandbox) POSTed with undici on each one's 2025-11-25 session per round, ` +
        `${calls} rounds after 100 warm-up rounds, in a new random order each round; server CPU per call is the process's user + system time over all rounds divided by the calls. ` +
        'Telemetry off runs twice (the second server shows the noise between two identical ones); metrics only is SWITCHBOARD_METRICS=on (figures recorded, /metrics served, not scraped); ' +
        'traced adds every span sampled (OTEL_TRACES_SAMPLER=always_on) and exported as http/json to a receiver the benchmark runs on 127.0.0.1. ' +
        'Targets: at most 5% more with metrics only, at most 15% more with every span sampled; off costs nothing (the SDK is not loaded).',
      table: [
        '| telemetry | p50 | p90 | server CPU per call | p50 vs off | CPU vs off |',
        '| --- | ---: | ---: | ---: | ---: | ---: |',
        row('off', 'off'),
        row('off, a second server', 'offAgain'),
        row('metrics only', 'metrics'),
        row('metrics and every span sampled', 'traced'),
      ],
      verdict:
        `Metrics only: ${vs('metrics', median)}% at the median, ${vs('metrics', cpuPerCall)}% CPU per call (target ≤ 5%: ${within('metrics', 5) ? 'met' : 'NOT met'}); ` +
        `every span sampled: ${vs('traced', median)}% and ${vs('traced', cpuPerCall)}% (target ≤ 15%: ${within('traced', 15) ? 'met' : 'NOT met'}, ${Math.round(spanBytes / 1024)} KiB of spans exported); ` +
        `two servers with telemetry off differ by ${vs('offAgain', median)}% and ${vs('offAgain', cpuPerCall)}%: the noise of this machine.`,
      data: { name: 'telemetry_overhead', calls, times, cpuPerCallMs: cpuPerCall, spanBytes },
    };
  } finally {
    await Promise.all(Object.values(callers).map((c) => c.close().catch(() => undefined)));
    await Promise.all(Object.values(servers).map((s) => s.close()));
    await receiver.close();
  }
}
