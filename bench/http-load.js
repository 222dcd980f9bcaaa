import { Agent, request } from 'undici';
import { SANDBOX_TOKENS } from '../dist/sandbox/index.js';
import { cpuMs, spawnBareHttpServer, spawnHttpServer } from './spawn.js';
import { fmt, percentile } from './stats.js';

const PATH = '/me/outlook/masterCategories';
const MAX_SESSIONS = 200; // the listener's default cap

/** `workers` loops of `fn` back to back for `ms`, added to `into`: latencies, and CPU used by the server and by this process. */
export async function slice(into, workers, ms, fn, serverPid) {
  const server0 = cpuMs(serverPid);
  const self0 = process.cpuUsage();
  const end = performance.now() + ms;
  await Promise.all(
    workers.map(async (w) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await fn(w);
        into.latencies.push(performance.now() - t0);
      }
    }),
  );
  const self = process.cpuUsage(self0);
  into.ms += ms;
  into.serverCpuMs += cpuMs(serverPid) - server0;
  into.loadCpuMs += (self.user + self.system) / 1000;
}

export function loadFigures(r) {
  const n = r.latencies.length;
  return {
    n,
    rps: n / (r.ms / 1000),
    p50: percentile(r.latencies, 50),
    p99: percentile(r.latencies, 99),
    serverCpuMsPerCall: r.serverCpuMs / n,
    loadCpuMsPerCall: r.loadCpuMs / n,
  };
}

/** Opens `count` sessions one after another: the clients, and wall and server CPU time per session (initialize + initialized). */
async function openSessions(count, connect, pid) {
  const clients = [];
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  for (let i = 0; i < count; i++) clients.push(await connect(i));
  return [clients, { msPerSession: (performance.now() - t0) / count, serverCpuMsPerSession: (cpuMs(pid) - cpu0) / count }];
}

