import { createHmac } from 'node:crypto';
import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vercelKinds } from '../../src/connectors/vercel/webhooks.js';
import { replaceWebhookSecret, WEBHOOK_SECRET_OVERLAP_MS } from '../../src/triggers/commands.js';
import { SANDBOX_TOKENS } from '../../src/sandbox/index.js';
import { startSandboxServer, type SandboxRequest } from '../../src/sandbox/server.js';
import { USER_ID } from '../../src/sandbox/vercel/data.js';
import { registerWebhook, vercelWebhooksIdle } from '../../src/sandbox/vercel/webhooks.js';
import type { WebhookDelivery } from '../../src/contracts/triggers.js';
import { startHarness, type Harness } from '../harness.js';
import { until } from '../support/wait.js';
import { http } from '../sandbox/http.js';

let h: Harness;
const TEAM_PROJECT = 'prj_sbxPlatformWeb00000001';
const HELLO = 'prj_sbxHelloWorld0000000001';
const MANUAL_SECRET = 'whsec-manual-0123456789abcdef';

const EventNotification = z.object({
  method: z.literal('notifications/switchboard/event'),
  params: z.object({ eventId: z.string(), triggerId: z.string(), kind: z.string(), occurredAt: z.string(), summary: z.string() }),
});
const notified: Array<z.infer<typeof EventNotification>['params']> = [];

beforeAll(async () => {
  h = await startHarness({ listen: true });
  await h.store.accounts.add({ provider: 'vercel', label: 'team', identity: 'sbx-vercel', meta: { teamId: 'team_sbx' }, secret: { kind: 'token', token: SANDBOX_TOKENS.vercel } });
  h.client.setNotificationHandler(EventNotification, (n) => void notified.push(n.params));
});
afterAll(() => h.close());

const state = () => h.sandbox.states.vercel;
const sandboxUrl = () => h.sandbox.servers.vercel.url;
const events = (triggerId: string) => h.store.events.latest(triggerId, 50);
const hookUrl = (triggerId: string) => `${h.listenerUrl}/webhooks/vercel/${triggerId}`;

