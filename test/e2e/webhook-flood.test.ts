import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startListener } from '../../src/http/listener.js';
import { hookSide } from '../../src/sandbox/github/hooks.js';
import { SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { exited, runCli, startHttpServe } from './cli.js';

const MB = 1024 * 1024;
const UNKNOWN = ['/webhooks/github/hk_00000000', '/webhooks/vercel/trg_0000000000000000'];

let dataDir: string;
let sandbox: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-flood-'));
  sandbox = await startSandbox();
  env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_GITHUB_BASE_URL: sandbox.baseUrls.github };
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return kb / 1024;
}

const requestHead = (path: string, bytes: number) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n` +
  `X-GitHub-Event: issues\r\nX-GitHub-Delivery: flood\r\nX-Hub-Signature-256: sha256=${'0'.repeat(64)}\r\nConnection: close\r\n\r\n`;

/**
 * POSTs `bytes` of body on a raw socket without waiting for an answer, and resolves with the status line's code, or 0
 * when there is none: a server that answers early and closes with bytes unread resets the connection, and a reset may
 * reach the sender before the answer does.
 */
function postLarge(port: number, path: string, bytes: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(statusOf(answer)));
    socket.write(requestHead(path, bytes));
    const chunk = Buffer.alloc(MB, 0x20);
    let sent = 0;
    const write = () => {
      while (sent < bytes && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', write);
      }
    };
    write();
  });
}

/** Sends only the head of a POST announcing `bytes` of body, and resolves with the answer's status line once the server closes. */
function headOnly(port: number, path: string, bytes: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(statusOf(answer)));
    socket.write(requestHead(path, bytes));
  });
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);

/** Samples the process's RSS every 20 ms while `work` runs; resolves with its result and the peak growth in MB. */
async function peakGrowth<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; grewMb: number }> {
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
  try {
    const result = await work();
    return { result, grewMb: Math.max(peak, rssMb(pid)) - before };
  } finally {
    clearInterval(sampler);
  }
}

describe('webhook deliveries from strangers', () => {
  it('refuses unknown hook ids before reading their bodies: answered with no body sent, and 16 concurrent 25 MB POSTs keep RSS under 150 MB', { timeout: 60_000 }, async () => {
    const { child, url } = await startHttpServe([], { SWITCHBOARD_DATA_DIR: dataDir });
    try {
      const port = Number(new URL(url).port);
      // The answer comes while the announced body has not been sent at all: the refusal needs none of it.
      expect(await Promise.all(UNKNOWN.map((path) => headOnly(port, path, 25 * MB)))).toEqual([404, 404]);

      let peak = rssMb(child.pid!);
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(child.pid!))), 20);
      try {
        const statuses = await Promise.all(Array.from({ length: 16 }, (_, i) => postLarge(port, UNKNOWN[i % 2]!, 25 * MB)));
        expect(statuses.filter((s) => s !== 404 && s !== 0)).toEqual([]);
      } finally {
        clearInterval(sampler);
      }
      expect(peak).toBeLessThan(150);
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });

  it('reads bodies at a real hook within a memory budget: 16 concurrent 25 MB POSTs grow RSS by under 200 MB, and the budget refuses only what it must', { timeout: 90_000 }, async () => {
    const { child, url } = await startHttpServe([], env);
    try {
      const base = url.replace(/\/mcp$/, '');
      expect((await runCli(['accounts', 'add', 'github', '--token-stdin'], { env, stdin: SANDBOX_TOKENS.github })).code).toBe(0);
      const added = await runCli(['triggers', 'add', 'github.new_issue', '--config', '{"repo":"sbx-octocat/hello-world"}', '--public-url', base], { env });
      expect(added.code, added.stderr).toBe(0);
      const hook = hookSide(sandbox.states.github).hooks.find((h) => h.config.url.startsWith(`${base}/webhooks/github/`))!;
      const port = Number(new URL(url).port);
      const { result: statuses, grewMb } = await peakGrowth(child.pid!, () =>
        Promise.all(Array.from({ length: 16 }, () => postLarge(port, new URL(hook.config.url).pathname, 25 * MB))),
      );
      // 401: read whole and refused for its signature; 503: refused to keep within the budget (or a reset after that answer).
      expect(statuses.filter((s) => s !== 401 && s !== 503 && s !== 0)).toEqual([]);
      // Some bodies were read whole: the budget refuses the slowest, never every one.
      expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
      expect(grewMb).toBeLessThan(200);
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });

  it('drops a connection that never finishes its headers', { timeout: 30_000 }, async () => {
    const stream = new Writable({ write: (_c, _e, done) => done() });
    const listener = await startListener({ host: '127.0.0.1', port: 0, logger: createLogger({ stream, level: 'error' }), version: 'test', headersTimeoutMs: 500 });
    try {
      const socket = connect(listener.port, '127.0.0.1');
      let answer = '';
      socket.on('data', (d) => (answer += d));
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('POST /webhooks/github/hk_00000000 HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      // Node's own defaults (60 s, checked every 30 s) would outlast this test's time limit.
      await new Promise((resolve) => socket.once('close', resolve));
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await listener.close();
    }
  });
});
