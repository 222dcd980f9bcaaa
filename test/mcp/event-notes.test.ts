import { describe, expect, it } from 'vitest';
import { framedMessages } from '../../src/mcp/event-store.js';
import { EVENT_NOTIFICATION, eventNote, eventUpdate, noticesFor } from '../../src/mcp/event-notes.js';
import { eventsUri } from '../../src/contracts/triggers.js';
import type { TriggerEvent } from '../../src/store/types.js';

const event = (id: number, triggerId: string, summary: string): TriggerEvent => ({
  id,
  triggerId,
  kind: 'github.new_issue',
  dedupeKey: `k${id}`,
  occurredAt: '2026-11-27T04:00:00.000Z',
  receivedAt: '2026-11-27T04:00:01.000Z',
  summary,
  payload: null,
});

describe('event notices framed once per batch', () => {
  const batch = [event(7, 'trg_a', 'Issue "quoted" \\ with\nnewline and ✓'), event(8, 'trg_b', 'Second'), event(9, 'trg_a', '\u2028 separators \u2029')];

  it('are the JSON of the notification and resource update built as objects', () => {
    const sent = framedMessages(noticesFor(batch, new Set([eventsUri('trg_a'), eventsUri('trg_b')])).sse).map(([, message]) => message);
    const expected = batch.flatMap((e) => {
      const note = eventNote(e);
      return [
        { jsonrpc: '2.0', method: EVENT_NOTIFICATION, params: note },
        { jsonrpc: '2.0', method: 'notifications/resources/updated', params: eventUpdate(note) },
      ];
    });
    expect(sent).toEqual(expected);
  });

  it('carry the same ids to every session, each sent the updates of the resources it subscribed to', () => {
    const all = framedMessages(noticesFor(batch, new Set([eventsUri('trg_a'), eventsUri('trg_b')])).sse);
    const onlyA = framedMessages(noticesFor(batch, new Set([eventsUri('trg_a')])).sse);
    const none = noticesFor(batch, new Set());
    const idOf = new Map(all.map(([seq, message]) => [JSON.stringify(message), seq]));
    expect(new Set(idOf.values()).size).toBe(6);
    for (const [seq, message] of onlyA) expect(idOf.get(JSON.stringify(message))).toBe(seq);
    expect(onlyA.map(([, m]) => m.method)).toEqual([EVENT_NOTIFICATION, 'notifications/resources/updated', EVENT_NOTIFICATION, EVENT_NOTIFICATION, 'notifications/resources/updated']);
    expect(framedMessages(none.sse).map(([, m]) => ('params' in m ? m.params?.eventId : undefined))).toEqual(['7', '8', '9']);
    expect(none.count).toBe(3);
    expect(none.last).toBe(Math.max(...framedMessages(none.sse).map(([seq]) => seq)));
    // The same selection for another session is the same bytes, framed once.
    expect(noticesFor(batch, new Set([eventsUri('trg_a')]))).toBe(noticesFor(batch, new Set([eventsUri('trg_a'), 'switchboard://triggers/other/events'])));
  });
});