/** Drives the sandbox's build: QUEUED -> BUILDING -> READY, or to a chosen state; answers the webhook calls made. */
async function advance(id: string, to?: string): Promise<{ deployment: { readyState: string }; deliveries: Array<{ type: string; status: number | null; eventId: string; webhookId: string }> }> {
  const res = await http('POST', `${sandboxUrl()}/_sandbox/vercel/deployments/${id}/advance`, { body: to ? { to } : {} });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe('a trigger whose webhook Switchboard creates (team account, Pro)', () => {
  let triggerId: string;
  let webhookId: string;
  let deploymentId: string;

  it('triggers_create creates the Vercel webhook with this trigger\'s URL, events and project, and keeps its secret', async () => {
    h.sandbox.servers.vercel.reset();
    const r = await h.call('triggers_create', { kind: 'vercel.deployment_completed', account: 'team', config: { project: 'platform-web', environment: 'preview' } });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    const created = r.structuredContent as { trigger: { id: string; config: Record<string, unknown> }; next: string };
    triggerId = created.trigger.id;
    const post = h.sandbox.servers.vercel.requests.find((x) => x.method === 'POST' && x.path === '/v1/webhooks')!;
    expect(post.query.get('teamId')).toBe('team_sbx');
    expect(post.body).toEqual({ url: hookUrl(triggerId), events: ['deployment.succeeded'], projectIds: [TEAM_PROJECT] });
    const hook = state().webhooks.find((x) => x.url === hookUrl(triggerId))!;
    webhookId = hook.id;
    expect(await h.store.triggers.secrets(triggerId)).toEqual({ webhook: hook.secret });
    expect((await h.store.triggers.get(triggerId))!.providerRefs).toEqual({ webhookId: hook.id, projectId: TEAM_PROJECT });
    expect(created.next).toContain(hook.id);
    expect(created.trigger.config).toEqual({ project: 'platform-web', environment: 'preview' });
    expect(JSON.stringify(r)).not.toContain(hook.secret);
  });

  it('a deployment that completes fires it end to end, signed, once, with an MCP notification', async () => {
    const d = await h.ok('vercel_create_deployment', { account: 'team', project: 'platform-web', branch: 'staging' });
    deploymentId = d.id;
    await vercelWebhooksIdle(state());
    expect(await events(triggerId)).toEqual([]);
    expect((await advance(d.id)).deliveries).toEqual([]);
    const ready = await advance(d.id);
    expect(ready.deployment.readyState).toBe('READY');
    expect(ready.deliveries).toEqual([expect.objectContaining({ type: 'deployment.succeeded', webhookId, status: 200 })]);
    const [event, ...more] = await events(triggerId);
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      kind: 'vercel.deployment_completed',
      dedupeKey: `completed:${d.id}`,
      summary: expect.stringMatching(/^Deployment of platform-web to preview completed from staging @ [0-9a-f]{7}: https:\/\//),
      payload: { type: 'deployment.succeeded', deployment_id: d.id, project_id: TEAM_PROJECT, target: null, ref: 'staging', team_id: 'team_sbx' },
    });
    const n = await until(() => {
      const delivered = notified.filter((x) => x.triggerId === triggerId);
      return delivered.length > 0 && delivered;
    }, 'the notification', 2_000);
    expect(n).toEqual([{ eventId: String(event!.id), triggerId, kind: 'vercel.deployment_completed', occurredAt: event!.occurredAt, summary: event!.summary }]);
  });

  it('a redelivery of the same delivery is not a second event', async () => {
    const first = state().deliveries.find((x) => x.webhookId === webhookId && x.type === 'deployment.succeeded')!;
    const res = await http('POST', `${sandboxUrl()}/_sandbox/vercel/events/${first.eventId}/redeliver`);
    expect(res.body).toMatchObject({ eventId: first.eventId, status: 200 });
    expect(await events(triggerId)).toHaveLength(1);
    expect((await h.store.triggers.get(triggerId))!.fired).toBe(1);
  });

  it('a delivery with a bad signature is refused with 401 and nothing is stored', async () => {
    const secret = (await h.store.triggers.secrets(triggerId)).webhook!;
    const body = JSON.stringify({ id: 'evt_forged_0001', type: 'deployment.succeeded', createdAt: Date.now(), payload: { deployment: { id: 'dpl_forged', url: 'x.vercel.app', name: 'platform-web' }, project: { id: TEAM_PROJECT }, target: null } });
    const post = (signature: string, raw = body) => http('POST', hookUrl(triggerId), { body: raw, headers: { 'content-type': 'application/json', 'x-vercel-signature': signature } });
    const sign = (key: string, raw = body) => createHmac('sha1', key).update(raw).digest('hex');
    expect((await post(sign('not-the-secret'))).status).toBe(401);
    expect((await post(sign(secret), body.replace('dpl_forged', 'dpl_forgeD'))).status).toBe(401);
    expect((await post('')).status).toBe(401);
    expect(await events(triggerId)).toHaveLength(1);
    // The same body with the right signature is taken: the refusals above were the signature's doing.
    const good = await post(sign(secret));
    expect(good.body).toEqual({ accepted: 1 });
    expect(await events(triggerId)).toHaveLength(2);
  });

  it('a production deployment does not fire a preview trigger', async () => {
    const before = (await events(triggerId)).length;
    const d = await h.ok('vercel_create_deployment', { account: 'team', project: 'platform-web', branch: 'main', environment: 'production' });
    const ready = await advance(d.id, 'READY');
    expect(ready.deliveries).toEqual([expect.objectContaining({ type: 'deployment.succeeded', status: 200 })]);
    expect(await events(triggerId)).toHaveLength(before);
  });

  it('deleting the trigger deletes its webhook at Vercel', async () => {
    h.sandbox.servers.vercel.reset();
    const r = await h.ok('triggers_delete', { id: triggerId });
    expect(r).toEqual({ deleted: true, id: triggerId, kind: 'vercel.deployment_completed' });
    const del = h.sandbox.servers.vercel.requests.find((x) => x.method === 'DELETE')!;
    expect(del.path).toBe(`/v1/webhooks/${webhookId}`);
    expect(del.query.get('teamId')).toBe('team_sbx');
    expect(state().webhooks.some((x) => x.id === webhookId)).toBe(false);
    expect(deploymentId).toBeTruthy();
  });

  it('deleting a trigger whose webhook is already gone at Vercel works without a note', async () => {
    const created = await h.ok('triggers_create', { kind: 'vercel.deployment_failed', account: 'team', config: { project: TEAM_PROJECT } });
    state().webhooks = state().webhooks.filter((x) => x.url !== hookUrl(created.trigger.id));
    const r = await h.ok('triggers_delete', { id: created.trigger.id });
    expect(r).toEqual({ deleted: true, id: created.trigger.id, kind: 'vercel.deployment_failed' });
  });

  it('refuses an unknown project and creates nothing', async () => {
    const hooks = state().webhooks.length;
    const triggers = (await h.store.triggers.list()).length;
    const text = await h.fails('triggers_create', { kind: 'vercel.deployment_started', account: 'team', config: { project: 'no-such-project' } });
    expect(text).toMatch(/No Vercel project "no-such-project"/);
    expect(state().webhooks.length).toBe(hooks);
    expect((await h.store.triggers.list()).length).toBe(triggers);
  });
});

