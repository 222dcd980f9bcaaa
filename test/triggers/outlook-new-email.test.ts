import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { deliverEmail, expireDeltaTokens } from '../../src/sandbox/index.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { Runner } from '../../src/triggers/runner.js';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
let runner: Runner;
const DELTA = 'GET /v1.0/me/mailFolders/:folder/messages/delta';

beforeAll(async () => {
  h = await startHarness();
  runner = new Runner({ store: h.store, kinds: TRIGGER_KINDS, log: h.deps.triggers!.log, deps: h.deps, logger: createLogger({ level: 'error' }), tickMs: 20 });
  await runner.start();
});
afterAll(async () => {
  await runner.stop();
  await h.close();
});
beforeEach(() => h.sandbox.servers.outlook.reset());

const mailbox = () => h.sandbox.states.outlook;
const deliver = (subject: string, from = 'dana@acme.com', attachments?: Array<{ name: string; size: number }>) =>
  deliverEmail(mailbox(), { subject, from: { name: 'Dana Reyes', address: from }, text: `Body of ${subject}`, attachments });

/** Runs one poll of the trigger now and waits for its commit. */
async function poll(triggerId: string): Promise<void> {
  const before = (await h.store.triggers.get(triggerId))!;
  runner.pollSoon(triggerId);
  const end = Date.now() + 5_000;
  for (;;) {
    const now = (await h.store.triggers.get(triggerId))!;
    if (now.state.lastPollAt !== before.state.lastPollAt || now.errors !== before.errors) return;
    if (Date.now() > end) throw new Error('poll did not happen');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function create(config: Record<string, unknown> = {}): Promise<string> {
  const created = await h.ok('triggers_create', { kind: 'outlook.new_email', config });
  return created.trigger.id;
}

const events = async (triggerId: string) => (await h.store.events.after(0, { triggerIds: [triggerId], limit: 100 })).map((e) => e.payload);

describe('outlook.new_email', () => {
  it('sets a baseline that fires nothing for old mail, then fires once per new message', async () => {
    const id = await create();
    expect(h.sandbox.servers.outlook.requests.filter((r) => r.path.endsWith('/messages/delta'))).toHaveLength(1);
    await poll(id);
    expect(await events(id)).toEqual([]);

    const m = deliver('Quarterly numbers', 'dana@acme.com', [{ name: 'q4.xlsx', size: 2048 }]);
    await poll(id);
    const fired = await events(id);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({
      message_id: m.id,
      subject: 'Quarterly numbers',
      from: { name: 'Dana Reyes', address: 'dana@acme.com' },
      hasAttachments: true,
      attachments: [{ name: 'q4.xlsx', size: 2048 }],
      folder: 'inbox',
    });
    expect(fired[0]!.webLink).toMatch(/^https:\/\//);
    expect(fired[0]!.to).toEqual([{ name: expect.any(String), address: 'avery@contoso.example' }]);

    await poll(id);
    expect(await events(id)).toHaveLength(1);
    const t = (await h.store.triggers.get(id))!;
    expect(t.fired).toBe(1);
    // Each later poll is one request: the stored delta link.
    const polls = h.sandbox.servers.outlook.requests.filter((r) => r.path.endsWith('/messages/delta'));
    expect(polls.every((r) => r.query.has('$deltatoken') || r.query.has('$filter'))).toBe(true);
  });

  it('applies the filter locally, including from: wildcards Graph cannot search', async () => {
    const id = await create({ filter: 'from:*@acme.com AND subject:"invoice"' });
    deliver('Invoice 42', 'billing@other.example');
    deliver('Lunch?', 'dana@acme.com');
    deliver('Your INVOICE 43', 'ap@acme.com');
    await poll(id);
    expect((await events(id)).map((e) => e.subject)).toEqual(['Your INVOICE 43']);
  });

  it('skips an email with an attachment over 25 MB and says why', async () => {
    const id = await create();
    deliver('Huge scan', 'dana@acme.com', [{ name: 'scan.tiff', size: 26 * 1024 * 1024 }]);
    deliver('Small note');
    await poll(id);
    expect((await events(id)).map((e) => e.subject)).toEqual(['Small note']);
    const t = (await h.store.triggers.get(id))!;
    expect(t.skipped).toBe(1);
    expect((t.state.lastSkipped as { reason: string }).reason).toMatch(/scan\.tiff.*over the 25 MB limit/);
  });

  it('starts a new baseline after an expired delta token, losing nothing and repeating nothing', async () => {
    const id = await create();
    deliver('Before expiry');
    await poll(id);
    deliver('Arrived while the token expired');
    expireDeltaTokens(mailbox());
    await poll(id);
    await poll(id);
    expect((await events(id)).map((e) => e.subject)).toEqual(['Before expiry', 'Arrived while the token expired']);
    const t = (await h.store.triggers.get(id))!;
    expect(t.errors).toBe(0);
  });

  it('waits out a 429 with a fractional Retry-After', async () => {
    const id = await create();
    deliver('After the throttle');
    h.sandbox.servers.outlook.once(DELTA, { status: 429, headers: { 'retry-after': '0.05' }, body: { error: { code: 'TooManyRequests', message: 'Please retry again later.' } } });
    await poll(id);
    expect((await events(id)).map((e) => e.subject)).toEqual(['After the throttle']);
  });

  it('records a long throttle as an error and delivers on a later poll', async () => {
    const id = await create();
    deliver('Patience');
    h.sandbox.servers.outlook.once(DELTA, { status: 429, headers: { 'retry-after': '30' }, body: { error: { code: 'TooManyRequests', message: 'Please retry again later.' } } });
    await poll(id);
    let t = (await h.store.triggers.get(id))!;
    expect(t.errors).toBe(1);
    expect(t.lastError).toMatch(/429.*retry after 30 s/);
    await poll(id);
    expect((await events(id)).map((e) => e.subject)).toEqual(['Patience']);
    t = (await h.store.triggers.get(id))!;
    expect(t.status).toBe('active');
  });

  it('a poll that dies before its commit loses nothing and repeats nothing to a consumer that has moved on', async () => {
    const id = await create();
    deliver('Seen earlier');
    await poll(id);
    const earlier = await h.ok('events_next', { consumer: 'mover', triggers: [id], cursor: '0' });
    await h.ok('events_next', { consumer: 'mover', triggers: [id], cursor: earlier.next_cursor });
    deliver('Exactly once');
    // The poll ran but the process died before committing: the stored delta link is unchanged.
    const trigger = (await h.store.triggers.get(id))!;
    const { account, secret } = await h.store.accounts.resolve('outlook', trigger.accountId);
    const { CONNECTORS } = await import('../../src/connectors/index.js');
    const lost = await TRIGGER_KINDS.get('outlook.new_email')!.poll!.run({ trigger, account, api: CONNECTORS.outlook.api(account, secret, h.deps), now: Date.now() });
    expect(lost.events).toHaveLength(1);
    await poll(id);
    await poll(id);
    expect((await events(id)).map((e) => e.subject)).toEqual(['Seen earlier', 'Exactly once']);
    const next = await h.ok('events_next', { consumer: 'mover', triggers: [id] });
    expect(next.events.map((e: { payload: { subject: string } }) => e.payload.subject)).toEqual(['Exactly once']);
  });

  it('delivers mail sent through the sandbox-only HTTP route', async () => {
    const id = await create();
    const res = await fetch(`${h.sandbox.servers.outlook.url}/_sandbox/outlook/deliver`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subject: 'Via HTTP', from: { name: 'Lee', address: 'lee@acme.com' }, text: 'hello' }),
    });
    expect(res.status).toBe(201);
    await poll(id);
    expect((await events(id)).map((e) => e.subject)).toEqual(['Via HTTP']);
  });

  it('refuses an unknown folder at creation and stores nothing', async () => {
    const before = (await h.store.triggers.list()).length;
    const text = await h.fails('triggers_create', { kind: 'outlook.new_email', config: { folder: 'no-such-folder' } });
    expect(text).toMatch(/404/);
    expect((await h.store.triggers.list()).length).toBe(before);
  });
});
