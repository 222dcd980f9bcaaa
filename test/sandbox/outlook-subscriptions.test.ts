import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  SANDBOX_TOKENS,
  deliverEmail,
  dropNotifications,
  grantSubscriptionsFor,
  sendLifecycle,
  settleNotifications,
  slowDelta,
  startSandbox,
  subscriptionSide,
  type Sandbox,
} from '../../src/sandbox/index.js';
import { client, http } from './http.js';

/** What the notification endpoint was sent: the raw query string, content type and body of each POST. */
interface Received {
  path: string;
  query: string;
  contentType: string;
  body: string;
}

let sandbox: Sandbox;
let api: ReturnType<typeof client>;
let endpoint: Server;
let endpointUrl: string;
const received: Received[] = [];
/** How the endpoint answers a validation request; the default echoes the token decoded as a query string. */
let validation: (token: string) => { status: number; type: string; body: string } = (token) => ({ status: 200, type: 'text/plain', body: token });

beforeAll(async () => {
  sandbox = await startSandbox();
  api = client(sandbox.baseUrls.outlook, { authorization: `Bearer ${SANDBOX_TOKENS.outlook}` });
  endpoint = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      received.push({ path: url.pathname, query: url.search, contentType: String(req.headers['content-type']), body: Buffer.concat(chunks).toString() });
      const token = url.searchParams.get('validationToken');
      if (token === null) return void res.writeHead(202).end();
      const answer = validation(token);
      res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
});
afterEach(() => {
  subscriptionSide(sandbox.states.outlook).subscriptions.clear();
  received.length = 0;
  validation = (token) => ({ status: 200, type: 'text/plain', body: token });
});
afterAll(async () => {
  await sandbox.close();
  await new Promise((resolve) => endpoint.close(resolve));
});

const inFuture = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
const body = (over: Record<string, unknown> = {}) => ({
  changeType: 'created',
  notificationUrl: `${endpointUrl}/notify`,
  lifecycleNotificationUrl: `${endpointUrl}/lifecycle`,
  resource: "me/mailFolders('inbox')/messages",
  expirationDateTime: inFuture(60),
  clientState: 'a-secret-client-state',
  ...over,
});
const subscribe = async (over: Record<string, unknown> = {}) => {
  const res = await api('POST', '/subscriptions', { body: body(over) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; expirationDateTime: string };
};
const notifications = (path = '/notify') => received.filter((r) => r.path === path && !r.query).map((r) => JSON.parse(r.body).value).flat();
const mail = (subject: string, folder?: string) => deliverEmail(sandbox.states.outlook, { subject, from: { name: 'Dana', address: 'dana@acme.com' }, folder });

describe('creating a subscription', () => {
  it('validates both URLs with a form-encoded token before answering 201 with the subscription', async () => {
    const made = await subscribe();
    expect(made).toMatchObject({ id: expect.any(String), changeType: 'created', resource: "me/mailFolders('inbox')/messages", clientState: 'a-secret-client-state', notificationUrl: `${endpointUrl}/notify`, lifecycleNotificationUrl: `${endpointUrl}/lifecycle`, latestSupportedTlsVersion: 'v1_2' });
    const checks = received.filter((r) => r.query.startsWith('?validationToken='));
    expect(checks.map((r) => r.path)).toEqual(['/notify', '/lifecycle']);
    expect(checks[0]!.contentType).toMatch(/^text\/plain/);
    // Spaces travel as '+', and a '+' as %2B: only a query-string decoding gives the token back.
    expect(checks[0]!.query).toMatch(/Validation%3A\+Testing\+client/);
    expect(checks[0]!.query).toContain('%2B1');
  });

  it('fails the subscription when the endpoint echoes the token still encoded, or not as text, and stores nothing', async () => {
    const live = () => subscriptionSide(sandbox.states.outlook).subscriptions.size;
    const before = live();
    validation = (token) => ({ status: 200, type: 'text/plain', body: encodeURIComponent(token) });
    const res = await api('POST', '/subscriptions', { body: body() });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'ValidationError', message: expect.stringMatching(/validation request failed/) });
    validation = (token) => ({ status: 200, type: 'application/json', body: JSON.stringify(token) });
    expect((await api('POST', '/subscriptions', { body: body() })).status).toBe(400);
    expect(live()).toBe(before);
  });

  it.each([
    [{ changeType: undefined }, /changeType/],
    [{ changeType: 'created,renamed' }, /changeType/],
    [{ notificationUrl: 'http://hooks.example.net/n' }, /notificationUrl must use the https scheme/],
    [{ lifecycleNotificationUrl: 'ftp://127.0.0.1/x' }, /lifecycleNotificationUrl must use the https scheme/],
    [{ resource: 'me/events' }, /Resource 'me\/events' is not supported/],
    [{ expirationDateTime: inFuture(4_231) }, /can only be 4230 minutes in the future/],
    [{ expirationDateTime: inFuture(-1) }, /must be in the future/],
    [{ expirationDateTime: 'soon' }, /expirationDateTime is required/],
    [{ clientState: 'x'.repeat(129) }, /at most 128 characters/],
  ])('refuses %j as Graph does', async (over, message) => {
    const res = await api('POST', '/subscriptions', { body: body(over) });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(message);
    expect(received).toEqual([]);
  });

  it('refuses a folder that does not exist and a mailbox without delegated access', async () => {
    expect((await api('POST', '/subscriptions', { body: body({ resource: "me/mailFolders('no-such-folder')/messages" }) })).status).toBe(404);
    expect((await api('POST', '/subscriptions', { body: body({ resource: "users/nobody@contoso.example/mailFolders('inbox')/messages" }) })).status).toBe(404);
  });
});

