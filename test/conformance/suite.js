// The official MCP conformance suite's server scenarios against a running Switchboard: Node 22 for the suite, one
// run per protocol revision, its checks.json files read back, and the comparison with a committed baseline.
// Plain JavaScript so that `node test/conformance/run.js` can use it as well as the vitest test.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SUITE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

export const REVISIONS = ['2025-11-25', '2026-07-28'];
export const ARTIFACTS = join(ROOT, 'test-artifacts/conformance');

/** The suite needs Node 22 (fs.globSync). The npm registry has this version's binary for every platform we run on. */
const NODE_VERSION = '22.23.2';
const NODE_CACHE = join(ROOT, 'node_modules/.cache/node22');

/** The reasons a baseline entry may give for a failing check; anything else that fails is a bug to fix, not to list. */
export const REASONS = [
  'suite fixture: <the test_* tool, test:// resource or prompt the scenario needs, which a production server does not ship>',
  'not advertised: <the capability the scenario uses that the server does not declare>',
];

function allowedReason(reason) {
  if (typeof reason !== 'string') return false;
  return REASONS.some((r) => (r.includes(' <') ? reason.startsWith(r.slice(0, r.indexOf('<'))) && reason.length > r.indexOf('<') : reason === r));
}

/** Runs a command to its end; resolves with its exit code and output (SIGKILL after timeoutMs). */
function run(command, args, { timeoutMs, env } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' && command === 'npm' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = timeoutMs ? setTimeout(() => child.kill('SIGKILL'), timeoutMs) : undefined;
    child.on('error', (error) => resolve({ code: null, stdout, stderr: `${stderr}${error.message}` }));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The npm package holding Node's binary for this machine, named as the `node` package's own installer names it. */
function nodePackage() {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const arch = platform === 'win' && process.arch === 'ia32' ? 'x86' : process.arch;
  const prefix = process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node';
  return `${prefix}-${platform}-${arch}`;
}

function cachedNode(pkg) {
  const manifest = join(NODE_CACHE, 'node_modules', pkg, 'package.json');
  return existsSync(manifest) ? join(NODE_CACHE, 'node_modules', pkg, JSON.parse(readFileSync(manifest, 'utf8')).bin.node) : undefined;
}

async function runsNode22(file) {
  return file !== undefined && existsSync(file) && (await run(file, ['--version'], { timeoutMs: 30_000 })).stdout.trim() === `v${NODE_VERSION}`;
}

/**
 * A Node 22 binary for the suite: this one when it is 22 or later, else the one in node_modules/.cache/node22, installed
 * there from the npm registry on first use (and again if a broken one is found). The system's Node is never touched.
 */
export async function conformanceNode() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const pkg = nodePackage();
  if (await runsNode22(cachedNode(pkg))) return cachedNode(pkg);
  rmSync(NODE_CACHE, { recursive: true, force: true });
  const args = ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', '--fetch-retries=1', '--fetch-timeout=60000'];
  // The npm running this script when there is one (no shell needed, on any platform), else the one on the PATH.
  const npm = /npm-cli\.js$/.test(process.env.npm_execpath ?? '') ? [process.execPath, process.env.npm_execpath] : ['npm'];
  const installed = await run(npm[0], [...npm.slice(1), ...args, '--prefix', NODE_CACHE, `${pkg}@${NODE_VERSION}`], { timeoutMs: 180_000 });
  if (await runsNode22(cachedNode(pkg))) return cachedNode(pkg);
  rmSync(NODE_CACHE, { recursive: true, force: true });
  const said = `${installed.stderr}\n${installed.stdout}`
    .split('\n')
    .filter((line) => /^npm (error|ERR!) \w/.test(line))
    .slice(0, 6)
    .join('\n')
    .replace(/\/\/[^/@\s]+@/g, '//[redacted]@');
  throw new Error(
    `The MCP conformance suite needs Node 22 or later, and installing ${pkg}@${NODE_VERSION} from the npm registry into ` +
      `${relative(ROOT, NODE_CACHE)} failed (npm exited ${installed.code}${said ? `:\n${said}` : ''}).\n` +
      `Fix: make the npm registry reachable (\`npm config get registry\`; \`npm view ${pkg}@${NODE_VERSION} version\` must answer), ` +
      `or run the tests under Node 22 or later.`,
  );
}

const FAILING = new Set(['FAILURE', 'WARNING']);
const RANK = { FAILURE: 3, WARNING: 2, SUCCESS: 1 };

/** One entry per check id, its worst status (as the suite's own baseline does); INFO and SKIPPED say nothing. */
function worstPerCheck(checks) {
  const byId = new Map();
  for (const check of checks) {
    if (!(check.status in RANK)) continue;
    const seen = byId.get(check.id);
    if (!seen || RANK[check.status] > RANK[seen.status]) byId.set(check.id, check);
  }
  return [...byId.values()];
}

