import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redactor } from '../dist/redact.js';
import { startSandbox } from '../dist/sandbox/index.js';
import { openStore } from '../dist/store/index.js';
import { spawnBareHttpServer, spawnHttpServer } from './spawn.js';

const rssMb = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const settle = () => new Promise((r) => setTimeout(r, 2_000));

/** A bare SDK server (Streamable HTTP, one no-op tool) after one tools/list: what any Node MCP server holds. */
async function bareRss() {
  const bare = await spawnBareHttpServer();
  try {
    await bare.client.listTools();
    await settle();
    return rssMb(bare.pid);
  } finally {
    await bare.close();
  }
}

/** Resident memory of `switchboard serve --sandbox --http` idle, and with 1,000 active triggers. */
export async function benchMemory({ triggers = 1000, nodeArgs = [] } = {}) {
  const baseline = await bareRss();
  // The stand-in providers run here, so the server's figure is Switchboard's own, as against real providers.
  const sandbox = await startSandbox();
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-mem-'));
  const store = await openStore({ dataDir, secretKey: 'bench-secret-key', redactor: new Redactor() });
  for (const a of sandbox.accounts) await store.accounts.add(a);
  await store.close();
  const env = { SWITCHBOARD_SECRET_KEY: 'bench-secret-key', ...Object.fromEntries(Object.entries(sandbox.baseUrls).map(([p, url]) => [`SWITCHBOARD_${p.toUpperCase()}_BASE_URL`, url])) };
  const server = await spawnHttpServer({ sandbox: false, dataDir, env, nodeArgs });
  try {
    const client = await server.client();
    await client.listTools();
    await settle();
    const idle = rssMb(server.pid);
    const t0 = performance.now();
    for (let i = 0; i < triggers; i++) {
      const r = await client.callTool({ name: 'triggers_create', arguments: { kind: 'outlook.new_email', config: { filter: `subject:"report ${i}"` } } });
      if (r.isError) throw new Error(JSON.stringify(r.content).slice(0, 300));
    }
    const createdMs = performance.now() - t0;
    const { triggers: listed } = (await client.callTool({ name: 'triggers_list', arguments: { fields: ['status'] } })).structuredContent;
    // Creating a thousand triggers leaves garbage that V8 returns some seconds later: sample for 30 s.
    const samples = [];
    for (let i = 0; i < 15; i++) {
      await settle();
      samples.push(rssMb(server.pid));
    }
    const loaded = samples.at(-1);
    const peak = Math.max(...samples);
    await client.close();
    return {
      title: 'Memory: resident set size',
      method:
        `VmRSS of a spawned \`switchboard serve --http\` pointed at the sandbox providers (which run in the benchmark's process) after start-up and one tools/list, then after ${triggers} ` +
        `outlook.new_email triggers were created through triggers_create (each with its own filter and delta baseline, polled by the runner; ${(createdMs / triggers).toFixed(1)} ms per creation), sampled every 2 s for 30 s after the last. ` +
        'Baseline: a bare SDK Streamable HTTP server with one tool, after one tools/list. Target: at most 150 MB.',
      table: [
        '| process | RSS MB |',
        '| --- | ---: |',
        `| bare SDK server (baseline) | ${baseline.toFixed(1)} |`,
        `| switchboard, idle | ${idle.toFixed(1)} |`,
        `| switchboard, ${listed.length} active triggers, right after creating them (peak) | ${peak.toFixed(1)} |`,
        `| switchboard, ${listed.length} active triggers, 30 s later | ${loaded.toFixed(1)} |`,
      ],
      verdict:
        `${loaded.toFixed(1)} MB with ${listed.length} active triggers once settled (peak ${peak.toFixed(1)} MB just after creating them; ${idle.toFixed(1)} MB idle, ` +
        `${baseline.toFixed(1)} MB for a bare SDK server); target ≤ 150 MB: ${loaded <= 150 ? 'met' : 'NOT met'} once settled, ${peak <= 150 ? 'met' : 'NOT met'} at the peak.`,
      data: { name: 'memory', triggers: listed.length, baselineMb: baseline, idleMb: idle, peakMb: peak, loadedMb: loaded, samplesMb: samples, createMsPerTrigger: createdMs / triggers },
    };
  } finally {
    await server.close();
    await sandbox.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
