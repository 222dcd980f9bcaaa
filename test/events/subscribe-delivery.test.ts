import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/events/cursor.js';
import { freshDatabase, type TestDatabase } from '../pg.js';
import { until } from '../support/wait.js';
import { newSecret, signedBy, startSubscriber, type Subscriber } from './subscriber.js';

/**
 * Webhook subscriptions riding on triggers: shared and released, each event one signed POST under its event id, retried
 * on failure but not on 410, stopped at expiry, replayed after a lapse from a kept cursor, swept after their grace.
 */

let s: Subscriber;

const NAME = 'outlook.new_email';

async function subscribe(path: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}, secret = newSecret()) {
  const { body } = await s.call('events/subscribe', { name: NAME, arguments: args, delivery: { mode: 'webhook', url: s.hook(path), secret }, ...extra });
  if (!body.result) throw new Error(JSON.stringify(body.error));
  return { ...(body.result as { id: string; refreshBefore: string; cursor: string; truncated: boolean; deliveryStatus?: Record<string, unknown> }), secret };
}
const unsubscribe = (path: string, args: Record<string, unknown>) => s.call('events/unsubscribe', { name: NAME, arguments: args, delivery: { mode: 'webhook', url: s.hook(path) } });
const eventsTriggers = async () => (await s.h.store.triggers.list({ kind: NAME })).filter((t) => t.origin === 'events');

