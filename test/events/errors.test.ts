import { describe, expect, it } from 'vitest';
import { EVENTS_ERROR_CODES, EventsError, eventsErrors } from '../../src/events/errors.js';
import { eventsRequestError } from '../../src/mcp/events.js';
import { RequestError } from '../../src/mcp/requests.js';
import { InputError } from '../../src/errors.js';

describe('the Events error codes', () => {
  it('follow the design sketch (what ChatGPT reads) by default, and the SEP draft when asked', () => {
    const sketch = eventsErrors();
    const sep = eventsErrors('sep');
    const cases = [
      ['notFound', { kind: 'event' }, -32011, -32023, 'NotFound'],
      ['forbidden', { reason: 'grant_revoked' }, -32012, -32024, 'Forbidden'],
      ['resourceExhausted', { limit: 'subscriptions', max: 100 }, -32013, -32025, 'ResourceExhausted'],
      ['unsupported', { feature: 'delivery.mode', value: 'carrier-pigeon' }, -32014, -32026, 'Unsupported'],
      ['callbackEndpointError', { reason: 'challenge_failed' }, -32015, -32027, 'CallbackEndpointError'],
      ['invalidParams', { field: 'arguments.repo' }, -32602, -32602, 'InvalidParams'],
    ] as const;
    for (const [make, data, sketchCode, sepCode, name] of cases) {
      const a = (sketch[make] as (m: string, d: unknown) => EventsError)('message', data);
      const b = (sep[make] as (m: string, d: unknown) => EventsError)('message', data);
      expect([a.name, a.code, a.data], make).toEqual([name, sketchCode, data]);
      expect([b.name, b.code, b.data], make).toEqual([name, sepCode, data]);
      expect(a).toBeInstanceOf(Error);
    }
    // The SEP's numbers sit in the range 2026-07-28 reserves for the specification; the sketch's in the implementation's.
    for (const code of Object.values(EVENTS_ERROR_CODES.sep)) expect(code === -32602 || (code <= -32020 && code >= -32099)).toBe(true);
    for (const code of Object.values(EVENTS_ERROR_CODES.sketch)) expect(code === -32602 || (code <= -32000 && code >= -32019)).toBe(true);
  });

  it('become JSON-RPC errors with their code and typed data; a bad input becomes -32602 naming the field', () => {
    const sent = eventsRequestError(new EventsError('ResourceExhausted', 'At most 100 subscriptions per person; unsubscribe from one first.', { limit: 'subscriptions', max: 100 }, 'sep'));
    expect(sent).toBeInstanceOf(RequestError);
    expect(sent).toMatchObject({ code: -32025, message: 'At most 100 subscriptions per person; unsubscribe from one first.', data: { limit: 'subscriptions', max: 100 } });
    expect(eventsRequestError(new InputError('"delivery.url" must be https.', 'delivery.url'))).toMatchObject({ code: -32602, data: { field: 'delivery.url' } });
    const other = new Error('boom');
    expect(eventsRequestError(other)).toBe(other);
  });
});
