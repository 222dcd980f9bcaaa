import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SANDBOX_MISS, takeMisses } from '../../src/sandbox/index.js';
import { exited, startHttpServe } from '../e2e/cli.js';

const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
const CONFIG = fileURLToPath(new URL('../fixtures/sandbox-miss/vitest.config.ts', import.meta.url));

function runFixture(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITEST, 'run', '--config', CONFIG, '--reporter=json'], { stdio: 'pipe', env: { ...process.env, CI: 'true' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a sandbox miss', () => {
  it('fails the test that caused it, though that test checks nothing itself', async () => {
    const run = await runFixture();
    expect(run.code, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{')));
    const results = report.testResults.flatMap((f: any) => f.assertionResults) as { title: string; status: string; failureMessages: string[] }[];
    expect(results.map((r) => [r.title, r.status])).toEqual([
      ['reaches a route the sandbox has', 'passed'],
      ['asks for a route the sandbox lacks, and checks nothing else', 'failed'],
    ]);
    expect(results[1]!.failureMessages.join('\n')).toContain('github GET /no/such/route');
  }, 30_000);

  it('in a `serve --sandbox` child is logged there and reported here', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-miss-'));
    const { child, stderr } = await startHttpServe(['--sandbox'], { SWITCHBOARD_DATA_DIR: dataDir });
    try {
      const logged = new Promise<void>((resolve) => child.stderr!.on('data', () => stderr().includes(SANDBOX_MISS) && resolve()));
      const { servers } = JSON.parse(readFileSync(join(dataDir, 'sandbox', 'sandbox.json'), 'utf8'));
      expect((await fetch(`${servers.github}/no/such/route`)).status).toBe(501);
      await logged;
      expect(takeMisses()).toEqual(['github GET /no/such/route (in a child process)']);
    } finally {
      child.kill('SIGTERM');
      await exited(child);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