describe.each(['SQLite', 'PostgreSQL'])('on %s', (adapter) => {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = adapter === 'PostgreSQL' ? await freshDatabase() : undefined;
    s = await startSubscriber({ eventsTiming: { minTtlMs: 600 } }, { databaseUrl: database?.url });
  });
  afterAll(async () => {
    await s.close();
    await database?.drop();
  });

  describe('subscriptions ride on triggers', () => {
    it('share one trigger for the same name and arguments, which the last unsubscribe removes; a triggers_create trigger is never taken or removed', async () => {
      const own = await s.h.ok('triggers_create', { kind: NAME, config: { filter: 'subject:shared' } });
      const args = { filter: 'subject:shared' };
      const a = await subscribe('/share-a', args);
      const b = await subscribe('/share-b', args);
      expect(a.id).not.toBe(b.id);
      const made = await eventsTriggers();
      expect(made).toHaveLength(1);
      expect(made[0]!.id).not.toBe(own.trigger.id);
      expect((await s.h.store.subscriptions.list()).map((x) => x.triggerId)).toEqual([made[0]!.id, made[0]!.id]);

      expect((await unsubscribe('/share-a', args)).body.result.resultType).toBe('complete');
      expect((await eventsTriggers()).map((t) => t.id)).toEqual([made[0]!.id]);
      await unsubscribe('/share-b', args);
      expect(await eventsTriggers()).toEqual([]);
      // Again: idempotent, and the trigger its maker made is still there.
      expect((await unsubscribe('/share-b', args)).body.result.resultType).toBe('complete');
      expect(await s.h.store.triggers.get(own.trigger.id)).toBeDefined();
      await s.h.ok('triggers_delete', { id: own.trigger.id });
    });
  });

  describe('webhook delivery', () => {
    it('sends each event once as a signed POST under its event id, the subscription id beside it, and the cursor after it', async () => {
      const sub = await subscribe('/deliver', { filter: 'subject:deliver' });
      expect(s.received('/deliver', 'verification')).toHaveLength(1);
      const trigger = (await s.h.store.subscriptions.get(sub.id))!.triggerId;
      const event = await s.commit(trigger, 'first');
      await until(() => s.received('/deliver').length === 1, 'the first event');
      const post = s.received('/deliver')[0]!;
      expect(post.headers['webhook-id']).toBe(`evt_${event.id}`);
      expect(post.headers['x-mcp-subscription-id']).toBe(sub.id);
      expect(post.headers['content-type']).toBe('application/json');
      expect(signedBy(post, sub.secret)).toBe(true);
      const body = JSON.parse(post.body);
      expect(body).toMatchObject({ eventId: `evt_${event.id}`, name: NAME, data: { subject: 'first' }, cursor: encodeCursor(event.id) });
      expect(body.timestamp).toMatch(/Z$/);
      await new Promise((r) => setTimeout(r, 200));
      expect(s.received('/deliver')).toHaveLength(1);

      // A refresh with a new secret: the same id, a later refreshBefore, no second challenge; both secrets sign a while.
      const refreshed = await subscribe('/deliver', { filter: 'subject:deliver' }, { ttlMs: 3_600_000 });
      expect(refreshed.id).toBe(sub.id);
      expect(Date.parse(refreshed.refreshBefore)).toBeGreaterThan(Date.parse(sub.refreshBefore));
      expect(refreshed.deliveryStatus).toMatchObject({ active: true, lastError: null });
      expect(refreshed.deliveryStatus!.lastDeliveryAt).toMatch(/Z$/);
      expect(s.received('/deliver', 'verification')).toHaveLength(1);
      await s.commit(trigger, 'second');
      await until(() => s.received('/deliver').length === 2, 'the second event');
      const second = s.received('/deliver')[1]!;
      expect(second.headers['webhook-signature']!.split(' ')).toHaveLength(2);
      expect(signedBy(second, refreshed.secret) && signedBy(second, sub.secret)).toBe(true);
      await unsubscribe('/deliver', { filter: 'subject:deliver' });
      await s.commit(trigger, 'after').catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
      expect(s.received('/deliver')).toHaveLength(2);
    });

    it('tries a 503 again under the same webhook-id with a fresh timestamp, and a 410 only once', { timeout: 40_000 }, async () => {
      s.eventAnswers.set('/flaky', (n) => (n === 1 ? 503 : 204));
      s.eventAnswers.set('/gone', () => 410);
      const flaky = await subscribe('/flaky', { filter: 'subject:retry' });
      await subscribe('/gone', { filter: 'subject:retry' });
      const trigger = (await s.h.store.subscriptions.get(flaky.id))!.triggerId;
      const event = await s.commit(trigger, 'retry me');
      await until(() => s.received('/flaky').length === 2, 'the retry after 503', 20_000);
      const [first, again] = s.received('/flaky');
      expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
      expect(again!.headers['webhook-id']).toBe(`evt_${event.id}`);
      expect(Number(again!.headers['webhook-timestamp'])).toBeGreaterThan(Number(first!.headers['webhook-timestamp']));
      expect(again!.headers['webhook-signature']).not.toBe(first!.headers['webhook-signature']);
      expect(signedBy(again!, flaky.secret)).toBe(true);
      // The success after the 503 clears the failure it counted.
      await until(async () => (await s.h.store.subscriptions.get(flaky.id))?.failedSince === null, 'the failure cleared by the success');
      expect(s.received('/gone')).toHaveLength(1);
      const status = (await subscribe('/gone', { filter: 'subject:retry' })).deliveryStatus;
      expect(status).toMatchObject({ active: true, lastError: 'http_4xx' });
      await unsubscribe('/flaky', { filter: 'subject:retry' });
      await unsubscribe('/gone', { filter: 'subject:retry' });
    });
  });

  describe('cursors and replay', () => {
    it('delivers nothing after refreshBefore; a refresh with the kept cursor replays what was missed', async () => {
      const args = { filter: 'subject:lapse' };
      const sub = await subscribe('/lapse', args, { ttlMs: 600 });
      const trigger = (await s.h.store.subscriptions.get(sub.id))!.triggerId;
      await new Promise((r) => setTimeout(r, 700));
      const missed = await s.commit(trigger, 'while lapsed');
      await new Promise((r) => setTimeout(r, 200));
      expect(s.received('/lapse')).toHaveLength(0);

      const back = await subscribe('/lapse', args, { cursor: sub.cursor, ttlMs: 600_000 });
      expect(back).toMatchObject({ id: sub.id, truncated: false });
      await until(() => s.received('/lapse').length === 1, 'the replayed event');
      expect(s.received('/lapse')[0]!.headers['webhook-id']).toBe(`evt_${missed.id}`);
      await until(async () => (await s.h.store.subscriptions.watermark(sub.id)) >= missed.id, 'the watermark past the replayed event');
      // On a live subscription a cursor is a no-op: nothing is sent again.
      await subscribe('/lapse', args, { cursor: sub.cursor });
      await new Promise((r) => setTimeout(r, 200));
      expect(s.received('/lapse')).toHaveLength(1);
      await unsubscribe('/lapse', args);
    });

    it('says truncated when maxAgeMs cuts the replay, or the cursor is from before the trigger', async () => {
      const args = { filter: 'subject:cut' };
      const sub = await subscribe('/cut', args, { ttlMs: 600 });
      const trigger = (await s.h.store.subscriptions.get(sub.id))!.triggerId;
      await new Promise((r) => setTimeout(r, 700));
      await s.commit(trigger, 'old news');
      await new Promise((r) => setTimeout(r, 100));
      const cut = await subscribe('/cut', args, { cursor: sub.cursor, maxAgeMs: 50 });
      expect(cut.truncated).toBe(true);
      await new Promise((r) => setTimeout(r, 200));
      expect(s.received('/cut')).toHaveLength(0);
      await unsubscribe('/cut', args);

      const early = await subscribe('/early', { filter: 'subject:early' }, { cursor: encodeCursor(0) });
      expect(early.truncated).toBe(true);
      await unsubscribe('/early', { filter: 'subject:early' });
    });

    it('says truncated when the cursor is older than what retention kept', async () => {
      const args = { filter: 'subject:pruned' };
      const sub = await subscribe('/pruned', args, { ttlMs: 600 });
      const trigger = (await s.h.store.subscriptions.get(sub.id))!.triggerId;
      const event = await s.commit(trigger, 'soon pruned');
      await until(async () => (await s.h.store.subscriptions.watermark(sub.id)) >= event.id, 'the delivery recorded');
      await new Promise((r) => setTimeout(r, 700));
      expect(await s.h.store.events.prune(new Date(Date.now() + 1_000).toISOString())).toBeGreaterThan(0);
      const back = await subscribe('/pruned', args, { cursor: sub.cursor });
      expect(back.truncated).toBe(true);
      await unsubscribe('/pruned', args);
    });

    it('sweeps a subscription expired past its grace, and the trigger made for it', async () => {
      const sub = await subscribe('/sweep', { filter: 'subject:sweep' }, { ttlMs: 600 });
      const trigger = (await s.h.store.subscriptions.get(sub.id))!.triggerId;
      await until(async () => (await s.h.store.subscriptions.get(sub.id)) === undefined, 'the sweep', 5_000);
      await until(async () => (await s.h.store.triggers.get(trigger)) === undefined, 'the trigger removed', 5_000);
    });
  });
});
