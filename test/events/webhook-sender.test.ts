import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardDispatcher } from '../../src/http/forward-guard.js';
import { controlBody, MAX_BODY_BYTES, occurrenceBody } from '../../src/events/occurrence.js';
import { sendSigned, signatures, verifyCallback, type SendOptions } from '../../src/events/webhook-sender.js';
import type { TriggerEvent } from '../../src/store/types.js';
import { startReceiver, type Answer } from './receiver.js';

const newSecret = () => 'whsec_' + randomBytes(32).toString('base64');
const current = newSecret();
const previous = newSecret();
const NAMES: Record<string, string[]> = { 'intranet.test': ['10.0.0.7'] };
const resolve = async (hostname: string) => NAMES[hostname] ?? [];
const dispatcher = forwardDispatcher({ allowPrivate: false, resolve });
const options: SendOptions = { dispatcher };

const event: TriggerEvent = {
  id: 42,
  triggerId: 'trg_1',
  kind: 'github.new_issue',
  dedupeKey: 'd-42',
  occurredAt: '2026-10-10T14:00:00+02:00',
  receivedAt: '2026-10-10T12:00:01.000Z',
  summary: 'Issue #7 opened',
  payload: { number: 7, title: 'Crash on start', labels: ['bug'], user: { login: 'octo' } },
};

const answers: Record<string, (body: string) => Answer> = {
  '/ok': (body) => ({ status: Buffer.byteLength(body) > MAX_BODY_BYTES ? 413 : 204 }),
  '/gone': () => ({ status: 410 }),
  '/too-big': () => ({ status: 413 }),
  '/broken': () => ({ status: 500, body: `stack trace mentioning ${current}` }),
  '/moved': () => ({ status: 301, headers: { location: '/ok' } }),
  '/slow': () => 'hang',
  '/echo': (body) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ challenge: JSON.parse(body).challenge }) }),
  '/wrong-echo': () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ challenge: 'not-the-nonce' }) }),
  '/no-echo': () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{}' }),
  '/not-json': () => ({ status: 200, body: 'ok' }),
  '/echo-503': (body) => ({ status: 503, body: JSON.stringify({ challenge: JSON.parse(body).challenge }) }),
};

let receiver: Awaited<ReturnType<typeof startReceiver>>;
const outcomes: unknown[] = [];
const send = async (path: string, body = occurrenceBody(event, { name: 'github.new_issue' }, 'cur-1'), secrets = [current], extra: Partial<SendOptions> = {}) => {
  const outcome = await sendSigned({ url: receiver.url + path, subscriptionId: 'sub_1', ...body, secrets }, { ...options, ...extra });
  outcomes.push(outcome);
  return outcome;
};
const hits = (path: string) => receiver.received.filter((r) => r.path.split('?')[0] === path);

beforeAll(async () => {
  receiver = await startReceiver((path, body) => answers[path]?.(body) ?? { status: 404 });
});
afterAll(async () => {
  await receiver.close();
  await dispatcher.close();
});

