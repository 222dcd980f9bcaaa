import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import examples from '@octokit/webhooks-examples' with { type: 'json' };
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startListener, type Listener } from '../../src/http/listener.js';
import type { CommitItem, Store, TriggerStore } from '../../src/store/index.js';
import { EventLog } from '../../src/triggers/event-log.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { webhookRoutes } from '../../src/triggers/webhooks.js';
import { ADAPTERS, cleanUp, openAt } from '../store/adapters.js';

const REPO = 'octo/intake';
const OPENED = (examples as Array<{ name: string; examples: Array<Record<string, any>> }>)
  .find((e) => e.name === 'issues')!
  .examples.find((x) => x.action === 'opened')!;

/** A signed `issues.opened` delivery of issue `n` to the repository. */
function delivery(n: number, secret: string) {
  const payload = structuredClone(OPENED);
  payload.issue.number = n;
  payload.issue.title = `Issue ${n}`;
  payload.repository.full_name = REPO;
  const body = JSON.stringify(payload);
  return { id: `delivery-${n}`, body, signature: 'sha256=' + createHmac('sha256', secret).update(body).digest('hex') };
}

/** Promise.withResolvers, which Node 20 lacks. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe.each(ADAPTERS)('webhook intake on $name', (adapter) => {
  let store: Store;
  let listener: Listener;
  let log: EventLog;
  let secret: string;
  let hookId: string;
  let triggerIds: string[];
  let logs: string[];
  /** What the store's commitMany does for the intake: the real one unless a test replaces it. */
  let commitMany: TriggerStore['commitMany'];
  let batches: CommitItem[][];

  /** Hook reads wait for this: a test that needs deliveries to arrive together opens it once all have arrived. */
  let arrived: Promise<void>;
  /** The intake's store, whose commitMany is the test's and whose hook reads wait until `arrived`. */
  const intakeStore = (): Store => {
    const triggers = new Proxy(store.triggers, {
      get(target, key) {
        if (key === 'commitMany') return (items: CommitItem[]) => (batches.push(items), commitMany(items));
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const hooks = new Proxy(store.hooks, {
      get(target, key) {
        if (key === 'intake') return async (id: string) => (await arrived, target.intake(id));
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    return { ...store, triggers, hooks };
  };

  /**
   * With `together`, hook reads wait until that many deliveries have reached the intake: deliveries sent at once by a
   * client in this process otherwise reach it one by one, each after the last one's commit.
   */
  async function start(options: { groupCommit?: boolean; triggers?: number; together?: number } = {}) {
    store = await openAt(await adapter.location(), { secretKey: 'intake key' });
    const accountId = (await store.accounts.add({ provider: 'github', label: 'octo', secret: { kind: 'token', token: 'ghp_intake_test' } })).id;
    const created = await store.hooks.create({ provider: 'github', accountId, target: `repo:${REPO}`, events: ['issues'] });
    [hookId, secret] = [created.hook.id, created.secret];
    triggerIds = [];
    for (let i = 0; i < (options.triggers ?? 1); i++) {
      const trigger = await store.triggers.create({ kind: 'github.new_issue', accountId, config: { repo: REPO }, providerRefs: { hookId } });
      triggerIds.push(trigger.id);
    }
    log = new EventLog(store.events, 50);
    await log.start();
    logs = [];
    const stream = new Writable({ write: (chunk, _encoding, done) => (logs.push(String(chunk)), done()) });
    const logger = createLogger({ stream, level: 'warn' });
    const all = gate();
    arrived = options.together ? all.opened : Promise.resolve();
    let arrivals = 0;
    const routes = webhookRoutes({ store: intakeStore(), kinds: TRIGGER_KINDS, log, logger, groupCommit: options.groupCommit }).map((route) => ({
      ...route,
      handle: (...args: Parameters<typeof route.handle>) => (++arrivals === options.together && all.open(), route.handle(...args)),
    }));
    listener = await startListener({ host: '127.0.0.1', port: 0, routes, logger, version: 'test' });
  }

  async function send(d: { id: string; body: string; signature: string }) {
    const res = await fetch(`${listener.url}/webhooks/github/${hookId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-github-delivery': d.id, 'x-hub-signature-256': d.signature },
      body: d.body,
    });
    return { status: res.status, body: (await res.json()) as { accepted?: number; error?: string } };
  }

  const stored = async () => (await store.events.after(0, { limit: 1000 })).map((e) => `${e.triggerId}:${e.dedupeKey}`);

  beforeEach(() => {
    batches = [];
    commitMany = (items) => store.triggers.commitMany(items);
  });
  afterEach(async () => {
    log?.stop();
    await listener?.close();
    await cleanUp();
  });

  it('answers concurrent deliveries only once the transaction holding each has committed, and stores each exactly once', async () => {
    await start({ together: 24 });
    const committed = new Set<string>();
    const first = gate();
    const firstCalled = gate();
    commitMany = async (items) => {
      if (batches.length === 1) {
        firstCalled.open();
        await first.opened;
      }
      const outcomes = await store.triggers.commitMany(items);
      outcomes.forEach((o) => o.status === 'fulfilled' && o.value.forEach((e) => committed.add(e.dedupeKey)));
      return outcomes;
    };
    const deliveries = Array.from({ length: 24 }, (_, i) => delivery(i + 1, secret));
    const answeredBeforeCommit: string[] = [];
    let answered = 0;
    const sending = Promise.all(
      deliveries.map(async (d) => {
        const answer = await send(d);
        answered++;
        if (!committed.has(d.id)) answeredBeforeCommit.push(d.id);
        return answer;
      }),
    );

    // The first transaction is held: nothing is answered, and nothing is stored, until it commits.
    await firstCalled.opened;
    expect(answered).toBe(0);
    expect(await stored()).toEqual([]);
    first.open();
    const answers = await sending;

    expect(answers.every((a) => a.status === 200 && a.body.accepted === 1)).toBe(true);
    expect(answeredBeforeCommit).toEqual([]);
    expect((await stored()).sort()).toEqual(deliveries.map((d) => `${triggerIds[0]}:${d.id}`).sort());
    // Deliveries that arrived together shared transactions.
    expect(batches.flat()).toHaveLength(deliveries.length);
    expect(batches.length).toBeLessThan(deliveries.length);

    // A provider's redelivery is acknowledged and stored no second time.
    const again = await Promise.all(deliveries.slice(0, 5).map(send));
    expect(again.map((a) => [a.status, a.body.accepted])).toEqual(Array(5).fill([200, 0]));
    expect(await stored()).toHaveLength(deliveries.length);
    expect((await store.triggers.get(triggerIds[0]!))!.fired).toBe(deliveries.length);
  });

  it('answers 503 to every delivery of a transaction that fails, storing none; sent again, each is stored once', async () => {
    await start();
    commitMany = async () => {
      throw new Error('disk I/O error');
    };
    const deliveries = Array.from({ length: 6 }, (_, i) => delivery(i + 1, secret));
    const failed = await Promise.all(deliveries.map(send));
    expect(failed.map((a) => a.status)).toEqual(Array(6).fill(503));
    expect(failed[0]!.body.error).toMatch(/could not be stored; send it again/);
    expect(await stored()).toEqual([]);
    expect(logs.join('')).toMatch(/delivery not stored.*disk I\/O error/);

    commitMany = (items) => store.triggers.commitMany(items);
    const retried = await Promise.all(deliveries.map(send));
    expect(retried.map((a) => [a.status, a.body.accepted])).toEqual(Array(6).fill([200, 1]));
    expect(await stored()).toHaveLength(6);
  });

  it('keeps the other deliveries of a batch when a trigger is removed meanwhile', async () => {
    await start({ triggers: 2 });
    const held = gate();
    const called = gate();
    commitMany = async (items) => {
      called.open();
      await held.opened;
      return store.triggers.commitMany(items);
    };
    const deliveries = Array.from({ length: 4 }, (_, i) => delivery(i + 1, secret));
    const sending = Promise.all(deliveries.map(send));
    await called.opened;
    await store.triggers.remove(triggerIds[1]!);
    held.open();
    const answers = await sending;
    expect(answers.map((a) => [a.status, a.body.accepted])).toEqual(Array(4).fill([200, 1]));
    expect((await stored()).sort()).toEqual(deliveries.map((d) => `${triggerIds[0]}:${d.id}`).sort());
  });

  it('commits each delivery in its own transaction when group commit is off', async () => {
    await start({ groupCommit: false });
    const deliveries = Array.from({ length: 4 }, (_, i) => delivery(i + 1, secret));
    const answers = await Promise.all(deliveries.map(send));
    expect(answers.map((a) => a.status)).toEqual(Array(4).fill(200));
    expect(batches).toEqual([]);
    expect(await stored()).toHaveLength(4);
  });
});
