// Runs the MCP conformance suite's server scenarios against `switchboard serve --sandbox --http` (from dist/, so
// build first) and compares each revision with its baseline, as test/e2e/conformance.test.ts does, printing every
// failing check with the suite's message. With --write-baseline it rewrites the baseline to the checks failing now.
//
//   npm run conformance                                          both revisions
//   npm run conformance -- --requirements 2026-07-28             one
//   npm run conformance -- --requirements 2026-07-28 --write-baseline [--reason "suite fixture: tool test_x"]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { baselineFile, compare, conformanceNode, counts, readBaseline, REASONS, REVISIONS, runSuite, writeBaseline } from './suite.js';

const CLI = fileURLToPath(new URL('../../dist/bin/switchboard.js', import.meta.url));

const { values } = parseArgs({
  options: {
    requirements: { type: 'string', multiple: true },
    'write-baseline': { type: 'boolean', default: false },
    reason: { type: 'string' },
  },
});
const revisions = values.requirements ?? REVISIONS;
for (const revision of revisions) {
  if (!REVISIONS.includes(revision)) fail(`--requirements ${revision}: give one of ${REVISIONS.join(', ')}.`);
}
if (values.reason !== undefined && !values['write-baseline']) fail('--reason goes with --write-baseline (it is the reason given to new entries).');
if (!existsSync(CLI)) fail(`${relative(process.cwd(), CLI)} is missing: run \`npm run build\` first.`);

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/** Starts `switchboard serve --sandbox --http` on a free port with its own data directory; resolves once it listens. */
function startServe(dataDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', '--sandbox', '--http', '--port', '0'], { env: { PATH: process.env.PATH ?? '', SWITCHBOARD_DATA_DIR: dataDir }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start within 20 s: ${stderr}`)), 20_000);
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /"mcp":"(http:\/\/[^"]+)"/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
}

const node = await conformanceNode();
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-conformance-'));
const serve = await startServe(dataDir);
let mismatch = false;
try {
  for (const revision of revisions) {
    const result = await runSuite({ node, url: serve.url, revision });
    const c = counts(result);
    const file = relative(process.cwd(), baselineFile(revision));
    console.log(`\n${revision}: ${c.scenarios} scenarios, ${c.scenariosPassing} passing entirely; checks ${c.checksPassed} passed, ${c.checksFailed} failed (${result.seconds} s)`);
    const baseline = existsSync(baselineFile(revision)) ? readBaseline(revision) : {};
    for (const check of result.checks.filter((x) => x.status !== 'SUCCESS')) {
      console.log(`  ${check.key} ${check.status}\n    suite:    ${check.message}\n    baseline: ${baseline[check.key] ?? '(not listed)'}`);
    }
    if (values['write-baseline']) {
      const { added, removed } = writeBaseline(result, values.reason);
      console.log(`Wrote ${file}: ${added.length} entries added, ${removed.length} removed.`);
      for (const key of added) console.log(`  + ${key}`);
      for (const key of removed) console.log(`  - ${key}`);
    }
    const diff = compare(result, values['write-baseline'] ? readBaseline(revision) : baseline);
    for (const line of diff.unexpected) console.log(`Not in ${file}: ${line}`);
    for (const key of diff.stale) console.log(`In ${file} but no longer failing (remove it): ${key}`);
    for (const line of diff.badReasons) console.log(`Reason not allowed in ${file}: ${line}`);
    if (diff.unexpected.length + diff.stale.length + diff.badReasons.length === 0) console.log(`Matches ${file}.`);
    else mismatch = true;
  }
  if (mismatch) console.log(`\nAllowed reasons:\n${REASONS.map((r) => `  ${r}`).join('\n')}`);
} finally {
  serve.child.kill('SIGTERM');
  await new Promise((resolve) => (serve.child.exitCode !== null ? resolve() : serve.child.on('exit', resolve)));
  rmSync(dataDir, { recursive: true, force: true });
}
process.exitCode = mismatch ? 1 : 0;
