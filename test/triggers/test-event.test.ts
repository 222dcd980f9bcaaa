import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { sendTestEvent } from '../../src/triggers/test-event.js';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
let triggerId: string;

const EventNotification = z.object({
  method: z.literal('notifications/switchboard/event'),
  params: z.object({ eventId: z.string(), triggerId: z.string(), kind: z.string(), occurredAt: z.string(), summary: z.string() }),
});

beforeAll(async () => {
  h = await startHarness();
  triggerId = (await h.ok('triggers_create', { kind: 'outlook.new_email', config: {} })).trigger.id;
});
afterAll(() => h.close());

describe('sendTestEvent', () => {
  it('commits an event marked as a test, which an MCP subscriber is notified of like any other', async () => {
    const notified = new Promise<z.infer<typeof EventNotification>['params']>((resolve) => h.client.setNotificationHandler(EventNotification, (n) => resolve(n.params)));
    await h.client.subscribeResource({ uri: `switchboard://triggers/${triggerId}/events` });
    const before = (await h.store.triggers.get(triggerId))!;

    const event = await sendTestEvent(h.store, h.deps.triggers!.log, triggerId, 'the test suite');

    expect(event.dedupeKey).toMatch(/^test:/);
    expect(event.payload).toMatchObject({ test: true, trigger_id: triggerId, kind: 'outlook.new_email' });
    expect(event.summary).toBe('Test event for outlook.new_email, sent from the test suite; nothing happened at the provider.');
    expect((await notified).eventId).toBe(String(event.id));
    expect((await h.store.triggers.get(triggerId))!.fired).toBe(before.fired + 1);
    // Each one is new: two test events are two events.
    const again = await sendTestEvent(h.store, h.deps.triggers!.log, triggerId, 'the test suite');
    expect(again.id).toBeGreaterThan(event.id);
  });

  it('refuses a trigger that does not exist, naming the id', async () => {
    const attempt = sendTestEvent(h.store, h.deps.triggers!.log, 'trg_missing', 'the test suite');
    await expect(attempt).rejects.toBeInstanceOf(InputError);
    await expect(attempt).rejects.toMatchObject({ field: 'id', message: 'No trigger "trg_missing"; it may have been removed.' });
  });
});
