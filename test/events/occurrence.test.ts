import { describe, expect, it } from 'vitest';
import { controlBody, MAX_BODY_BYTES, occurrenceBody, occurrenceId, TRUNCATED_META_KEY } from '../../src/events/occurrence.js';
import type { TriggerEvent } from '../../src/store/types.js';

const event = (payload: Record<string, unknown>, id = 9): TriggerEvent => ({
  id,
  triggerId: 'trg_7',
  kind: 'outlook.new_email',
  dedupeKey: `d-${id}`,
  occurredAt: '2026-10-10T08:30:00-04:00',
  receivedAt: '2026-10-10T12:30:01.000Z',
  summary: 'Mail',
  payload,
});

/** The shape of a JSON value: every key and the type of every leaf, without the strings' contents. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeOf(v)]));
  return value === null ? 'null' : typeof value;
}

describe('occurrenceBody', () => {
  it('is the EventOccurrence with the log id as eventId, a zoned timestamp and no top-level type', () => {
    const sent = occurrenceBody(event({ subject: 'Hi', type: 'mail' }), { name: 'outlook.new_email' }, null);
    expect(sent.webhookId).toBe('evt_9');
    expect(occurrenceId({ id: 9 })).toBe('evt_9');
    expect(sent.body).toBe(
      '{"eventId":"evt_9","name":"outlook.new_email","timestamp":"2026-10-10T12:30:00.000Z","data":{"subject":"Hi","type":"mail"},"cursor":null}',
    );
    expect(Object.keys(JSON.parse(sent.body))).not.toContain('type');
  });

  it('gives the same id and bytes on every call (retries, replay, another instance)', () => {
    const e = event({ subject: 'Hi' }, 1234);
    expect(occurrenceBody(e, { name: 'outlook.new_email' }, 'c')).toEqual(occurrenceBody(e, { name: 'outlook.new_email' }, 'c'));
  });

  it('cuts the longest strings of an event over 256 KiB, keeping every field and type, and says how to read the rest', () => {
    const payload = {
      id: 'AAMk',
      subject: 'Quarterly numbers',
      from: { name: 'Ada', address: 'ada@example.com' },
      body: 'é'.repeat(200_000),
      attachments: [{ name: 'a.txt', preview: 'p'.repeat(150_000) }, { name: 'b.txt', preview: 'short' }],
      size: 12,
      flagged: false,
      category: null,
    };
    const sent = occurrenceBody(event(payload), { name: 'outlook.new_email' }, 'cur');
    const bytes = Buffer.byteLength(sent.body);
    expect(bytes).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(bytes).toBeGreaterThan(MAX_BODY_BYTES - 1_024);
    const parsed = JSON.parse(sent.body);
    expect(shapeOf(parsed.data)).toEqual(shapeOf(payload));
    expect(parsed.data.subject).toBe('Quarterly numbers');
    expect(parsed.data.from).toEqual(payload.from);
    expect(parsed.data.body.endsWith('…')).toBe(true);
    expect(parsed._meta[TRUNCATED_META_KEY]).toEqual({
      fields: ['/body', '/attachments/0/preview'],
      readWith: {
        tool: 'events_next',
        arguments: { triggers: ['trg_7'], cursor: '8', limit: 1 },
        resource: 'switchboard://triggers/trg_7/events',
      },
    });
    expect(Object.keys(parsed)).toEqual(['eventId', 'name', 'timestamp', 'data', 'cursor', '_meta']);
  });

  it('never splits a character in two when it cuts', () => {
    const sent = occurrenceBody(event({ text: '😀'.repeat(200_000) }), { name: 'outlook.new_email' }, null);
    const text = JSON.parse(sent.body).data.text as string;
    expect(text.endsWith('…')).toBe(true);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(text)).toBe(false);
  });

  it('keeps only the top-level scalars when cutting strings cannot make it fit', () => {
    const payload = { number: 3, title: 't'.repeat(300_000), merged: true, commits: Array.from({ length: 60_000 }, (_, i) => i), head: { sha: 'abc' } };
    const sent = occurrenceBody(event(payload), { name: 'github.new_push' }, null);
    expect(Buffer.byteLength(sent.body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    const parsed = JSON.parse(sent.body);
    expect(Object.keys(parsed.data).sort()).toEqual(['merged', 'number', 'title']);
    expect(parsed.data.title.length).toBeGreaterThan(100_000);
    expect(parsed._meta[TRUNCATED_META_KEY].fields).toEqual(['/commits', '/head', '/title']);
  });

  it('lists at most 100 cut fields and counts the rest', () => {
    const payload = { items: Array.from({ length: 300 }, () => 'z'.repeat(1_000)) };
    const note = JSON.parse(occurrenceBody(event(payload), { name: 'x.y' }, null).body)._meta[TRUNCATED_META_KEY];
    expect(note.fields).toHaveLength(100);
    expect(note.fields[0]).toBe('/items/0');
    expect(note.unlistedFields).toBeGreaterThan(0);
    expect(note.fields.length + note.unlistedFields).toBeLessThanOrEqual(300);
  });

  it('escapes ~ and / in the pointers it lists', () => {
    const note = JSON.parse(occurrenceBody(event({ 'a/b~c': 'q'.repeat(300_000) }), { name: 'x.y' }, null).body)._meta[TRUNCATED_META_KEY];
    expect(note.fields).toEqual(['/a~1b~0c']);
  });
});

describe('controlBody', () => {
  it('makes gap and terminated envelopes under fresh msg_<type>_ ids', () => {
    const gap = controlBody('gap', 'v1.77');
    expect(JSON.parse(gap.body)).toEqual({ type: 'gap', cursor: 'v1.77' });
    expect(gap.webhookId).toMatch(/^msg_gap_[0-9a-f]{24}$/);
    expect(controlBody('gap', 'v1.77').webhookId).not.toBe(gap.webhookId);
    const ended = controlBody('terminated', { code: -32011, message: 'Access revoked', data: { reason: 'grant_revoked' } });
    expect(ended.webhookId).toMatch(/^msg_terminated_[0-9a-f]{24}$/);
    expect(JSON.parse(ended.body)).toEqual({ type: 'terminated', error: { code: -32011, message: 'Access revoked', data: { reason: 'grant_revoked' } } });
    expect(JSON.parse(controlBody('terminated', { code: -32012, message: 'Gone' }).body)).toEqual({ type: 'terminated', error: { code: -32012, message: 'Gone' } });
  });
});
