import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startSandboxServer, type SandboxServer } from '../../src/sandbox/server.js';
import { openStore } from '../../src/store/index.js';
import { EventLog } from '../../src/triggers/event-log.js';
import { Runner } from '../../src/triggers/runner.js';
import { until } from '../support/wait.js';

let receiver: SandboxServer;
let failuresLeft = 2;
let dir: string;

beforeAll(async () => {
  receiver = await startSandboxServer('receiver', {
    'POST /hook': () => (failuresLeft-- > 0 ? { status: 503, body: 'busy' } : { status: 204 }),
  });
  dir = mkdtempSync(join(tmpdir(), 'sb-forward-'));
});
afterAll(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

async function startRunner() {
  const store = await openStore({ dataDir: dir, secretKey: 'k' });
  const log = new EventLog(store.events, 50);
  const runner = new Runner({
    store,
    kinds: new Map(),
    log,
    deps: { baseUrls: {} as never },
    logger: createLogger({ level: 'error' }),
    tickMs: 25,
    forward: { baseDelayMs: 40, maxDelayMs: 200, timeoutMs: 2_000 },
  });
  return { store, runner };
}

describe('forwarding', () => {
  it('signs each event, retries a failing receiver with back-off across a restart, and records every attempt', async () => {
    const first = await startRunner();
    const account = await first.store.accounts.add({ provider: 'outlook', secret: { kind: 'token', token: 'token-abcdef' } });
    const trigger = await first.store.triggers.create({
      kind: 'outlook.new_email',
      accountId: account.id,
      config: {},
      forwardUrl: `${receiver.url}/hook`,
      secrets: { forward: 'forward-secret-1234' },
    });
    const [event] = await first.store.triggers.commit(trigger.id, {
      events: [{ dedupeKey: 'm1', occurredAt: '2026-11-22T10:00:00Z', summary: 'Email from Dana: hi', payload: { subject: 'hi' } }],
    });

    await first.runner.start();
    await until(() => receiver.requests.length >= 1, 'the forward', 5_000);
    await first.runner.stop();
    await first.store.close();

    // A new process on the same data dir finishes the job.
    const second = await startRunner();
    await second.runner.start();
    await until(async () => (await second.store.events.attempts(event!.id)).some((a) => a.status === 204), 'the delivered attempt', 5_000);
    await second.runner.stop();

    const attempts = await second.store.events.attempts(event!.id);
    expect(attempts.map((a) => a.status)).toEqual([503, 503, 204]);
    expect(receiver.requests).toHaveLength(3);
    const last = receiver.requests[2]!;
    const expected = 'sha256=' + createHmac('sha256', 'forward-secret-1234').update(last.rawBody).digest('hex');
    expect(last.headers['x-switchboard-signature-256']).toBe(expected);
    expect(last.headers['x-switchboard-event-id']).toBe(String(event!.id));
    expect(last.body).toMatchObject({ id: String(event!.id), trigger_id: trigger.id, kind: 'outlook.new_email', summary: 'Email from Dana: hi', payload: { subject: 'hi' } });
    // Same body on every attempt, so the receiver can dedupe by event id.
    expect(receiver.requests[0]!.rawBody.equals(last.rawBody)).toBe(true);
    expect(await second.store.work.claimDeliveries('test', 10, 60_000)).toEqual([]);
    await second.store.close();
  });
});
