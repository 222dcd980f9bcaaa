import { randomUUID } from 'node:crypto';
import { InputError } from '../errors.js';
import type { Store, TriggerEvent } from '../store/types.js';
import type { EventFeed } from '../contracts/triggers.js';

/** Dedupe keys of test events start with this, so any reader can tell them from real ones without the payload. */
export const TEST_EVENT_KEY_PREFIX = 'test:';

/**
 * Commits a synthetic event for a trigger through the normal event log, so MCP clients, `events tail` and
 * forwarding receive it like any other; its payload says `test: true` and its summary says it is a test.
 */
export async function sendTestEvent(store: Store, log: EventFeed, triggerId: string, from: string): Promise<TriggerEvent> {
  const trigger = await store.triggers.get(triggerId);
  if (!trigger) throw new InputError(`No trigger "${triggerId}"; it may have been removed.`, 'id');
  const sentAt = new Date().toISOString();
  const [event] = await store.triggers.commit(trigger.id, {
    events: [
      {
        dedupeKey: `${TEST_EVENT_KEY_PREFIX}${randomUUID()}`,
        occurredAt: sentAt,
        summary: `Test event for ${trigger.kind}, sent from ${from}; nothing happened at the provider.`,
        payload: { test: true, trigger_id: trigger.id, kind: trigger.kind, sent_at: sentAt, note: `A test event sent from ${from}.` },
      },
    ],
  });
  if (!event) throw new InputError(`Trigger "${triggerId}" was removed while the test event was sent.`, 'id');
  await log.poke();
  return event;
}
