import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyBudget } from '../../src/triggers/body-budget.js';
import { until } from '../support/wait.js';

const KB = 1024;

let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A server that reads every body through the budget and answers 200 with its length; `hold` keeps the answer back. */
async function serve(budget: BodyBudget, hold?: Promise<void>): Promise<number> {
  server = createServer(async (req, res) => {
    const body = await budget.read(req, res);
    if (!body) return;
    await hold;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ bytes: body.length }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** A raw POST: its head (with `length` when given, else chunked), then what the test writes; resolves the answer's text on close. */
function post(port: number, length?: number) {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let answer = '';
  socket.on('data', (d) => (answer += d));
  socket.on('error', () => undefined);
  const answered = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  const framing = length === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
  socket.write(`POST /hook HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${framing}\r\n\r\n`);
  return {
    write: (bytes: number) => socket.write(length === undefined ? `${bytes.toString(16)}\r\n${'x'.repeat(bytes)}\r\n` : 'x'.repeat(bytes)),
    answered,
    status: async () => Number(/^HTTP\/1\.1 (\d{3})/.exec(await answered)?.[1] ?? 0),
  };
}

describe('BodyBudget', () => {
  it('counts what a trickling body has sent, not what it announced, so others are read meanwhile; bytes are let go once answered', async () => {
    const budget = new BodyBudget({ maxBody: 64 * KB, maxHeld: 96 * KB, retryAfterSeconds: 7 });
    const port = await serve(budget);
    const slow = Array.from({ length: 20 }, () => post(port, 60 * KB));
    for (const s of slow) s.write(1);
    await until(() => budget.heldBytes() === 20, 'the first byte of every slow body');

    for (let i = 0; i < 3; i++) {
      const fast = post(port, 60 * KB);
      fast.write(60 * KB);
      const answer = await fast.answered;
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).toContain(JSON.stringify({ bytes: 60 * KB }));
    }
    expect(budget.heldBytes()).toBe(20);

    for (const s of slow) s.write(60 * KB - 1);
    // They do not all fit at once: the budget refuses some, and reads the others whole.
    const statuses = await Promise.all(slow.map((s) => s.status()));
    expect(statuses.filter((s) => s !== 200 && s !== 503 && s !== 0)).toEqual([]);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    await until(() => budget.heldBytes() === 0, 'every byte let go');
  });

  it('makes room by refusing the slowest body (503, Retry-After), not the one arriving at speed', async () => {
    const budget = new BodyBudget({ maxBody: 64 * KB, maxHeld: 96 * KB, retryAfterSeconds: 7 });
    const port = await serve(budget);
    const stalled = post(port, 64 * KB);
    stalled.write(60 * KB);
    await until(() => budget.heldBytes() === 60 * KB, 'the stalled body');
    // Stalled long enough that a body sent at once on loopback is far faster on any machine.
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const fast = post(port, 64 * KB);
    fast.write(64 * KB);
    expect(await fast.status()).toBe(200);
    const refused = await stalled.answered;
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused).toMatch(/\r\nretry-after: 7\r\n/i);
    expect(refused).toContain('the slowest; send it again');
    await until(() => budget.heldBytes() === 0, 'every byte let go');
  });

  it('keeps a body counted until its answer is sent, and refuses the newcomer when only answered-to-be bodies hold the memory', async () => {
    let release!: () => void;
    const budget = new BodyBudget({ maxBody: 64 * KB, maxHeld: 96 * KB, retryAfterSeconds: 7 });
    const port = await serve(budget, new Promise<void>((resolve) => (release = resolve)));
    const first = post(port, 64 * KB);
    first.write(64 * KB);
    await until(() => budget.heldBytes() === 64 * KB, 'the first body read whole');

    const second = post(port, 64 * KB);
    second.write(64 * KB);
    expect(await second.status()).toBe(503);
    expect(budget.heldBytes()).toBe(64 * KB);
    release();
    expect(await first.status()).toBe(200);
    await until(() => budget.heldBytes() === 0, 'the answered body let go');
  });

  it('refuses a body over the largest size with 413: unread when its length says so, at once when chunks pass it', async () => {
    const budget = new BodyBudget({ maxBody: 64 * KB, maxHeld: 96 * KB, retryAfterSeconds: 7 });
    const port = await serve(budget);
    const announced = post(port, 65 * KB);
    expect(await announced.answered).toMatch(/^HTTP\/1\.1 413 [^]*delivery too large/);

    const chunked = post(port);
    chunked.write(40 * KB);
    chunked.write(40 * KB);
    expect(await chunked.status()).toBe(413);
    await until(() => budget.heldBytes() === 0, 'its bytes let go');
  });

  it('lets go of the bytes of a sender that hangs up halfway', async () => {
    const budget = new BodyBudget({ maxBody: 64 * KB, maxHeld: 96 * KB, retryAfterSeconds: 7 });
    const port = await serve(budget);
    const gone = post(port, 64 * KB);
    gone.write(30 * KB);
    await until(() => budget.heldBytes() === 30 * KB, 'the partial body');
    sockets.at(-1)!.destroy();
    await until(() => budget.heldBytes() === 0, 'its bytes let go');
  });

  it('refuses limits that leave no room for one whole body', () => {
    expect(() => new BodyBudget({ maxBody: 64 * KB, maxHeld: 32 * KB, retryAfterSeconds: 7 })).toThrow(/room for one body/);
  });
});
