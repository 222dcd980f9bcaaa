import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSecret, startSubscriber, type Subscriber } from './subscriber.js';

/** Every refusal of events/subscribe, raw JSON-RPC over HTTP, with its code in both numberings and its typed data. */

let s: Subscriber;
let sepEndpoint: string;
let readOnlyEndpoint: string;

beforeAll(async () => {
  s = await startSubscriber({ eventsMaxSubscriptions: 3 });
  sepEndpoint = await s.listen({ eventsErrorCodes: 'sep' });
  readOnlyEndpoint = await s.listen({ readOnly: true });
});
afterAll(() => s.close());

const NAME = 'outlook.new_email';
const params = (over: { name?: string; arguments?: unknown; url?: string; secret?: unknown; cursor?: unknown; ttlMs?: unknown } = {}) => ({
  name: over.name ?? NAME,
  arguments: over.arguments ?? { filter: 'from:*@acme.com' },
  delivery: { mode: 'webhook', url: over.url ?? s.hook('/ok'), secret: 'secret' in over ? over.secret : newSecret() },
  ...('cursor' in over ? { cursor: over.cursor } : {}),
  ...('ttlMs' in over ? { ttlMs: over.ttlMs } : {}),
});

async function refused(p: Record<string, unknown>, at?: string) {
  const { body } = await s.call('events/subscribe', p, at);
  expect(body.result, JSON.stringify(body.result)).toBeUndefined();
  return body.error!;
}

describe('events/subscribe refuses', () => {
  it('an unknown name with NotFound {kind: "event"}: -32011 by default, -32023 in the SEP numbering', async () => {
    const sketch = await refused(params({ name: 'outlook.new_fax' }));
    expect(sketch).toMatchObject({ code: -32011, data: { kind: 'event' } });
    expect(sketch.message).toMatch(/No event type "outlook\.new_fax"; events\/list names the 31 types/);
    expect(await refused(params({ name: 'outlook.new_fax' }), sepEndpoint)).toMatchObject({ code: -32023, data: { kind: 'event' } });
  });

  it('a read-only caller with Forbidden, since a subscription makes a trigger', async () => {
    const error = await refused(params(), readOnlyEndpoint);
    expect(error).toMatchObject({ code: -32012, data: { reason: 'read_only' } });
    expect(error.message).toMatch(/may change nothing/);
  });

  it('an account that is not connected with Forbidden naming the account to connect', async () => {
    const error = await refused(params({ arguments: { account: 'nobody' } }));
    expect(error).toMatchObject({ code: -32012, data: { reason: 'no_account' } });
    expect(error.message).toMatch(/No usable .* account for outlook\.new_email: .*nobody/);
  });

  it('arguments against the input schema with -32602 naming the argument', async () => {
    const unknownField = await refused(params({ arguments: { folder: 'inbox', colour: 'red' } }));
    expect(unknownField.code).toBe(-32602);
    expect(unknownField.data.field).toMatch(/^arguments/);
    expect(unknownField.message).toMatch(/colour/);
    const badFilter = await refused(params({ arguments: { filter: 'nonsense:(' } }));
    expect(badFilter).toMatchObject({ code: -32602, data: { field: 'arguments.filter' } });
  });

  it('a callback that is neither https nor loopback http, or not a URL, with -32602 naming delivery.url', async () => {
    for (const url of ['http://example.com/hook', 'ftp://127.0.0.1/hook', 'not a url', 'https://169.254.169.254/latest']) {
      const error = await refused(params({ url }));
      expect(error, url).toMatchObject({ code: -32602, data: { field: 'delivery.url' } });
    }
    expect((await refused(params({ url: 'http://example.com/hook' }))).message).toMatch(/use https/);
  });

  it('a secret that is not whsec_ and padded base64 of 24 to 64 bytes, with -32602 naming delivery.secret and never echoing it', async () => {
    const urlsafe = 'whsec_' + Buffer.from(Array.from({ length: 32 }, (_, i) => 250 + (i % 6))).toString('base64url');
    for (const secret of ['plain-secret', 'whsec_' + randomBytes(16).toString('base64'), newSecret(65), urlsafe, undefined]) {
      const error = await refused(params({ secret }));
      expect(error, String(secret)).toMatchObject({ code: -32602, data: { field: 'delivery.secret' } });
      if (secret?.startsWith('whsec_')) expect(error.message).not.toContain(secret.slice(6));
    }
  });

  it('a cursor this server did not give with -32602 naming cursor, and a ttlMs that is not a duration', async () => {
    expect(await refused(params({ cursor: 'c_001' }))).toMatchObject({ code: -32602, data: { field: 'cursor' } });
    expect(await refused(params({ ttlMs: -5 }))).toMatchObject({ code: -32602, data: { field: 'ttlMs' } });
  });

  it('a callback that answers the challenge wrongly with CallbackEndpointError {reason: challenge_failed}: -32015, or -32027 in the SEP numbering', async () => {
    s.challengeAnswers.set('/wrong', () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"challenge":"not-it"}' }));
    s.challengeAnswers.set('/down', () => ({ status: 503 }));
    const wrong = await refused(params({ url: s.hook('/wrong') }));
    expect(wrong).toMatchObject({ code: -32015, data: { reason: 'challenge_failed' } });
    expect(await refused(params({ url: s.hook('/wrong') }), sepEndpoint)).toMatchObject({ code: -32027, data: { reason: 'challenge_failed' } });
    expect(await refused(params({ url: s.hook('/down') }))).toMatchObject({ code: -32015, data: { reason: 'http_5xx' } });
    // The challenge was signed and named the subscription it was for; nothing was kept.
    const challenge = s.received('/wrong', 'verification')[0]!;
    expect(challenge.headers['webhook-id']).toMatch(/^msg_verification_/);
    expect(challenge.headers['x-mcp-subscription-id']).toMatch(/^sub_[0-9a-f]{64}$/);
    expect(await s.h.store.subscriptions.list()).toEqual([]);
  });

  it('a subscription over the per-person cap with ResourceExhausted {limit, max}, while a refresh of a held one still passes', async () => {
    const held = [];
    for (const n of [1, 2, 3]) {
      const { body } = await s.call('events/subscribe', params({ url: s.hook(`/cap?n=${n}`) }));
      expect(body.result?.id, JSON.stringify(body.error)).toBeDefined();
      held.push(body.result);
    }
    const over = await refused(params({ url: s.hook('/cap?n=4') }));
    expect(over).toMatchObject({ code: -32013, data: { limit: 'subscriptions', max: 3 } });
    expect(over.message).toMatch(/SWITCHBOARD_EVENTS_MAX_SUBSCRIPTIONS/);
    const refresh = await s.call('events/subscribe', params({ url: s.hook('/cap?n=2') }));
    expect(refresh.body.result.id).toBe(held[1].id);
    for (const n of [1, 2, 3]) {
      const gone = await s.call('events/unsubscribe', { name: NAME, arguments: { filter: 'from:*@acme.com' }, delivery: { mode: 'webhook', url: s.hook(`/cap?n=${n}`) } });
      expect(gone.body.result).toMatchObject({ resultType: 'complete' });
    }
    expect(await s.h.store.subscriptions.list()).toEqual([]);
  });
});
