import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, serveStdioUntilExit, type CliResult } from './cli.js';

const PAGE = 4096;
let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'switchboard-e2e-damaged-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function expectRecoveryAdvice(r: CliResult, dbFile: string): void {
  expect(r.code, 'killed at the deadline: the process did not exit by itself').not.toBeNull();
  expect(r.code).not.toBe(0);
  expect(r.stderr).not.toMatch(/unexpected failure/i);
  expect(r.stderr).toContain(`The store ${dbFile} is damaged`);
  expect(r.stderr).toMatch(/Restore it from a backup, or move it aside .* to start with an empty store/);
  expect(r.stderr).toMatch(/add the accounts and triggers again \(switchboard accounts add/);
  expect(r.stdout).toBe('');
}

describe('a damaged store', { timeout: 30_000 }, () => {
  it('of garbage bytes is refused with the file and how to recover, and left as it was', async () => {
    const dataDir = mkdtempSync(join(root, 'garbage-'));
    const dbFile = join(dataDir, 'switchboard.db');
    const garbage = randomBytes(3 * PAGE);
    writeFileSync(dbFile, garbage);
    const r = await runCli(['accounts', 'list'], { env: { SWITCHBOARD_DATA_DIR: dataDir } });
    expectRecoveryAdvice(r, dbFile);
    expect(readFileSync(dbFile).equals(garbage)).toBe(true);
  });

  it('whose header is intact but a page is not is refused the same way, by commands and by serve', async () => {
    const dataDir = mkdtempSync(join(root, 'page-'));
    const dbFile = join(dataDir, 'switchboard.db');
    expect((await runCli(['accounts', 'list'], { env: { SWITCHBOARD_DATA_DIR: dataDir } })).code).toBe(0);
    const bytes = readFileSync(dbFile);
    // The second page holds part of the schema: SQLite opens the file, then finds it malformed in the first query.
    Buffer.alloc(PAGE, 0xa5).copy(bytes, PAGE);
    writeFileSync(dbFile, bytes);
    expectRecoveryAdvice(await runCli(['accounts', 'list'], { env: { SWITCHBOARD_DATA_DIR: dataDir } }), dbFile);
    expectRecoveryAdvice(await runCli(['serve', '--http', '--port', '0'], { env: { SWITCHBOARD_DATA_DIR: dataDir }, timeoutMs: 25_000 }), dbFile);
  });

  it('whose schema opens but whose table pages are garbage is refused by serve (exit 2) before it listens, over HTTP and over stdio', async () => {
    const dataDir = mkdtempSync(join(root, 'table-'));
    const dbFile = join(dataDir, 'switchboard.db');
    expect((await runCli(['accounts', 'list'], { env: { SWITCHBOARD_DATA_DIR: dataDir } })).code).toBe(0);
    const bytes = readFileSync(dbFile);
    // Past the schema: the store opens and migrates, and only a query reading these pages (or quick_check) finds them.
    Buffer.alloc(2 * PAGE, 0xa5).copy(bytes, 3 * PAGE);
    writeFileSync(dbFile, bytes);
    const env = { SWITCHBOARD_DATA_DIR: dataDir };
    const overHttp = await runCli(['serve', '--http', '--port', '0'], { env, timeoutMs: 25_000 });
    expectRecoveryAdvice(overHttp, dbFile);
    expect(overHttp.code).toBe(2);
    expect(overHttp.stderr).toContain('PRAGMA quick_check');
    expect(overHttp.stderr).not.toContain('"listening"');
    const overStdio = await serveStdioUntilExit(['--port', '0'], env);
    expectRecoveryAdvice(overStdio, dbFile);
    expect(overStdio.code).toBe(2);
    expect(overStdio.stderr.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(dbFile).equals(bytes)).toBe(true);
  });
});
