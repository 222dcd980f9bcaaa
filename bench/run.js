// Benchmarks: `npm run bench` writes bench/REPORT.md and bench/report.json. Every figure is a median of
// repeated runs beside a baseline measured in the same run, interleaved where it can be, since this machine is shared.
import { writeFileSync } from 'node:fs';
import { benchAudit } from './audit.js';
import { benchEvents } from './events.js';
import { benchFanout } from './fanout.js';
import { benchHttpLoad } from './http-load.js';
import { benchMcpEvents } from './mcp-events.js';
import { benchMemory } from './memory.js';
import { benchOverhead } from './overhead.js';
import { benchPoller } from './poller.js';
import { benchPush } from './push.js';
import { benchRevisionLoad } from './revision-load.js';
import { benchRevisionOverhead } from './revision-overhead.js';
import { benchStartup } from './startup.js';
import { benchTelemetry } from './telemetry.js';
import { benchTokens } from './tokens.js';
import { benchWebhooks } from './webhooks.js';

const n = (name, fallback) => Number(process.env[name] ?? fallback);
const benches = {
  tokens: () => benchTokens(),
  startup: () => benchStartup({ runs: n('BENCH_STARTUP_RUNS', 15) }),
  overhead: () => benchOverhead({ calls: n('BENCH_CALLS', 1000) }),
  'http-load': () => benchHttpLoad({ sessions: 50, seconds: n('BENCH_LOAD_SECONDS', 8) }),
  telemetry: () => benchTelemetry({ calls: n('BENCH_CALLS', 1000) }),
  'revision-overhead': () => benchRevisionOverhead({ calls: n('BENCH_CALLS', 1000) }),
  'revision-load': () => benchRevisionLoad({ clients: 50, seconds: n('BENCH_LOAD_SECONDS', 8) }),
  webhooks: () => benchWebhooks({ perRound: n('BENCH_DELIVERIES', 2000), rounds: n('BENCH_WEBHOOK_ROUNDS', 13) }),
  poller: () => benchPoller(),
  push: () => benchPush({ pushed: n('BENCH_PUSH_EMAILS', 100), polled: n('BENCH_POLL_EMAILS', 6) }),
  memory: () => benchMemory({ triggers: 1000 }),
  events: () => benchEvents({ events: n('BENCH_EVENTS', 2000) }),
  fanout: () => benchFanout({ events: n('BENCH_FANOUT_EVENTS', 300), rounds: n('BENCH_FANOUT_ROUNDS', 4) }),
  audit: () => benchAudit({ calls: n('BENCH_CALLS', 1000) }),
  'mcp-events': () => benchMcpEvents({ rounds: n('BENCH_MCP_EVENTS_ROUNDS', 5), profileDir: process.env.BENCH_MCP_EVENTS_PROFILE }),
};
// BENCH_ONLY=a,b runs those alone and prints their report without replacing the files of a whole run.
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const unknown = only?.filter((name) => !(name in benches));
if (unknown?.length) throw new Error(`BENCH_ONLY names no benchmark ${unknown.join(', ')}; choose from ${Object.keys(benches).join(', ')}.`);
const results = [];
for (const [name, run] of Object.entries(benches)) {
  if (only && !only.includes(name)) continue;
  const result = await run();
  process.stderr.write(`${result.title}: ${result.verdict}\n`);
  results.push(result);
}

const lines = [
  '# Benchmark report',
  '',
  `Run ${new Date().toISOString()} on Node ${process.version}, ${results.length} benchmark(s). Times in milliseconds.`,
  '',
];
for (const r of results) lines.push(`## ${r.title}`, '', r.method, '', ...r.table, '', r.verdict, '');
if (!only) {
  writeFileSync(new URL('./REPORT.md', import.meta.url), lines.join('\n'));
  writeFileSync(new URL('./report.json', import.meta.url), JSON.stringify(results.map((r) => r.data), null, 2) + '\n');
}
process.stdout.write(lines.join('\n') + '\n');