/** Streamable HTTP throughput: `sessions` sessions calling outlook_list_labels at once, beside the same GETs sent directly and a bare SDK server. */
export async function benchHttpLoad({ sessions = 50, seconds = 8 } = {}) {
  if (sessions >= MAX_SESSIONS) throw new Error(`benchHttpLoad: fewer than ${MAX_SESSIONS} sessions (the listener's cap).`);
  const started = await Promise.allSettled([spawnHttpServer(), spawnBareHttpServer()]);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((s) => s.value?.close()));
    throw failed.reason;
  }
  const [server, bare] = started.map((s) => s.value);
  const dispatcher = new Agent({ connections: sessions, keepAliveTimeout: 30_000 });
  try {
    const [clients, setUp] = await openSessions(sessions, (i) => server.client(`load-${i}`), server.pid);
    const [bareClients, bareSetUp] = await openSessions(sessions, (i) => bare.connect(`load-${i}`), bare.pid);
    const headers = { accept: 'application/json', authorization: `Bearer ${SANDBOX_TOKENS.outlook}` };
    const loads = {
      direct: {
        workers: clients,
        pid: server.pid, // the sandbox runs inside the server process
        fn: async () => {
          const res = await request(server.baseUrls.outlook + PATH, { dispatcher, headers });
          await res.body.json();
          if (res.statusCode !== 200) throw new Error(`direct ${res.statusCode}`);
        },
      },
      switchboard: {
        workers: clients,
        pid: server.pid,
        fn: async (client) => {
          const r = await client.callTool({ name: 'outlook_list_labels', arguments: {} });
          if (r.isError) throw new Error(JSON.stringify(r.content).slice(0, 300));
        },
      },
      bareSdk: { workers: bareClients, pid: bare.pid, fn: (client) => client.callTool({ name: 'ping', arguments: {} }) },
    };
    const names = Object.keys(loads);
    const totals = Object.fromEntries(names.map((k) => [k, { latencies: [], ms: 0, serverCpuMs: 0, loadCpuMs: 0 }]));
    for (const k of names) await slice({ latencies: [], ms: 0, serverCpuMs: 0, loadCpuMs: 0 }, loads[k].workers, 1000, loads[k].fn, loads[k].pid);
    // One-second slices, the order rotating each round, so drift on the shared machine hits every load alike.
    for (let round = 0; round < seconds; round++) {
      for (let i = 0; i < names.length; i++) {
        const k = names[(round + i) % names.length];
        await slice(totals[k], loads[k].workers, 1000, loads[k].fn, loads[k].pid);
      }
    }
    await Promise.all([...clients, ...bareClients].map((c) => c.close()));
    const [base, mcp, sdk] = names.map((k) => loadFigures(totals[k]));
    const row = (label, r) =>
      `| ${label} | ${r.rps.toFixed(0)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.serverCpuMsPerCall)} | ${fmt(r.loadCpuMsPerCall)} |`;
    return {
      title: `Streamable HTTP throughput: ${sessions} concurrent 2025-11-25 sessions`,
      method:
        `A spawned \`switchboard serve --sandbox --http\`; ${sessions} MCP sessions (real SDK v1 clients, which speak 2025-11-25, one process) each call outlook_list_labels ` +
        '(a Graph GET; the GitHub sandbox keeps GitHub\'s 5,000 an hour) back to back. Baselines, same run: the same ' +
        `${sessions}-way load of the upstream GET sent directly to the Outlook sandbox (inside the server process) with undici, and ${sessions} sessions ` +
        `calling a bare SDK v1 server's no-op tool (bench/bare-http-server.mjs, its own process); the sessions are opened one at a time first, timed. After a 1 s warm-up each, ${seconds} rounds of 1 s per load, ` +
        'the order rotating. CPU per call is from /proc for the server process and for the load generator; both share this machine\'s 2 cores.',
      table: [
        '| load | requests/s | p50 ms | p99 ms | server CPU ms/call | load generator CPU ms/call |',
        '| --- | ---: | ---: | ---: | ---: | ---: |',
        row('direct undici to the sandbox (baseline)', base),
        row('bare SDK v1 server, no-op tool (baseline)', sdk),
        row('outlook_list_labels over MCP', mcp),
        '',
        '| session set-up (initialize + initialized, one at a time) | ms per session | server CPU ms per session |',
        '| --- | ---: | ---: |',
        `| bare SDK v1 server (baseline) | ${fmt(bareSetUp.msPerSession)} | ${fmt(bareSetUp.serverCpuMsPerSession)} |`,
        `| switchboard | ${fmt(setUp.msPerSession)} | ${fmt(setUp.serverCpuMsPerSession)} |`,
      ],
      verdict:
        `${mcp.rps.toFixed(0)} tool calls per second with ${sessions} sessions (p50 ${fmt(mcp.p50)} ms, p99 ${fmt(mcp.p99)} ms), no errors: ` +
        `${(mcp.rps / sdk.rps).toFixed(2)}x a bare SDK server's no-op tool under the same load and ${(mcp.rps / base.rps).toFixed(2)}x the direct upstream rate. ` +
        `The server spends ${fmt(mcp.serverCpuMsPerCall)} ms of CPU per call (bare SDK server ${fmt(sdk.serverCpuMsPerCall)} ms, the upstream GET alone ${fmt(base.serverCpuMsPerCall)} ms); ` +
        `the SDK clients spend ${fmt(mcp.loadCpuMsPerCall)} ms per call, so on 2 cores the load generator is as much a limit as the server. ` +
        `A new session costs the server ${fmt(setUp.serverCpuMsPerSession)} ms of CPU (bare SDK server ${fmt(bareSetUp.serverCpuMsPerSession)} ms).`,
      data: { name: 'http_throughput', sessions, seconds, baseline: base, bareSdk: sdk, switchboard: mcp, sessionSetUp: { bareSdk: bareSetUp, switchboard: setUp } },
    };
  } finally {
    await dispatcher.close();
    await Promise.all([server.close(), bare.close()]);
  }
}