describe('a trigger with a webhook the user sets up (personal account, Hobby)', () => {
  it('refuses without a secret when Vercel will not create the webhook, saying what to do, and stores nothing', async () => {
    const triggers = (await h.store.triggers.list()).length;
    const text = await h.fails('triggers_create', { kind: 'vercel.deployment_started', config: { project: 'hello-world' } });
    expect(text).toMatch(/Vercel refused to create the webhook \(403 forbidden: Webhooks are available on the Pro and Enterprise plans/);
    expect(text).toMatch(/config\.secret/);
    expect(state().webhooks.filter((x) => x.ownerId === USER_ID)).toEqual([]);
    expect((await h.store.triggers.list()).length).toBe(triggers);
  });

  it('with config.secret: says what to paste where, keeps the secret out of the config, and fires once per completed deployment of its project only', async () => {
    const r = await h.ok('triggers_create', { kind: 'vercel.deployment_completed', config: { project: 'hello-world', secret: MANUAL_SECRET } });
    const id = r.trigger.id as string;
    expect(r.next).toContain(hookUrl(id));
    expect(r.next).toContain('"Deployment Succeeded"');
    expect(r.trigger.config).toEqual({ project: 'hello-world' });
    expect((await h.store.triggers.get(id))!.config).toEqual({ project: 'hello-world' });
    expect(JSON.stringify(await h.ok('triggers_list'))).not.toContain(MANUAL_SECRET);
    expect(await h.store.triggers.secrets(id)).toEqual({ webhook: MANUAL_SECRET });

    // What the user does in Vercel: a webhook for every project, also sending deployment.ready.
    registerWebhook(state(), { url: hookUrl(id), events: ['deployment.created', 'deployment.succeeded', 'deployment.ready'], ownerId: USER_ID, secret: MANUAL_SECRET });
    const mine = await h.ok('vercel_create_deployment', { project: 'hello-world', branch: 'main' });
    const ready = await advance(mine.id, 'READY');
    expect(ready.deliveries.map((x) => [x.type, x.status])).toEqual([
      ['deployment.succeeded', 200],
      ['deployment.ready', 200],
    ]);
    const fired = await events(id);
    expect(fired.map((e) => e.payload.deployment_id)).toEqual([mine.id]);

    const other = await http('POST', `${sandboxUrl()}/v10/projects`, { body: { name: 'other-site' }, headers: { authorization: `Bearer ${SANDBOX_TOKENS.vercel}` } });
    expect(other.status).toBe(200);
    const theirs = await h.ok('vercel_create_deployment', { project: 'other-site', branch: 'main', repo: 'sbx-octocat/other-site' });
    const theirsReady = await advance(theirs.id, 'READY');
    expect(theirsReady.deliveries.map((x) => x.status)).toEqual([200, 200]);
    await vercelWebhooksIdle(state());
    expect((await events(id)).map((e) => e.payload.deployment_id)).toEqual([mine.id]);
  });

  it('with config.manual: gives the URL first, refuses deliveries until the secret is given, then fires', async () => {
    const r = await h.ok('triggers_create', { kind: 'vercel.deployment_completed', config: { project: 'hello-world', manual: true } });
    const id = r.trigger.id as string;
    expect(r.next).toContain(hookUrl(id));
    expect(r.next).toContain(`switchboard triggers secret ${id} --secret-stdin`);
    expect(r.trigger.config).toEqual({ project: 'hello-world' });
    const webhook = registerWebhook(state(), { url: hookUrl(id), events: ['deployment.succeeded'], ownerId: USER_ID, secret: MANUAL_SECRET });
    const mine = (d: { webhookId: string }) => d.webhookId === webhook.id;
    const first = await h.ok('vercel_create_deployment', { project: 'hello-world', branch: 'main' });
    expect((await advance(first.id, 'READY')).deliveries.filter(mine).map((x) => x.status)).toEqual([401]);
    expect(await events(id)).toEqual([]);

    // What `switchboard triggers secret` stores.
    await h.store.triggers.setSecrets(id, { webhook: MANUAL_SECRET });
    const second = await h.ok('vercel_create_deployment', { project: 'hello-world', branch: 'main' });
    expect((await advance(second.id, 'READY')).deliveries.filter(mine).map((x) => x.status)).toEqual([200]);
    expect((await events(id)).map((e) => e.payload.deployment_id)).toEqual([second.id]);
  });

  it('a replaced webhook secret is still accepted for its overlap, then refused', async () => {
    const r = await h.ok('triggers_create', { kind: 'vercel.deployment_completed', config: { project: 'hello-world', manual: true } });
    const id = r.trigger.id as string;
    const delivery = (n: number) => JSON.stringify({ id: `evt_rotate_${n}`, type: 'deployment.succeeded', createdAt: Date.now(), payload: { deployment: { id: `dpl_rotate_${n}`, url: 'x.vercel.app', name: 'hello-world' }, project: { id: HELLO }, target: 'production' } });
    const post = (key: string, n: number) => {
      const body = delivery(n);
      return http('POST', hookUrl(id), { body, headers: { 'content-type': 'application/json', 'x-vercel-signature': createHmac('sha1', key).update(body).digest('hex') } });
    };
    const NEW_SECRET = 'whsec-rotated-0123456789abcdef';
    const now = Date.now();
    expect(await replaceWebhookSecret(h.store, id, MANUAL_SECRET, now)).toBeUndefined();
    const until = await replaceWebhookSecret(h.store, id, NEW_SECRET, now);
    expect(Date.parse(until!) - now).toBe(WEBHOOK_SECRET_OVERLAP_MS);
    expect((await post(MANUAL_SECRET, 1)).status).toBe(200);
    expect((await post(NEW_SECRET, 2)).status).toBe(200);
    expect((await post('whsec-never-set-0123456789', 3)).status).toBe(401);
    // Once the overlap is over, only the new secret counts.
    await h.store.triggers.setSecrets(id, { ...(await h.store.triggers.secrets(id)), previousWebhookUntil: new Date(Date.now() - 1000).toISOString() });
    expect((await post(MANUAL_SECRET, 4)).status).toBe(401);
    expect((await post(NEW_SECRET, 5)).status).toBe(200);
  });

  it('without a public URL: refuses without a secret, and with one says where to point the webhook', async () => {
    const runtime = h.deps.triggers!;
    const saved = runtime.publicUrl;
    runtime.publicUrl = undefined;
    try {
      expect(await h.fails('triggers_create', { kind: 'vercel.deployment_failed', account: 'team', config: { project: 'platform-web' } })).toMatch(/no public URL.*--public-url/s);
      const r = await h.ok('triggers_create', { kind: 'vercel.deployment_failed', account: 'team', config: { project: 'platform-web', secret: MANUAL_SECRET } });
      expect(r.next).toContain(`<public URL of this server>/webhooks/vercel/${r.trigger.id}`);
      expect(r.next).toMatch(/--public-url/);
    } finally {
      runtime.publicUrl = saved;
    }
  });

  it('refuses development as an environment, naming the field', async () => {
    expect(await h.fails('triggers_create', { kind: 'vercel.deployment_started', config: { project: 'hello-world', environment: 'development' } })).toMatch(
      /config\.environment: must be production or preview \(Vercel never deploys to development/,
    );
  });
});

describe('match: Vercel event names to kinds', () => {
  const kind = (name: string) => vercelKinds.find((k) => k.kind === `vercel.deployment_${name}`)!.webhook!;
  const delivery = (id: string, event: string, payload: Record<string, unknown> = {}): WebhookDelivery => ({
    id,
    event,
    payload: { id, type: event, createdAt: 1_700_000_000_000, payload: { deployment: { id: 'dpl_1', url: 'a.vercel.app', name: 'hello-world', meta: {} }, project: { id: HELLO }, target: 'production', ...payload } },
  });
  const cfg = { project: 'hello-world' };

  it('maps current and legacy names, and nothing else', () => {
    const cases: Array<[string, string]> = [
      ['deployment.created', 'started'],
      ['deployment', 'started'],
      ['deployment.succeeded', 'completed'],
      ['deployment.ready', 'completed'],
      ['deployment-ready', 'completed'],
      ['deployment.error', 'failed'],
      ['deployment-error', 'failed'],
      ['deployment.canceled', 'canceled'],
      ['deployment-canceled', 'canceled'],
    ];
    for (const [event, outcome] of cases) {
      for (const other of ['started', 'completed', 'failed', 'canceled']) {
        expect(kind(other).match(delivery('e1', event), cfg).length, `${event} -> ${other}`).toBe(other === outcome ? 1 : 0);
      }
    }
    expect(kind('completed').match(delivery('e1', 'deployment.promoted'), cfg)).toEqual([]);
  });

  it('keys a completion by deployment, other outcomes by the payload id', () => {
    const a = kind('completed').match(delivery('e1', 'deployment.succeeded'), cfg)[0]!;
    const b = kind('completed').match(delivery('e2', 'deployment.ready'), cfg)[0]!;
    expect(a.dedupeKey).toBe(b.dedupeKey);
    const s1 = kind('started').match(delivery('e3', 'deployment.created'), cfg)[0]!;
    const s2 = kind('started').match(delivery('e4', 'deployment.created'), cfg)[0]!;
    expect(s1.dedupeKey).toContain('e3');
    expect(s1.dedupeKey).not.toBe(s2.dedupeKey);
    expect(s1.occurredAt).toBe(new Date(1_700_000_000_000).toISOString());
  });

  it('filters by project id or name and by environment; reads legacy top-level fields', () => {
    expect(kind('failed').match(delivery('e1', 'deployment.error'), { project: HELLO })).toHaveLength(1);
    expect(kind('failed').match(delivery('e1', 'deployment.error'), { project: 'other' })).toEqual([]);
    expect(kind('failed').match(delivery('e1', 'deployment.error'), { ...cfg, environment: 'preview' })).toEqual([]);
    expect(kind('failed').match(delivery('e1', 'deployment.error', { target: null }), { ...cfg, environment: 'preview' })).toHaveLength(1);
    const legacy: WebhookDelivery = { id: 'e9', event: 'deployment-error', payload: { id: 'e9', type: 'deployment-error', payload: { deploymentId: 'dpl_9', projectId: HELLO, name: 'hello-world', url: 'b.vercel.app', target: null } } };
    expect(kind('failed').match(legacy, cfg)[0]).toMatchObject({ payload: { deployment_id: 'dpl_9', url: 'https://b.vercel.app', project_id: HELLO } });
  });
});

describe('the sandbox webhooks API', () => {
  const api = (method: string, path: string, body?: unknown) => http(method, `${sandboxUrl()}${path}`, { body, headers: { authorization: `Bearer ${SANDBOX_TOKENS.vercel}` } });

  it('returns the secret only on creation; lists, gets and deletes without it', async () => {
    const created = await api('POST', '/v1/webhooks?teamId=team_sbx', { url: 'http://127.0.0.1:9/x', events: ['deployment.created'], projectIds: [TEAM_PROJECT] });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^hook_/), url: 'http://127.0.0.1:9/x', events: ['deployment.created'], ownerId: 'team_sbx', projectIds: [TEAM_PROJECT], secret: expect.any(String) });
    expect(created.headers['x-ratelimit-remaining']).toBeDefined();
    const one = await api('GET', `/v1/webhooks/${created.body.id}?teamId=team_sbx`);
    expect(one.body).toMatchObject({ id: created.body.id });
    expect(one.body).not.toHaveProperty('secret');
    const list = await api('GET', '/v1/webhooks?teamId=team_sbx');
    expect(list.body.map((x: { id: string }) => x.id)).toContain(created.body.id);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
    expect((await api('GET', `/v1/webhooks/${created.body.id}`)).status).toBe(404);
    expect((await api('DELETE', `/v1/webhooks/${created.body.id}?teamId=team_sbx`)).status).toBe(204);
    expect((await api('DELETE', `/v1/webhooks/${created.body.id}?teamId=team_sbx`)).body.error).toMatchObject({ code: 'not_found' });
  });

  it('refuses unknown events, a bad URL, foreign projects, and Hobby accounts', async () => {
    expect((await api('POST', '/v1/webhooks?teamId=team_sbx', { url: 'http://127.0.0.1:9/x', events: ['deployment.exploded'] })).body.error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('deployment.exploded') });
    expect((await api('POST', '/v1/webhooks?teamId=team_sbx', { url: 'ftp://x', events: ['deployment.created'] })).status).toBe(400);
    expect((await api('POST', '/v1/webhooks?teamId=team_sbx', { url: 'http://127.0.0.1:9/x', events: ['deployment.created'], projectIds: [HELLO] })).status).toBe(404);
    const hobby = await api('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/x', events: ['deployment.created'] });
    expect(hobby.status).toBe(403);
    expect(hobby.body.error.code).toBe('forbidden');
  });

  it('signs the exact bytes it sends with HMAC-SHA1 and sends the documented envelope', async () => {
    const received: SandboxRequest[] = [];
    const receiver = await startSandboxServer('receiver', { 'POST /hook': (req) => (received.push(req), { status: 204 }) });
    try {
      const hook = registerWebhook(state(), { url: `${receiver.url}/hook`, events: ['deployment.created', 'deployment.error'], ownerId: 'team_sbx', projectIds: [TEAM_PROJECT], secret: 'receiver-secret-000' });
      const d = await h.ok('vercel_create_deployment', { account: 'team', project: 'platform-web', branch: 'staging' });
      await advance(d.id, 'ERROR');
      expect(received.map((r) => JSON.parse(r.rawBody.toString('utf8')).type)).toEqual(['deployment.created', 'deployment.error']);
      for (const r of received) {
        expect(r.headers['x-vercel-signature']).toBe(createHmac('sha1', 'receiver-secret-000').update(r.rawBody).digest('hex'));
        expect(r.headers['content-type']).toBe('application/json');
      }
      const body = JSON.parse(received[1]!.rawBody.toString('utf8'));
      expect(body).toEqual({
        id: expect.stringMatching(/^evt_/),
        type: 'deployment.error',
        createdAt: expect.any(Number),
        region: 'iad1',
        payload: expect.objectContaining({
          deployment: { id: d.id, url: d.url.replace('https://', ''), name: 'platform-web', meta: expect.objectContaining({ githubCommitRef: 'staging' }), inspectorUrl: d.inspectorUrl },
          project: { id: TEAM_PROJECT },
          team: { id: 'team_sbx' },
          user: { id: USER_ID },
          target: null,
          links: { deployment: d.inspectorUrl, project: 'https://vercel.com/sbx-team/platform-web' },
        }),
      });
      expect(JSON.parse(received[0]!.rawBody.toString('utf8')).payload.alias).toEqual([]);
      state().webhooks = state().webhooks.filter((x) => x.id !== hook.id);
    } finally {
      await receiver.close();
    }
  });

  it('moves a deployment QUEUED -> BUILDING -> READY and refuses to move a finished one', async () => {
    const d = await h.ok('vercel_create_deployment', { project: 'hello-world', branch: 'docs' });
    expect((await advance(d.id)).deployment.readyState).toBe('BUILDING');
    expect((await advance(d.id)).deployment.readyState).toBe('READY');
    const again = await http('POST', `${sandboxUrl()}/_sandbox/vercel/deployments/${d.id}/advance`, { body: {} });
    expect(again.status).toBe(409);
    const cancel = await h.ok('vercel_cancel_deployment', { id: d.id });
    expect(cancel).toMatchObject({ canceled: false, state: 'READY' });
  });
});
