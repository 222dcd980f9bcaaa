import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_MIGRATIONS } from '../store/adapters.js';
import { commandLines, shellBlocks, SWITCHBOARD } from '../docs/markdown.js';
import { watchMisses } from '../support/misses.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-npm-postgres-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Whether something accepts connections on 127.0.0.1 at `port`. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** A line of the docs in bash, `switchboard` being the built CLI. */
function shell(line: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `${SWITCHBOARD}\n${line}`], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    watchMisses(child.stderr);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('docs/postgres.md: npm run postgres', () => {
  it('prints the SWITCHBOARD_DATABASE_URL of a server the documented commands use; Ctrl-C stops it and removes its data', { timeout: 90_000 }, async () => {
    const [start, use] = shellBlocks('docs/postgres.md', '## Trying it with a local PostgreSQL').map(commandLines);
    expect(start).toEqual(['npm run postgres']);
    expect(use).toEqual(['switchboard db migrate', 'switchboard accounts list']);
    // Its own process group, as a terminal gives a command: Ctrl-C is SIGINT to the whole group.
    const child = spawn('bash', ['-c', start![0]!], { cwd: REPO, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          stdout += d;
          const printed = /^export SWITCHBOARD_DATABASE_URL=(postgres:\/\/\S+)$/m.exec(stdout);
          if (printed) resolve(printed[1]!);
        });
        void exit.then(({ code }) => reject(new Error(`npm run postgres exited (${code}) before printing the URL:\n${stdout}\n${stderr}`)));
      });
      const parsed = new URL(url);
      expect(parsed.hostname).toBe('127.0.0.1');
      expect(parsed.pathname).toBe('/switchboard');
      const folder = /its data in (\S+) \(removed when it stops\)/.exec(stderr)?.[1];
      expect(folder && existsSync(folder)).toBe(true);

      const env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_DATABASE_URL: url };
      const migrated = await shell(use![0]!, env);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stdout.trim()).toBe(`PostgreSQL postgres://switchboard:***@127.0.0.1:${parsed.port}/switchboard: schema 0 → ${PG_MIGRATIONS.at(-1)!.version}.`);
      const listed = await shell(use![1]!, env);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/^No accounts connected\./);
      expect(migrated.stdout + migrated.stderr + listed.stdout + listed.stderr).not.toContain(parsed.password);

      process.kill(-child.pid!, 'SIGINT');
      // npm ends itself by the signal it was sent once the script has exited (npm 10), or with the script's status.
      const ended = await exit;
      expect(ended.signal === 'SIGINT' || ended.code === 0 || ended.code === 130, JSON.stringify(ended)).toBe(true);
      expect(stderr).toContain(`PostgreSQL stopped; ${folder} is removed.`);
      expect(existsSync(folder!)).toBe(false);
      expect(await answers(Number(parsed.port))).toBe(false);
    } finally {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  });
});