describe('sendSigned', () => {
  it('signs as the Standard Webhooks test vector says', () => {
    const signed = signatures('msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330000), '{"test": 2432232314}', ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);
    expect(signed).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('throws, naming no secret, when a stored secret cannot sign, instead of sending anything', async () => {
    const before = receiver.received.length;
    const bad = 'whsec_not*base64*at*all';
    const failure = await send('/ok', undefined, [bad]).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure!.message).not.toContain('not*base64');
    await expect(send('/ok', undefined, [])).rejects.toThrow('at least one secret');
    expect(receiver.received.length).toBe(before);
  });

  it('POSTs the exact bytes to the exact URL with Standard Webhooks headers that verify', async () => {
    const body = occurrenceBody(event, { name: 'github.new_issue' }, 'cur-1');
    const outcome = await send('/ok?mcp_event_subscription=5f0c%2F1&x=a', body);
    expect(outcome).toMatchObject({ ok: true, status: 204, retry: false });
    const got = receiver.received.at(-1)!;
    expect(got.path).toBe('/ok?mcp_event_subscription=5f0c%2F1&x=a');
    expect(got.body).toBe(body.body);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toBe('evt_42');
    expect(got.headers['x-mcp-subscription-id']).toBe('sub_1');
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    const verified = new Webhook(current).verify(got.body, got.headers as Record<string, string>);
    expect(verified).toEqual({
      eventId: 'evt_42',
      name: 'github.new_issue',
      timestamp: '2026-10-10T12:00:00.000Z',
      data: event.payload,
      cursor: 'cur-1',
    });
    expect(() => new Webhook(newSecret()).verify(got.body, got.headers as Record<string, string>)).toThrow();
  });

  it('signs with every secret given while a rotation is in grace, each signature verifying alone', async () => {
    await send('/ok', undefined, [current, previous]);
    const got = receiver.received.at(-1)!;
    const parts = String(got.headers['webhook-signature']).split(' ');
    expect(parts).toHaveLength(2);
    expect(parts.every((p) => /^v1,[A-Za-z0-9+/]+=*$/.test(p))).toBe(true);
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toBeTruthy();
  });

  it('signs each attempt afresh at the time it is sent, under the same event id', async () => {
    await send('/ok', undefined, [current], { now: () => new Date('2026-10-10T12:00:00Z') });
    await send('/ok', undefined, [current], { now: () => new Date('2026-10-10T12:00:10Z') });
    const [first, second] = receiver.received.slice(-2);
    expect([first!.headers['webhook-timestamp'], second!.headers['webhook-timestamp']]).toEqual(['1791633600', '1791633610']);
    expect(first!.headers['webhook-signature']).not.toBe(second!.headers['webhook-signature']);
    expect(first!.headers['webhook-id']).toBe(second!.headers['webhook-id']);
  });

  it('does not retry 410 or 413, retries 500, and takes a redirect as a failure without following it', async () => {
    expect(await send('/gone')).toMatchObject({ ok: false, status: 410, category: 'http_4xx', retry: false });
    expect(await send('/too-big')).toMatchObject({ ok: false, status: 413, category: 'http_4xx', retry: false });
    expect(await send('/broken')).toMatchObject({ ok: false, status: 500, category: 'http_5xx', retry: true });
    const okBefore = hits('/ok').length;
    expect(await send('/moved')).toMatchObject({ ok: false, status: 301, category: 'http_4xx', retry: true });
    expect(hits('/ok').length).toBe(okBefore);
    expect(hits('/gone')).toHaveLength(1);
  });

  it('gives up on a receiver that does not answer in time, as a timeout', async () => {
    const outcome = await send('/slow', undefined, [current], { timeoutMs: 300 });
    expect(outcome).toMatchObject({ ok: false, category: 'timeout', retry: true });
    expect(outcome.durationMs).toBeLessThan(5_000);
  });

  it('names a closed port connection_refused and a non-TLS answer to https tls_error, both retried', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const refused = await sendSigned({ url: `http://127.0.0.1:${port}/ok`, subscriptionId: 's', webhookId: 'evt_1', body: '{}', secrets: [current] }, options);
    expect(refused).toMatchObject({ ok: false, category: 'connection_refused', retry: true });
    const tls = await sendSigned({ url: receiver.url.replace('http:', 'https:') + '/ok', subscriptionId: 's', webhookId: 'evt_1', body: '{}', secrets: [current] }, options);
    expect(tls).toMatchObject({ ok: false, category: 'tls_error', retry: true });
    outcomes.push(refused, tls);
  });

  it('refuses, without sending or retrying, plain http beyond loopback and addresses the guard refuses', async () => {
    const before = receiver.received.length;
    const port = new URL(receiver.url).port;
    for (const url of [`http://localhost:${port}/ok`, 'https://10.0.0.7/hook', 'https://169.254.169.254/latest', 'https://intranet.test/hook']) {
      const outcome = await sendSigned({ url, subscriptionId: 's', webhookId: 'evt_1', body: '{}', secrets: [current] }, options);
      expect(outcome, url).toMatchObject({ ok: false, category: 'connection_refused', retry: false });
      expect(outcome.reason, url).toMatch(/^refused, not retried: /);
      outcomes.push(outcome);
    }
    expect(receiver.received.length).toBe(before);
  });

  it('delivers an event larger than 256 KiB cut to fit, which the receiver accepts', async () => {
    const big = { ...event, payload: { ...event.payload, body: 'x'.repeat(400_000) } };
    const body = occurrenceBody(big, { name: 'github.new_issue' }, null);
    expect(Buffer.byteLength(body.body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(await send('/ok', body)).toMatchObject({ ok: true, status: 204 });
    const data = JSON.parse(receiver.received.at(-1)!.body).data;
    expect(Object.keys(data).sort()).toEqual(['body', 'labels', 'number', 'title', 'user']);
  });

  it('sends control envelopes under msg_<type>_ ids that verify', async () => {
    const gap = controlBody('gap', 'cur-9');
    await send('/ok', gap);
    const got = receiver.received.at(-1)!;
    expect(got.headers['webhook-id']).toMatch(/^msg_gap_[0-9a-f]{24}$/);
    expect(new Webhook(current).verify(got.body, got.headers as Record<string, string>)).toEqual({ type: 'gap', cursor: 'cur-9' });
  });
});

describe('verifyCallback', () => {
  const verify = async (path: string) => {
    const outcome = await verifyCallback({ url: receiver.url + path + '?mcp_event_subscription=u1', subscriptionId: 'sub_9', secret: current }, options);
    outcomes.push(outcome);
    return outcome;
  };

  it('succeeds when the receiver echoes the nonce of a signed verification request', async () => {
    expect(await verify('/echo')).toMatchObject({ ok: true, status: 200 });
    const got = receiver.received.at(-1)!;
    expect(got.path).toBe('/echo?mcp_event_subscription=u1');
    expect(got.headers['webhook-id']).toMatch(/^msg_verification_[0-9a-f]{24}$/);
    expect(got.headers['x-mcp-subscription-id']).toBe('sub_9');
    const sent = new Webhook(current).verify(got.body, got.headers as Record<string, string>) as { type: string; challenge: string };
    expect(sent.type).toBe('verification');
    expect(sent.challenge).toMatch(/^[\w-]{40,}$/);
    await verify('/echo');
    const again = JSON.parse(receiver.received.at(-1)!.body) as { challenge: string };
    expect(again.challenge).not.toBe(sent.challenge);
  });

  it('fails as challenge_failed on a wrong, missing or unreadable echo', async () => {
    for (const path of ['/wrong-echo', '/no-echo', '/not-json']) {
      expect(await verify(path), path).toMatchObject({ ok: false, status: 200, category: 'challenge_failed' });
    }
  });

  it('fails with the transport category on a non-2xx answer, a redirect or a closed port', async () => {
    expect(await verify('/echo-503')).toMatchObject({ ok: false, status: 503, category: 'http_5xx' });
    expect(await verify('/moved')).toMatchObject({ ok: false, status: 301, category: 'http_4xx' });
    expect(await verify('/missing')).toMatchObject({ ok: false, status: 404, category: 'http_4xx' });
    const refused = await verifyCallback({ url: 'https://10.0.0.7/hook', subscriptionId: 's', secret: current }, options);
    expect(refused).toMatchObject({ ok: false, category: 'connection_refused' });
    outcomes.push(refused);
  });
});

describe('an answer that never ends', () => {
  it('is cut off at the timeout: a challenge fails as a timeout, a 2xx delivery counts as received', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const trickler = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).write('{"challenge":');
      const drip = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(drip));
    });
    trickler.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((done) => trickler.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(trickler.address() as import('node:net').AddressInfo).port}/hook`;
    try {
      const started = Date.now();
      const challenge = await verifyCallback({ url, subscriptionId: 'sub_t', secret: current }, { ...options, timeoutMs: 400 });
      expect(challenge).toMatchObject({ ok: false, category: 'timeout' });
      const delivery = await sendSigned({ url, subscriptionId: 'sub_t', webhookId: 'msg_t', body: '{}', secrets: [current] }, { ...options, timeoutMs: 400 });
      expect(delivery).toMatchObject({ ok: true, status: 200 });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((done) => trickler.close(done));
    }
  });
});

describe('secrets stay out of what is returned', () => {
  it('no outcome of any send or verification holds a secret, even when the receiver echoes one', () => {
    expect(outcomes.length).toBeGreaterThan(15);
    const text = JSON.stringify(outcomes);
    for (const secret of [current, previous]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice('whsec_'.length));
    }
    expect(text).not.toContain('stack trace');
  });
});
