import { loadFigures, slice } from './http-load.js';
import { spawnWithBareV2 } from './spawn.js';
import { fmt } from './stats.js';
import { LEGACY, legacyClient, MODERN, rawToolCall } from './wire.js';

// Reads the store and nothing else: no provider, no upstream request, so the load is on Switchboard's own path.
const TOOL = 'accounts_list';

/** `clients` callers, each on a keep-alive connection of its own: 2026 requests, or 2025 ones on a session each (opened by SDK v1 clients). */
async function callers(url, revision, clients) {
  if (revision === MODERN) return Array.from({ length: clients }, () => rawToolCall(url, TOOL));
  const sessions = [];
  for (let i = 0; i < clients; i++) sessions.push(await legacyClient(url, `load-${i}`));
  return sessions.map((client) => {
    const raw = rawToolCall(url, TOOL, { sessionId: client.transport.sessionId });
    return { call: raw.call, close: () => Promise.all([raw.close(), client.close()]) };
  });
}

/** Throughput and server CPU per call under `clients` concurrent callers, by revision, against a bare SDK v2 server in the same rounds. */
export async function benchRevisionLoad({ clients = 50, seconds = 8 } = {}) {
  const { server, bare } = await spawnWithBareV2(TOOL);
  const loads = {};
  try {
    for (const revision of [MODERN, LEGACY]) {
      // 2025 sessions on the bare server also with an event store, as Switchboard keeps them: what resumable streams cost the SDK.
      const sides = [['switchboard', server, server.mcpUrl], ['bare', bare, bare.mcpUrl], ...(revision === LEGACY ? [['resumable', bare, `${bare.mcpUrl}-resumable`]] : [])];
      for (const [side, target, url] of sides) loads[`${revision} ${side}`] = { pid: target.pid, workers: await callers(url, revision, clients) };
    }
    const names = Object.keys(loads);
    const fresh = () => ({ latencies: [], ms: 0, serverCpuMs: 0, loadCpuMs: 0 });
    const totals = Object.fromEntries(names.map((k) => [k, fresh()]));
    // One untimed call per caller first: a connection left idle while the other loads ran may have been closed
    // (keep-alive is 5 s at the server), and 50 opened at once are slow to open, for every server alike.
    const run = async (into, k) => {
      await Promise.all(loads[k].workers.map((w) => w.call()));
      await slice(into, loads[k].workers, 1000, (w) => w.call(), loads[k].pid);
    };
    for (const k of names) await run(fresh(), k);
    // One-second slices, the order rotating each round, so drift on the shared machine hits every load alike.
    for (let round = 0; round < seconds; round++) {
      for (let i = 0; i < names.length; i++) await run(totals[names[(round + i) % names.length]], names[(round + i) % names.length]);
    }
    const rows = [MODERN, LEGACY].map((revision) => {
      const sb = loadFigures(totals[`${revision} switchboard`]);
      const base = loadFigures(totals[`${revision} bare`]);
      const resumable = totals[`${revision} resumable`] && loadFigures(totals[`${revision} resumable`]);
      return { revision, bare: base, resumable, switchboard: sb, cpuRatio: sb.serverCpuMsPerCall / base.serverCpuMsPerCall, rpsRatio: sb.rps / base.rps };
    });
    const line = (revision, side, r) =>
      `| ${revision} | ${side} | ${r.rps.toFixed(0)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.serverCpuMsPerCall)} | ${fmt(r.loadCpuMsPerCall)} |`;
    const judged = (r) => r.revision === MODERN;
    const met = (ok) => (ok ? 'met' : 'NOT met');
    const say = (r) =>
      `${r.revision}: ${r.switchboard.rps.toFixed(0)} calls/s (${r.rpsRatio.toFixed(2)}x the bare server's ${r.bare.rps.toFixed(0)}` +
      `${judged(r) ? `; target ≥ 1.0x: ${met(r.rpsRatio >= 1)}` : ''}), server CPU ${fmt(r.switchboard.serverCpuMsPerCall)} ms per call ` +
      `(${r.cpuRatio.toFixed(2)}x the bare server's ${fmt(r.bare.serverCpuMsPerCall)} ms${judged(r) ? `; target ≤ 1.5x: ${met(r.cpuRatio <= 1.5)}` : ''}` +
      `${r.resumable ? `, ${fmt(r.resumable.serverCpuMsPerCall)} ms with an event store` : ''})`;
    return {
      title: `Throughput by revision: ${clients} concurrent clients calling ${TOOL}`,
      method:
        `A spawned \`switchboard serve --sandbox --http\` and a bare SDK v2 server, as in the overhead benchmark by revision (Switchboard's ${TOOL}, and a tool of the same name and answer on the bare server). ` +
        `${clients} callers per load, each on a keep-alive undici connection of its own, POST tools/call back to back: ${MODERN} requests (stateless, \`_meta\` envelope and ` +
        `Mcp-Method/Mcp-Name headers), and ${LEGACY} requests on ${clients} sessions per server opened first by SDK v1 clients (on the bare server ` +
        `also with an event store, as Switchboard keeps its sessions' streams resumable). After a 1 s warm-up each, ` +
        `${seconds} rounds of 1 s per load, the order rotating, each slice after one untimed call per caller (a connection idle while ` +
        'the other loads ran may have been closed). CPU per call is from /proc for the server process and for the load generator; both share this ' +
        `machine's 2 cores. Targets (${MODERN}): server CPU per call at most 1.5x the bare server's, calls per second at least 1.0x.`,
      table: [
        '| revision | server | calls/s | p50 ms | p99 ms | server CPU ms/call | load generator CPU ms/call |',
        '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
        ...rows.flatMap((r) => [
          line(r.revision, 'bare SDK v2 (baseline)', r.bare),
          ...(r.resumable ? [line(r.revision, 'bare SDK v2 with an event store', r.resumable)] : []),
          line(r.revision, 'switchboard', r.switchboard),
        ]),
      ],
      verdict: `${rows.map(say).join('. ')}.`,
      data: { name: 'revision_throughput', tool: TOOL, clients, seconds, rows },
    };
  } finally {
    await Promise.all(Object.values(loads).flatMap((l) => l.workers.map((w) => w.close())));
    await Promise.all([server.close(), bare.close()]);
  }
}
