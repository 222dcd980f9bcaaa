// Benchmarks: `npm run bench` writes bench/REPORT.md and bench/report.json. Every figure is a median of
// repeated runs beside a baseline measured in the same run, interleaved, since this machine is shared.
import { writeFileSync } from 'node:fs';
import { benchApiCall } from './api-call.js';
import { benchEvents } from './events.js';
import { benchStartup } from './startup.js';
import { benchTokens } from './tokens.js';

const results = [await benchTokens(), await benchStartup(), await benchApiCall({ calls: Number(process.env.BENCH_CALLS ?? 2000) }), await benchEvents({ events: Number(process.env.BENCH_EVENTS ?? 2000) })];

const lines = [
  '# Benchmark report',
  '',
  `Run ${new Date().toISOString()} on Node ${process.version}, ${results.length} benchmark(s). Times in milliseconds.`,
  '',
];
for (const r of results) lines.push(`## ${r.title}`, '', r.method, '', ...r.table, '', r.verdict, '');
writeFileSync(new URL('./REPORT.md', import.meta.url), lines.join('\n'));
writeFileSync(new URL('./report.json', import.meta.url), JSON.stringify(results.map((r) => r.data), null, 2) + '\n');
process.stdout.write(lines.join('\n') + '\n');
