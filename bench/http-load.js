import { Agent, request } from 'undici';
import { SANDBOX_TOKENS } from '../dist/sandbox/index.js';
import { spawnHttpServer } from './spawn.js';
import { fmt, percentile } from './stats.js';

const PATH = '/me/outlook/masterCategories';

/** Runs `workers` loops of `fn` back to back for `ms`; returns requests per second and latencies. */
async function load(workers, ms, fn) {
  const latencies = [];
  const end = performance.now() + ms;
  await Promise.all(
    workers.map(async (w) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await fn(w);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { rps: latencies.length / (ms / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99), n: latencies.length };
}

/** Streamable HTTP throughput: 50 sessions calling outlook_list_labels at once, beside the same GETs sent directly. */
export async function benchHttpLoad({ sessions = 50, seconds = 8 } = {}) {
  const server = await spawnHttpServer();
  try {
    const clients = await Promise.all(Array.from({ length: sessions }, (_, i) => server.client(`load-${i}`)));
    const dispatcher = new Agent({ connections: sessions, keepAliveTimeout: 30_000 });
    const direct = async () => {
      const res = await request(server.baseUrls.outlook + PATH, { dispatcher, headers: { accept: 'application/json', authorization: `Bearer ${SANDBOX_TOKENS.outlook}` } });
      await res.body.json();
    };
    const viaMcp = async (client) => {
      const r = await client.callTool({ name: 'outlook_list_labels', arguments: {} });
      if (r.isError) throw new Error(JSON.stringify(r.content).slice(0, 300));
    };
    await load(clients, 1000, viaMcp);
    await load(clients, 1000, direct);
    const base = await load(clients, seconds * 1000, direct);
    const mcp = await load(clients, seconds * 1000, viaMcp);
    await Promise.all(clients.map((c) => c.close()));
    await dispatcher.close();
    return {
      title: `Streamable HTTP throughput: ${sessions} concurrent sessions`,
      method:
        `A spawned \`switchboard serve --sandbox --http\`; ${sessions} MCP sessions (real SDK clients, one process) each call outlook_list_labels (a Graph GET; the GitHub sandbox keeps GitHub's 5,000 an hour) back to back for ${seconds} s, ` +
        `after a 1 s warm-up. Baseline: the same ${sessions}-way load of the upstream GET sent directly to the Outlook sandbox (inside the server process) with undici, same run. Both sides share this machine's 2 cores.`,
      table: [
        '| load | requests/s | p50 ms | p99 ms |',
        '| --- | ---: | ---: | ---: |',
        `| direct undici to the sandbox (baseline) | ${base.rps.toFixed(0)} | ${fmt(base.p50)} | ${fmt(base.p99)} |`,
        `| outlook_list_labels over MCP | ${mcp.rps.toFixed(0)} | ${fmt(mcp.p50)} | ${fmt(mcp.p99)} |`,
      ],
      verdict: `${mcp.rps.toFixed(0)} tool calls per second with ${sessions} sessions (p99 ${fmt(mcp.p99)} ms), ${(mcp.rps / base.rps).toFixed(2)}x the direct upstream rate; no errors.`,
      data: { name: 'http_throughput', sessions, seconds, baseline: base, switchboard: mcp },
    };
  } finally {
    await server.close();
  }
}
