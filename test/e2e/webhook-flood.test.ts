import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startHttpListener } from '../../src/mcp/http.js';
import { exited, startHttpServe } from './cli.js';

let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-flood-'));
});

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return kb / 1024;
}

/** POSTs `bytes` of body on a raw socket and resolves with the status line's code, whatever of the body the server read. */
function postLarge(port: number, path: string, bytes: number): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\nConnection: close\r\n\r\n`);
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
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

describe('webhook deliveries from strangers', () => {
  it('refuses unknown hook ids before reading their bodies: 16 concurrent 25 MB POSTs keep RSS under 150 MB', { timeout: 60_000 }, async () => {
    const { child, url } = await startHttpServe([], { SWITCHBOARD_DATA_DIR: dataDir });
    try {
      const port = Number(new URL(url).port);
      let peak = rssMb(child.pid!);
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(child.pid!))), 20);
      try {
        const statuses = await Promise.all(
          Array.from({ length: 16 }, (_, i) => postLarge(port, i % 2 ? '/webhooks/github/hk_00000000' : '/webhooks/vercel/trg_0000000000000000', 25 * 1024 * 1024)),
        );
        // 404, or a reset: a socket closed with unread bytes may reach the sender as a reset before the answer.
        expect(statuses.filter((s) => s !== 404 && s !== 0)).toEqual([]);
        expect(statuses.filter((s) => s === 404).length).toBeGreaterThan(0);
      } finally {
        clearInterval(sampler);
      }
      expect(peak).toBeLessThan(150);
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });

  it('drops a connection that never finishes its headers', { timeout: 30_000 }, async () => {
    const stream = new Writable({ write: (_c, _e, done) => done() });
    const listener = await startHttpListener({ host: '127.0.0.1', port: 0, logger: createLogger({ stream, level: 'error' }), version: 'test', headersTimeoutMs: 500 });
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
