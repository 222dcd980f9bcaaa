import { readFileSync } from 'node:fs';
import { rounds } from './overhead.js';
import { spawnHttpServer, spawnStdioServer } from './spawn.js';
import { fmt } from './stats.js';

const ARGS = { method: 'GET', endpoint: '/repos/sbx-octocat/hello-world', headers: { accept: 'application/vnd.github+json' } };
const OFF = { SWITCHBOARD_AUDIT: 'off' };

/** User and system CPU time of a process so far, in milliseconds (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A call of github_api_call through `client`, with the server's CPU time counted around it. */
function timed(client, pid, cpu) {
  return async () => {
    const before = cpuMs(pid);
    const r = await client.callTool({ name: 'github_api_call', arguments: ARGS });
    cpu.ms += cpuMs(pid) - before;
    cpu.calls++;
    if (r.isError) throw new Error(`audit bench: ${JSON.stringify(r.content).slice(0, 300)}`);
  };
}

async function compare(start, calls) {
  const [on, off] = await Promise.all([start({}), start(OFF)]);
  try {
    const cpu = { on: { ms: 0, calls: 0 }, off: { ms: 0, calls: 0 } };
    const result = await rounds({ on: timed(on.client, on.pid, cpu.on), off: timed(off.client, off.pid, cpu.off) }, calls);
    return { ...result, cpuPerCall: { on: cpu.on.ms / cpu.on.calls, off: cpu.off.ms / cpu.off.calls } };
  } finally {
    await Promise.all([on.close(), off.close()]);
  }
}

const stdioServer = (env) => spawnStdioServer({ env });
async function httpServer(env) {
  const server = await spawnHttpServer({ env });
  const client = await server.client();
  return { client, pid: server.pid, close: async () => (await client.close(), await server.close()) };
}

const row = (label, s) => `| ${label} | ${fmt(s.p50)} | ${fmt(s.p90)} | ${fmt(s.p99)} |`;
const pct = (r) => ((r.on.p50 / r.off.p50 - 1) * 100).toFixed(1);

/** The audit trail's cost: the median tool call with recording on and off, in the same rounds, over stdio and HTTP. */
export async function benchAudit({ calls = 1000 } = {}) {
  const stdio = await compare(stdioServer, calls);
  const http = await compare(httpServer, calls);
  const met = (r) => (r.on.p50 <= r.off.p50 * 1.05 ? 'met' : 'NOT met');
  return {
    title: 'Audit trail: tool call with recording on vs SWITCHBOARD_AUDIT=off',
    method:
      `Two spawned \`switchboard serve --sandbox\` at once, one recording (the default) and one with SWITCHBOARD_AUDIT=off, over stdio and then over Streamable HTTP, ` +
      `each driven by a real MCP client; ${calls} rounds after 100 warm-up rounds, one github_api_call GET of each per round in a new random order. ` +
      'The server CPU per call is the process\'s user and system time (/proc, 10 ms ticks) summed around each call, over all calls. Target: at most 5% more at the median.',
    table: [
      '| path | p50 | p90 | p99 | server CPU per call |',
      '| --- | ---: | ---: | ---: | ---: |',
      `${row('stdio: audit off', stdio.off)} ${fmt(stdio.cpuPerCall.off)} |`,
      `${row('stdio: audit on', stdio.on)} ${fmt(stdio.cpuPerCall.on)} |`,
      `${row('Streamable HTTP: audit off', http.off)} ${fmt(http.cpuPerCall.off)} |`,
      `${row('Streamable HTTP: audit on', http.on)} ${fmt(http.cpuPerCall.on)} |`,
    ],
    verdict: `Recording adds ${pct(stdio)}% at the median over stdio and ${pct(http)}% over Streamable HTTP; target ≤ 5%: stdio ${met(stdio)}, HTTP ${met(http)}.`,
    data: { name: 'audit_overhead', calls, stdio, http },
  };
}
