import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionWork } from '../../src/events/subscription-work.js';
import { createLogger } from '../../src/log.js';
import { Redactor } from '../../src/redact.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import { EventLog } from '../../src/triggers/event-log.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { Runner } from '../../src/triggers/runner.js';
import { freshDatabase, type TestDatabase } from '../pg.js';
import { until } from '../support/wait.js';
import { newSecret, signedBy, startSubscriber, type Subscriber } from './subscriber.js';

/**
 * Two instances on one PostgreSQL store, each with its own connection and runner: a subscription made on the first,
 * an event committed on the second, the delivery sent once, by whichever instance claims it.
 */

let database: TestDatabase;
let a: Subscriber;
let storeB: Store;
let runnerB: Runner;
let logB: EventLog;

beforeAll(async () => {
  database = await freshDatabase();
  a = await startSubscriber({}, { databaseUrl: database.url });
  storeB = await openStore({ dataDir: a.h.dataDir, databaseUrl: database.url, secretKey: 'test-secret-key', redactor: new Redactor() });
  logB = new EventLog(storeB.events, 50);
  await logB.start();
  const logger = createLogger({ level: 'error' });
  const deps = { ...a.h.deps, store: storeB };
  runnerB = new Runner({ store: storeB, kinds: TRIGGER_KINDS, log: logB, deps, logger, tickMs: 20, subscriptions: subscriptionWork({ deps, logger }) });
  await runnerB.start();
});
afterAll(async () => {
  await runnerB?.stop();
  logB?.stop();
  await storeB?.close();
  await a?.close();
  await database?.drop();
});

describe('webhook delivery across instances', () => {
  it('delivers an event committed on another instance once, under its event id', { timeout: 30_000 }, async () => {
    const secret = newSecret();
    const { body } = await a.call('events/subscribe', {
      name: 'outlook.new_email',
      arguments: { filter: 'subject:instances' },
      delivery: { mode: 'webhook', url: a.hook('/both'), secret },
    });
    expect(body.result?.id, JSON.stringify(body.error)).toMatch(/^sub_/);
    const triggerId = (await storeB.subscriptions.get(body.result.id))!.triggerId;
    const committed = [];
    for (let i = 0; i < 5; i++) {
      const [event] = await storeB.triggers.commit(triggerId, {
        events: [{ dedupeKey: `b-${i}-${randomBytes(4).toString('hex')}`, occurredAt: new Date().toISOString(), summary: `on B ${i}`, payload: { subject: `on B ${i}` } }],
      });
      committed.push(event!);
    }
    await logB.poke();
    await until(() => a.received('/both').length >= committed.length, 'every event delivered', 15_000);
    await new Promise((r) => setTimeout(r, 500));
    const ids = a.received('/both').map((r) => r.headers['webhook-id']);
    expect(ids.sort()).toEqual(committed.map((e) => `evt_${e.id}`).sort());
    expect(a.received('/both').every((r) => signedBy(r, secret))).toBe(true);
  });
});
