import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventsLimits } from '../../src/events/limits.js';
import { until } from '../support/wait.js';
import { newSecret, startSubscriber, type Subscriber } from './subscriber.js';

/**
 * The per-person delivery rate: a delivery beyond it waits for the next minute instead of failing (no attempt is
 * counted), still arrives, and a refresh meanwhile says the subscription is throttled and for how long.
 */

let s: Subscriber;
// The limit's minutes run on a clock set, just before the events are committed, to 3 s short of a minute's end.
const LEAD_MS = 3_000;
let offset = 0;

beforeAll(async () => {
  s = await startSubscriber({ eventsLimits: eventsLimits({ eventsPerMinute: 1 }, () => Date.now() + offset) });
});
afterAll(() => s.close());

it('defers a delivery over SWITCHBOARD_EVENTS_MAX_PER_MINUTE to the next minute, where it arrives after one attempt', { timeout: 30_000 }, async () => {
  const secret = newSecret();
  const request = { name: 'outlook.new_email', arguments: { filter: 'subject:rate' }, delivery: { mode: 'webhook', url: s.hook('/rate'), secret } };
  const { body } = await s.call('events/subscribe', request);
  const { triggerId } = (await s.h.store.subscriptions.get(body.result.id))!;
  offset = Math.ceil(Date.now() / 60_000) * 60_000 + 60_000 - LEAD_MS - Date.now();
  const first = await s.commit(triggerId, 'first');
  const second = await s.commit(triggerId, 'second');
  await until(() => s.received('/rate').length === 1, 'the first delivery');
  const refresh = await s.call('events/subscribe', request);
  expect(refresh.body.result.deliveryStatus).toMatchObject({ active: true, throttled: true });
  expect(refresh.body.result.deliveryStatus.retryAfterMs).toBeGreaterThan(0);
  expect(refresh.body.result.deliveryStatus.retryAfterMs).toBeLessThanOrEqual(LEAD_MS);
  expect(s.received('/rate')).toHaveLength(1);

  await until(() => s.received('/rate').length === 2, 'the deferred delivery in the next minute', 10_000);
  expect(s.received('/rate').map((r) => r.headers['webhook-id'])).toEqual([`evt_${first.id}`, `evt_${second.id}`]);
  // The attempt is recorded once the receiver's answer is read, a moment after the receiver has the POST.
  const attempts = await until(async () => {
    const recorded = await s.h.store.events.attempts(second.id);
    return recorded.length ? recorded : undefined;
  }, 'the deferred delivery recorded');
  expect(attempts).toEqual([expect.objectContaining({ attempt: 1, status: 204 })]);
});
