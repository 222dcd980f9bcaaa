import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectAccount } from '../../src/accounts/commands.js';
import type { PushTiming } from '../../src/contracts/triggers.js';
import { createLogger } from '../../src/log.js';
import {
  SANDBOX_TOKENS,
  deliverEmail,
  dropNotifications,
  grantSubscriptionsFor,
  liveSubscriptions,
  sendLifecycle,
  settleNotifications,
  slowDelta,
  subscriptionSide,
  type SbxSubscription,
} from '../../src/sandbox/index.js';
import { formatTriggers } from '../../src/triggers/commands.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { Runner } from '../../src/triggers/runner.js';
import { startHarness, type Harness } from '../harness.js';
import { freshDatabase, type TestDatabase } from '../pg.js';
import { until } from '../support/wait.js';

let h: Harness;
/** The servers' runners: the last one started is the one the tests ask for polls. */
const runners: Runner[] = [];

beforeEach(() => h.sandbox.servers.outlook.reset());
afterEach(async () => {
  for (const r of runners.splice(0)) await r.stop();
  for (const t of await h.store.triggers.list()) await h.ok('triggers_delete', { id: t.id });
  subscriptionSide(h.sandbox.states.outlook).subscriptions.clear();
});

/** The runner of a server started with --public-url (the harness's listener), or without one. */
async function serve(options: { publicUrl?: boolean; timing?: Partial<PushTiming>; claimTtlMs?: number } = {}): Promise<Runner> {
  const runner = new Runner({
    store: h.store,
    kinds: TRIGGER_KINDS,
    log: h.deps.triggers!.log,
    deps: h.deps,
    logger: createLogger({ level: 'error' }),
    tickMs: 20,
    publicUrl: options.publicUrl === false ? undefined : h.listenerUrl,
    pushTiming: options.timing,
    claimTtlMs: options.claimTtlMs,
  });
  runners.push(runner);
  await runner.start();
  return runner;
}

/** The process dies: its runner stops ticking, releasing nothing. */
function kill(runner: Runner): void {
  clearInterval((runner as unknown as { timer: NodeJS.Timeout }).timer);
  (runner as unknown as { timer: undefined }).timer = undefined;
}

const listed = async (id: string) => ((await h.ok('triggers_list', {})).triggers as Array<Record<string, any>>).find((t) => t.id === id)!;
const subscriptionOf = (id: string): SbxSubscription | undefined => liveSubscriptions(h.sandbox.states.outlook).find((s) => s.notificationUrl.endsWith(`/webhooks/outlook/${id}`));
const subjects = async (id: string) => (await h.store.events.after(0, { triggerIds: [id], limit: 100 })).map((e) => e.payload.subject);
const deliver = (subject: string) => deliverEmail(h.sandbox.states.outlook, { subject, from: { name: 'Dana Reyes', address: 'dana@acme.com' }, text: `Body of ${subject}` });
const graphRequests = (method: string, path: RegExp) => h.sandbox.servers.outlook.requests.filter((r) => r.method === method && path.test(r.path));

async function create(config: Record<string, unknown> = {}): Promise<{ id: string; next: string }> {
  const created = await h.ok('triggers_create', { kind: 'outlook.new_email', config });
  return { id: created.trigger.id, next: created.next };
}

/** Creates a trigger and waits until the runner has subscribed it to Graph's notifications. */
async function pushed(config: Record<string, unknown> = {}): Promise<{ id: string; subscription: SbxSubscription }> {
  const { id } = await create(config);
  await until(async () => (await listed(id)).mode === 'push', 'the trigger to be pushed', 20_000);
  return { id, subscription: subscriptionOf(id)! };
}