describe('notifications', () => {
  it('posts one change notification per message created in the subscribed folder, in Graph shape', async () => {
    const sub = await subscribe();
    received.length = 0;
    const m = mail('In the inbox');
    mail('Archived elsewhere', 'archive');
    await settleNotifications(sandbox.states.outlook);
    expect(notifications()).toEqual([
      {
        subscriptionId: sub.id,
        subscriptionExpirationDateTime: sub.expirationDateTime,
        changeType: 'created',
        resource: `Users/${sandbox.states.outlook.user.id}/Messages/${m.id}`,
        resourceData: { '@odata.type': '#Microsoft.Graph.Message', '@odata.id': `Users/${sandbox.states.outlook.user.id}/Messages/${m.id}`, '@odata.etag': expect.stringMatching(/^W\//), id: m.id },
        clientState: 'a-secret-client-state',
        tenantId: expect.any(String),
      },
    ]);
    await api('DELETE', `/subscriptions/${sub.id}`);
  });

  it('drops a notification when told to, and withholds them after reauthorizationRequired until a renewal', async () => {
    const sub = await subscribe();
    received.length = 0;
    dropNotifications(sandbox.states.outlook);
    mail('Dropped');
    mail('Sent');
    await settleNotifications(sandbox.states.outlook);
    expect(notifications().map((n) => n.resourceData.id)).toHaveLength(1);

    received.length = 0;
    await sendLifecycle(sandbox.states.outlook, sub.id, 'reauthorizationRequired');
    expect(notifications('/lifecycle')).toEqual([{ subscriptionId: sub.id, subscriptionExpirationDateTime: sub.expirationDateTime, tenantId: expect.any(String), clientState: 'a-secret-client-state', lifecycleEvent: 'reauthorizationRequired' }]);
    mail('Withheld');
    await settleNotifications(sandbox.states.outlook);
    expect(notifications()).toEqual([]);
    const renewed = await api('PATCH', `/subscriptions/${sub.id}`, { body: { expirationDateTime: inFuture(120) } });
    expect(renewed.status).toBe(200);
    expect(Date.parse(renewed.body.expirationDateTime)).toBeGreaterThan(Date.parse(sub.expirationDateTime));
    mail('After renewal');
    await settleNotifications(sandbox.states.outlook);
    expect(notifications()).toHaveLength(1);
    await api('DELETE', `/subscriptions/${sub.id}`);
  });

  it('subscriptionRemoved removes the subscription; missed only tells; the control route sends them over HTTP', async () => {
    const sub = await subscribe();
    received.length = 0;
    const control = (event: string) => http('POST', `${sandbox.servers.outlook.url}/_sandbox/outlook/subscriptions/${sub.id}/lifecycle`, { body: { lifecycleEvent: event } });
    expect((await control('missed')).body).toMatchObject({ kind: 'lifecycle', status: 202, about: 'missed' });
    expect((await api('GET', `/subscriptions/${sub.id}`)).status).toBe(200);
    expect((await control('subscriptionRemoved')).status).toBe(200);
    expect((await api('GET', `/subscriptions/${sub.id}`)).status).toBe(404);
    expect(notifications('/lifecycle').map((n) => n.lifecycleEvent)).toEqual(['missed', 'subscriptionRemoved']);
    mail('Nobody is told');
    await settleNotifications(sandbox.states.outlook);
    expect(notifications()).toEqual([]);
    expect((await control('missed')).status).toBe(404);
    expect((await control('rebooted')).status).toBe(400);
  });

  it('renews, deletes, and forgets an expired subscription', async () => {
    const sub = await subscribe();
    expect((await api('PATCH', `/subscriptions/${sub.id}`, { body: { expirationDateTime: inFuture(5_000) } })).status).toBe(400);
    expect((await api('PATCH', `/subscriptions/${sub.id}`, { body: { changeType: 'updated' } })).status).toBe(400);
    expect((await api('DELETE', `/subscriptions/${sub.id}`)).status).toBe(204);
    expect((await api('DELETE', `/subscriptions/${sub.id}`)).status).toBe(404);
    expect((await api('PATCH', `/subscriptions/${sub.id}`, { body: { expirationDateTime: inFuture(60) } })).status).toBe(404);

    const short = await subscribe();
    subscriptionSide(sandbox.states.outlook).subscriptions.get(short.id)!.expirationDateTime = new Date(Date.now() - 1).toISOString();
    expect((await api('GET', `/subscriptions/${short.id}`)).status).toBe(404);
    expect((await api('GET', '/subscriptions')).body.value.map((s: { id: string }) => s.id)).not.toContain(short.id);
  });

  it('grants less than asked when told to, on creation and renewal, as Graph may', async () => {
    grantSubscriptionsFor(sandbox.states.outlook, 5_000);
    try {
      const sub = await subscribe({ expirationDateTime: inFuture(60) });
      expect(Date.parse(sub.expirationDateTime) - Date.now()).toBeLessThanOrEqual(5_000);
      const renewed = await api('PATCH', `/subscriptions/${sub.id}`, { body: { expirationDateTime: inFuture(60) } });
      expect(Date.parse(renewed.body.expirationDateTime) - Date.now()).toBeLessThanOrEqual(5_000);
      expect(Date.parse(renewed.body.expirationDateTime)).toBeGreaterThanOrEqual(Date.parse(sub.expirationDateTime));
    } finally {
      grantSubscriptionsFor(sandbox.states.outlook, undefined);
    }
    const asked = inFuture(60);
    expect((await subscribe({ expirationDateTime: asked })).expirationDateTime).toBe(asked);
  });

  it('notifies a subscription to a shared mailbox of the mail delivered there, and records how long each answer took', async () => {
    const sub = await subscribe({ resource: "users/support@contoso.example/mailFolders('inbox')/messages" });
    received.length = 0;
    const m = deliverEmail(sandbox.states.outlook, { subject: 'Shared', from: { name: 'Dana', address: 'dana@acme.com' }, mailbox: 'support@contoso.example' });
    mail('Not shared');
    await settleNotifications(sandbox.states.outlook);
    const box = sandbox.states.outlook.mailboxes.find((b) => b.mail === 'support@contoso.example')!;
    expect(notifications().map((n) => n.resource)).toEqual([`Users/${box.id}/Messages/${m.id}`]);
    expect(m.toRecipients).toEqual([{ emailAddress: { name: 'Contoso Support', address: 'support@contoso.example' } }]);
    const post = subscriptionSide(sandbox.states.outlook).subscriptions.get(sub.id)!.posts.find((p) => p.about === m.id)!;
    expect(post).toMatchObject({ status: 202, tookMs: expect.any(Number) });
  });
});

describe('a slow delta query', () => {
  it('answers late by as much as it is told, then at once again', async () => {
    const path = "/me/mailFolders/inbox/messages/delta?changeType=created";
    slowDelta(sandbox.states.outlook, 400);
    try {
      const started = Date.now();
      expect((await api('GET', path)).status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    } finally {
      slowDelta(sandbox.states.outlook, 0);
    }
    const started = Date.now();
    expect((await api('GET', path)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(390);
  });
});