function messageOf(check) {
  return check.errorMessage ?? (check.details ? JSON.stringify(check.details).slice(0, 500) : check.description);
}

/**
 * Runs every server scenario of a revision (scored and not) in one suite run against `url`, and reads the results:
 * `checks` holds one `{ key: 'scenario:check-id', status, message }` per check. A scenario that broke off without
 * results counts as one failing check named after itself.
 */
export async function runSuite({ node, url, revision }) {
  const outDir = join(ARTIFACTS, revision);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const started = Date.now();
  const env = { PATH: process.env.PATH ?? '', NO_COLOR: '1' };
  const done = await run(node, [SUITE, 'server', '--url', url, '--requirements', revision, '-o', outDir], { timeoutMs: 240_000, env });
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  writeFileSync(join(ARTIFACTS, `${revision}.log`), `${done.stdout}\n${done.stderr}`);
  const summary = done.stdout.slice(done.stdout.indexOf('=== SUMMARY ==='));
  const scenarios = [...summary.matchAll(/^[✓✗] (\S+): \d+ passed, \d+ failed$/gm)].map((m) => m[1]);
  if (scenarios.length === 0) throw new Error(`The conformance suite ended (exit ${done.code}) without its summary:\n${`${done.stderr}\n${done.stdout}`.trim().slice(-2000)}`);
  const dirs = readdirSync(outDir);
  const checks = [];
  for (const scenario of scenarios) {
    const dir = dirs.find((d) => d.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '') === `server-${scenario}`);
    const file = dir && join(outDir, dir, 'checks.json');
    if (!file || !existsSync(file)) {
      const line = `${done.stdout}\n${done.stderr}`.split('\n').find((l) => l.startsWith(`Failed to run scenario ${scenario}:`));
      checks.push({ key: `${scenario}:${scenario}`, status: 'FAILURE', message: line ?? 'the scenario left no results' });
      continue;
    }
    const results = JSON.parse(readFileSync(file, 'utf8'));
    for (const check of worstPerCheck(results)) checks.push({ key: `${scenario}:${check.id}`, status: check.status, message: messageOf(check) });
  }
  return { revision, scenarios, checks, seconds };
}

export function counts(result) {
  const failing = new Set(result.checks.filter((c) => FAILING.has(c.status)).map((c) => c.key.split(':')[0]));
  return {
    scenarios: result.scenarios.length,
    scenariosPassing: result.scenarios.filter((s) => !failing.has(s)).length,
    checksPassed: result.checks.filter((c) => c.status === 'SUCCESS').length,
    checksFailed: result.checks.filter((c) => FAILING.has(c.status)).length,
  };
}

export function baselineFile(revision) {
  return join(ROOT, 'test/conformance', `baseline-${revision}.json`);
}

/** `{ 'scenario:check-id': reason }`: the checks expected to fail, each with why. */
export function readBaseline(revision) {
  return JSON.parse(readFileSync(baselineFile(revision), 'utf8'));
}

/**
 * Sets the baseline to exactly the checks failing now, keeping the reason of an entry that stays and giving a new one
 * `reason` (or a TODO the test refuses until someone writes the real reason).
 */
export function writeBaseline(result, reason) {
  const file = baselineFile(result.revision);
  const old = existsSync(file) ? readBaseline(result.revision) : {};
  const failing = result.checks.filter((c) => FAILING.has(c.status)).map((c) => c.key).sort();
  const next = Object.fromEntries(failing.map((key) => [key, old[key] ?? reason ?? 'TODO: why it fails (one of REASONS in test/conformance/suite.js)']));
  writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
  return { added: failing.filter((k) => !(k in old)), removed: Object.keys(old).filter((k) => !(k in next)) };
}

/**
 * What keeps a run from matching its baseline: failing checks it does not list, entries whose check no longer fails
 * (passing, or gone from the suite), and entries whose reason is not one of REASONS.
 */
export function compare(result, baseline) {
  const failing = result.checks.filter((c) => FAILING.has(c.status));
  const failingKeys = new Set(failing.map((c) => c.key));
  return {
    unexpected: failing.filter((c) => !(c.key in baseline)).map((c) => `${c.key} (${c.status}): ${c.message}`),
    stale: Object.keys(baseline).filter((key) => !failingKeys.has(key)),
    badReasons: Object.entries(baseline)
      .filter(([, reason]) => !allowedReason(reason))
      .map(([key, reason]) => `${key}: ${JSON.stringify(reason)}`),
  };
}