/** Runs one poll of the trigger now and waits for its commit. */
async function poll(triggerId: string): Promise<void> {
  const before = (await h.store.triggers.get(triggerId))!;
  runners.at(-1)!.pollSoon(triggerId);
  await until(async () => {
    const now = (await h.store.triggers.get(triggerId))!;
    return now.state.lastPollAt !== before.state.lastPollAt || now.errors !== before.errors;
  }, 'a poll', 20_000);
}

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe.each(['sqlite', 'postgres'])('outlook.new_email with Graph change notifications, store on %s', (adapter) => {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = adapter === 'postgres' ? await freshDatabase() : undefined;
    h = await startHarness({ listen: true, databaseUrl: database?.url });
  });
  afterAll(async () => {
    await h.close();
    await database?.drop();
  });

  it('subscribes at its first poll after answering the handshake on both URLs; a new email is one event within seconds', async () => {
    await serve();
    const { id, next } = await create();
    expect(next).toMatch(/subscribes to Graph change notifications.* triggers_list shows its mode \(push or poll\) and why\./);
    await until(async () => (await listed(id)).mode === 'push', 'the trigger to be pushed', 20_000);
    const sub = subscriptionOf(id)!;
    expect(sub).toMatchObject({
      resource: "me/mailFolders('inbox')/messages",
      changeType: 'created',
      notificationUrl: `${h.listenerUrl}/webhooks/outlook/${id}`,
      lifecycleNotificationUrl: `${h.listenerUrl}/webhooks/outlook/${id}/lifecycle`,
    });
    expect(sub.posts.filter((p) => p.kind === 'validation').map((p) => p.status)).toEqual([200, 200]);
    const { clientState } = await h.store.triggers.secrets(id);
    expect(sub.clientState).toBe(clientState);
    expect(clientState!.length).toBeGreaterThanOrEqual(32);
    expect(Date.parse(sub.expirationDateTime)).toBeLessThan(Date.now() + 4_230 * 60_000);
    const shown = await listed(id);
    expect(JSON.stringify(shown)).not.toContain(clientState);
    expect(shown.mode_reason).toMatch(new RegExp(`subscription ${sub.id} until .* delta poll every 900 s`));
    expect(shown.refused_notifications).toBe(0);

    deliver('Pushed');
    await until(async () => (await subjects(id)).length > 0, 'the event', 20_000);
    await settleNotifications(h.sandbox.states.outlook);
    expect(sub.posts.filter((p) => p.kind === 'change').map((p) => p.status)).toEqual([202]);
    // Notified and pulled again by delta: still one event.
    await poll(id);
    expect(await subjects(id)).toEqual(['Pushed']);
    expect((await h.store.triggers.get(id))!.fired).toBe(1);
  });

  it('refuses and counts a notification with the wrong clientState; refuses unknown triggers and bodies that are not notifications', async () => {
    await serve();
    const { id, subscription } = await pushed();
    const url = subscription.notificationUrl;
    const forged = { value: [{ subscriptionId: subscription.id, changeType: 'created', clientState: 'guessed', resource: 'Users/x/Messages/y' }] };
    expect((await post(url, forged)).status).toBe(401);
    expect((await post(`${url}/lifecycle`, { value: [{ subscriptionId: subscription.id, lifecycleEvent: 'subscriptionRemoved' }] })).status).toBe(401);
    expect((await listed(id)).refused_notifications).toBe(2);
    expect(formatTriggers([await listed(id)])).toMatch(new RegExp(`^${id}: 2 notifications refused \\(wrong clientState\\)\\.$`, 'm'));
    expect((await h.store.triggers.get(id))!.providerRefs.lifecycle).toBeUndefined();
    expect((await post(url, { value: 'nope' })).status).toBe(400);
    expect((await post(url.replace(id, 'trg_00000000000000aa'), forged)).status).toBe(404);
    expect((await fetch(`${url.replace(id, 'trg_00000000000000aa')}?validationToken=x`, { method: 'POST' })).status).toBe(404);
    const echoed = await fetch(`${url}?validationToken=${encodeURIComponent('a b+c')}`, { method: 'POST' });
    expect([echoed.status, echoed.headers.get('content-type'), await echoed.text()]).toEqual([200, 'text/plain; charset=utf-8', 'a b+c']);
  });

  it('delivers an email whose notification was dropped at the next backstop poll', async () => {
    await serve();
    const { id, subscription } = await pushed({ backstop_interval_seconds: 10 });
    dropNotifications(h.sandbox.states.outlook);
    const m = deliver('Dropped on the way');
    expect(subscription.posts.find((p) => p.about === m.id)?.status).toBeNull();
    await until(async () => (await subjects(id)).length > 0, 'the backstop poll', 30_000);
    expect(await subjects(id)).toEqual(['Dropped on the way']);
  });

  it('renews the subscription before it expires, on the trigger\'s own poll', async () => {
    await serve({ timing: { lifetimeMs: 6_000, renewBeforeMs: 4_000 } });
    const { id, subscription } = await pushed();
    const firstExpiry = subscription.expirationDateTime;
    await until(() => graphRequests('PATCH', new RegExp(`/subscriptions/${subscription.id}$`)).length > 0, 'a renewal', 20_000);
    await until(() => Date.parse(subscription.expirationDateTime) > Date.parse(firstExpiry), 'the new expiry', 20_000);
    // Renewed in time: the same subscription, never made anew.
    expect(graphRequests('POST', /\/subscriptions$/)).toHaveLength(1);
    expect(subscriptionOf(id)?.id).toBe(subscription.id);
    deliver('After the renewal');
    await until(async () => (await subjects(id)).length > 0, 'the event', 20_000);
  });

  it('honours a shorter lifetime than asked for: renews halfway through it, not at every poll', async () => {
    grantSubscriptionsFor(h.sandbox.states.outlook, 4_000);
    try {
      await serve();
      const { id, subscription } = await pushed();
      const firstExpiry = subscription.expirationDateTime;
      await until(() => Date.now() > Date.parse(firstExpiry) + 500, 'the first expiry to pass', 10_000);
      expect(subscriptionOf(id)?.id).toBe(subscription.id);
      const renewals = graphRequests('PATCH', new RegExp(`/subscriptions/${subscription.id}$`)).length;
      expect(renewals).toBeGreaterThanOrEqual(1);
      expect(renewals).toBeLessThanOrEqual(2);
    } finally {
      grantSubscriptionsFor(h.sandbox.states.outlook, undefined);
    }
  });

  it('reauthorizationRequired: the next poll renews, which reauthorizes, and notifications flow again', async () => {
    await serve();
    const { id, subscription } = await pushed();
    const post = await sendLifecycle(h.sandbox.states.outlook, subscription.id, 'reauthorizationRequired');
    expect(post.status).toBe(202);
    await until(() => !subscription.needsReauthorization, 'the renewal', 20_000);
    expect(graphRequests('PATCH', new RegExp(`/subscriptions/${subscription.id}$`))).toHaveLength(1);
    deliver('Reauthorized');
    await until(async () => (await subjects(id)).length > 0, 'the event', 20_000);
    expect(subscription.posts.filter((p) => p.kind === 'change').map((p) => p.status)).toEqual([202]);
  });

  it('subscriptionRemoved: the next poll subscribes again', async () => {
    await serve();
    const { id, subscription } = await pushed();
    await sendLifecycle(h.sandbox.states.outlook, subscription.id, 'subscriptionRemoved');
    const again = await until(() => subscriptionOf(id), 'a new subscription', 20_000);
    expect(again.id).not.toBe(subscription.id);
    await until(async () => (await listed(id)).mode_reason.includes(again.id), 'the new subscription in triggers_list', 20_000);
    deliver('Resubscribed');
    await until(async () => (await subjects(id)).length > 0, 'the event', 20_000);
  });

  it('missed: a delta pull at once catches up what was not notified', async () => {
    await serve();
    const { id, subscription } = await pushed();
    dropNotifications(h.sandbox.states.outlook);
    deliver('Missed');
    expect((await sendLifecycle(h.sandbox.states.outlook, subscription.id, 'missed')).status).toBe(202);
    await until(async () => (await subjects(id)).length > 0, 'the catch-up', 20_000);
    expect(await subjects(id)).toEqual(['Missed']);
  });

  it('deleting the trigger deletes its subscription at Graph, and its later notifications are refused', async () => {
    await serve();
    const { id, subscription } = await pushed();
    const { clientState } = await h.store.triggers.secrets(id);
    await h.ok('triggers_delete', { id });
    expect(graphRequests('DELETE', new RegExp(`/subscriptions/${subscription.id}$`))).toHaveLength(1);
    expect(subscriptionOf(id)).toBeUndefined();
    const late = { value: [{ subscriptionId: subscription.id, changeType: 'created', clientState, resource: 'Users/x/Messages/y' }] };
    expect((await post(subscription.notificationUrl, late)).status).toBe(404);
    expect((await fetch(`${subscription.notificationUrl}?validationToken=x`, { method: 'POST' })).status).toBe(404);
  });

  it('a subscription Graph refuses leaves the trigger polling at its interval, and triggers_list says why', async () => {
    await serve();
    h.sandbox.servers.outlook.once('POST /v1.0/subscriptions', {
      status: 403,
      body: { error: { code: 'ExtensionError', message: 'Operation: Create; Exception: [Status Code: Forbidden; Reason: Access is denied.]' } },
    });
    const { id } = await create({ poll_interval_seconds: 30 });
    const shown = await until(async () => ((await listed(id)).mode_reason?.includes('refused') ? listed(id) : undefined), 'the refusal', 20_000);
    expect(shown.mode).toBe('poll');
    expect(shown.mode_reason).toMatch(/Graph refused the subscription: .*403.*Access is denied.* Polled every 30 s\./);
    expect(formatTriggers([shown])).toMatch(new RegExp(`^${id}: Graph refused the subscription`, 'm'));
    deliver('Polled instead');
    await poll(id);
    expect(await subjects(id)).toEqual(['Polled instead']);
    // Not asked again at every poll: after a while (an hour by default).
    expect(graphRequests('POST', /\/subscriptions$/)).toHaveLength(1);
  });

  it('while the account needs reconnecting, acknowledges notifications without polling; signing in again polls at once and subscribes again', async () => {
    await serve();
    const { id, subscription } = await pushed();
    const account = (await h.store.accounts.find((await h.store.triggers.get(id))!.accountId))!;
    // A refresh Graph refused marks the account, and fails the poll that tried it.
    await h.store.accounts.setStatus(account.id, 'needs_reconnect');
    await poll(id);
    expect(await listed(id)).toMatchObject({ mode: 'paused', mode_reason: expect.stringMatching(/reconnecting/), last_error: expect.stringMatching(/reconnect/) });
    const errors = (await h.store.triggers.get(id))!.errors;

    const m = deliver('While paused');
    await settleNotifications(h.sandbox.states.outlook);
    expect(subscription.posts.find((p) => p.about === m.id)?.status).toBe(202);
    await new Promise((r) => setTimeout(r, 300));
    expect((await h.store.triggers.get(id))!.errors).toBe(errors);
    // Graph dropped the subscription meanwhile, without being able to tell anyone.
    subscriptionSide(h.sandbox.states.outlook).subscriptions.delete(subscription.id);

    const token = SANDBOX_TOKENS.outlook;
    const signedIn = await connectAccount({ store: h.store, baseUrls: h.deps.baseUrls }, { provider: 'outlook', label: account.label, secret: { kind: 'token', token }, reconnect: true });
    expect(signedIn).toMatchObject({ id: account.id, status: 'active' });
    const again = await until(() => subscriptionOf(id), 'a new subscription, without waiting for the backstop', 20_000);
    expect(again.id).not.toBe(subscription.id);
    await until(async () => (await subjects(id)).length > 0, 'the email notified while paused', 20_000);
    expect(await subjects(id)).toEqual(['While paused']);
    expect(await listed(id)).toMatchObject({ mode: 'push', last_error: null });
  });

  it('renews on whichever instance is alive: a second server renews the subscription of one that died', async () => {
    const timing = { lifetimeMs: 6_000, renewBeforeMs: 4_000 };
    const first = await serve({ timing, claimTtlMs: 1_000 });
    const { id, subscription } = await pushed();
    kill(first);
    const firstExpiry = subscription.expirationDateTime;
    await serve({ timing, claimTtlMs: 1_000 });
    await until(() => Date.parse(subscription.expirationDateTime) > Date.parse(firstExpiry), 'the renewal', 20_000);
    await until(() => Date.now() > Date.parse(firstExpiry) + 200, 'the first expiry to pass', 10_000);
    expect(subscriptionOf(id)?.id).toBe(subscription.id);
    expect(graphRequests('POST', /\/subscriptions$/)).toHaveLength(1);
    deliver('Renewed elsewhere');
    await until(async () => (await subjects(id)).length > 0, 'the event', 20_000);
  });

  it('answers a notification 202 once the poll it asks for is stored, before the slow delta pull fetches the message', async () => {
    await serve();
    const { id, subscription } = await pushed();
    slowDelta(h.sandbox.states.outlook, 2_000);
    try {
      const m = deliver('Slow Graph');
      await settleNotifications(h.sandbox.states.outlook);
      const post = subscription.posts.find((p) => p.about === m.id)!;
      expect(post.status).toBe(202);
      expect(post.tookMs).toBeLessThan(1_000);
      expect(await subjects(id)).toEqual([]);
      await until(async () => (await subjects(id)).length > 0, 'the event', 20_000);
      expect(Date.now() - Date.parse(post.at)).toBeGreaterThanOrEqual(2_000);
    } finally {
      slowDelta(h.sandbox.states.outlook, 0);
    }
    expect(await subjects(id)).toEqual(['Slow Graph']);
  });

  it('applies the filter to notified mail: a notified email that does not match is no event', async () => {
    await serve();
    const { id, subscription } = await pushed({ filter: 'from:*@acme.com AND subject:"invoice"' });
    deliverEmail(h.sandbox.states.outlook, { subject: 'Lunch?', from: { name: 'Dana Reyes', address: 'dana@acme.com' } });
    deliverEmail(h.sandbox.states.outlook, { subject: 'Invoice 42', from: { name: 'Eve', address: 'eve@other.example' } });
    deliverEmail(h.sandbox.states.outlook, { subject: 'Invoice 43', from: { name: 'Dana Reyes', address: 'dana@acme.com' } });
    await until(async () => (await subjects(id)).length > 0, 'the event', 20_000);
    await settleNotifications(h.sandbox.states.outlook);
    expect(subscription.posts.filter((p) => p.kind === 'change').map((p) => p.status)).toEqual([202, 202, 202]);
    await poll(id);
    expect(await subjects(id)).toEqual(['Invoice 43']);
  });

  it("subscribes to a shared mailbox's folder, and its notifications become events", async () => {
    await serve();
    const support = h.sandbox.states.outlook.mailboxes.find((b) => b.mail === 'support@contoso.example')!;
    const inbox = support.wellKnownFolders.inbox!;
    const { id, subscription } = await pushed({ mailbox: 'support@contoso.example', folder: inbox });
    expect(subscription.resource).toBe(`users/support@contoso.example/mailFolders('${inbox}')/messages`);
    deliverEmail(h.sandbox.states.outlook, { subject: 'Shared help', from: { name: 'Sam', address: 'sam@customer.example' }, mailbox: support.mail });
    deliver('In my own inbox');
    await until(async () => (await subjects(id)).length > 0, 'the event', 20_000);
    await settleNotifications(h.sandbox.states.outlook);
    expect(subscription.posts.filter((p) => p.kind === 'change').map((p) => p.status)).toEqual([202]);
    await poll(id);
    const [event, ...more] = await h.store.events.after(0, { triggerIds: [id], limit: 10 });
    expect(more).toEqual([]);
    expect(event!.payload).toMatchObject({ subject: 'Shared help', mailbox: 'support@contoso.example', folder: inbox });
  });

  it('without a public URL polls as before, and says why', async () => {
    await serve({ publicUrl: false });
    const publicUrl = h.deps.triggers!.publicUrl;
    h.deps.triggers!.publicUrl = undefined;
    const { id, next } = await create().finally(() => (h.deps.triggers!.publicUrl = publicUrl));
    expect(next).toMatch(/^Watching inbox of sample every 60 s: each new matching email is an event within one poll interval\./);
    await poll(id);
    expect(await listed(id)).toMatchObject({ mode: 'poll', mode_reason: expect.stringMatching(/No public URL .* Polled every 60 s\./) });
    deliver('Polled as before');
    await poll(id);
    expect(await subjects(id)).toEqual(['Polled as before']);
    expect(graphRequests('POST', /\/subscriptions$/)).toEqual([]);
  });
});
