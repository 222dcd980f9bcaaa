import { createHmac, randomBytes } from 'node:crypto';
import { request } from 'undici';
import type { Routes, SandboxRequest } from '../server.js';
import { VercelError, badRequest, inspectorUrl, planOf, scopeOf, type VercelDeployment, type VercelState, type VercelWebhook, type VercelWebhookDelivery } from './state.js';
import { hexId, isObject } from '../util.js';

/**
 * Vercel account webhooks: `POST/GET /v1/webhooks`, `GET/DELETE /v1/webhooks/:id` (the secret is in
 * the creation answer only), and their delivery: the envelope {id, type, createdAt, region, payload}
 * POSTed with `x-vercel-signature` = hex HMAC-SHA1 of the exact body, keyed with the webhook's secret.
 */

/** What a deployment went through, and the event names Vercel sends for it (current, then legacy integration name). */
export type DeploymentEvent = 'created' | 'succeeded' | 'ready' | 'error' | 'canceled';

const EVENT_NAMES: Record<DeploymentEvent, { current: string; legacy?: string }> = {
  created: { current: 'deployment.created', legacy: 'deployment' },
  succeeded: { current: 'deployment.succeeded' },
  ready: { current: 'deployment.ready', legacy: 'deployment-ready' },
  error: { current: 'deployment.error', legacy: 'deployment-error' },
  canceled: { current: 'deployment.canceled', legacy: 'deployment-canceled' },
};

/** Event names POST /v1/webhooks accepts (the @vercel/sdk CreateWebhookEvents enum, deployment and project ones, plus legacy names). */
export const WEBHOOK_EVENTS: readonly string[] = [
  'deployment.created',
  'deployment.succeeded',
  'deployment.ready',
  'deployment.error',
  'deployment.canceled',
  'deployment.promoted',
  'deployment.blocked',
  'deployment.build-requested',
  'deployment.cleanup',
  'deployment.rollback',
  'deployment.check-rerequested',
  'deployment.checks.failed',
  'deployment.checks.succeeded',
  'project.created',
  'project.removed',
  'project.renamed',
  'domain.created',
  'deployment',
  'deployment-ready',
  'deployment-error',
  'deployment-canceled',
  'deployment-prepared',
  'deployment-checks-completed',
  'project-created',
  'project-removed',
  'domain-created',
];

export interface DeliveryResult {
  eventId: string;
  type: string;
  webhookId: string;
  status: number | null;
  error: string | null;
}

function render(h: VercelWebhook) {
  const { secret: _secret, ...rest } = h;
  return rest;
}

/** Registers a webhook as POST /v1/webhooks does; `secret` may be given to stand in for an integration's Client Secret. */
export function registerWebhook(
  state: VercelState,
  input: { url: string; events: string[]; ownerId: string; projectIds?: string[]; secret?: string },
): VercelWebhook {
  const now = Date.now();
  const hook: VercelWebhook = {
    id: 'hook_' + hexId(`${input.url}/${now}/${++state.seq}`, 20),
    url: input.url,
    events: [...input.events],
    ownerId: input.ownerId,
    ...(input.projectIds?.length ? { projectIds: [...input.projectIds] } : {}),
    secret: input.secret ?? randomBytes(12).toString('hex'),
    createdAt: now,
    updatedAt: now,
  };
  state.webhooks.push(hook);
  return hook;
}

function findHook(state: VercelState, req: SandboxRequest): VercelWebhook {
  const { ownerId } = scopeOf(state, req);
  const hook = state.webhooks.find((h) => h.id === req.params.id && h.ownerId === ownerId);
  if (!hook) throw new VercelError(404, 'not_found', 'Webhook not found');
  return hook;
}

export function hookRoutes(state: VercelState): Routes {
  return {
    'POST /v1/webhooks': (req) => {
      const { ownerId } = scopeOf(state, req);
      const b = isObject(req.body) ? req.body : {};
      let url: URL | undefined;
      try {
        url = typeof b.url === 'string' ? new URL(b.url) : undefined;
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw badRequest('`url` must be an absolute http(s) URL.');
      if (!Array.isArray(b.events) || b.events.length === 0) throw badRequest('missing required property `events`.');
      const unknown = b.events.filter((e: unknown) => typeof e !== 'string' || !WEBHOOK_EVENTS.includes(e));
      if (unknown.length) throw badRequest(`\`events\` has unknown values: ${unknown.map(String).join(', ')}.`);
      if (b.projectIds !== undefined && (!Array.isArray(b.projectIds) || b.projectIds.some((p: unknown) => typeof p !== 'string'))) {
        throw badRequest('`projectIds` must be an array of project ids.');
      }
      const projectIds: string[] = b.projectIds ?? [];
      const missing = projectIds.filter((id) => !state.projects.some((p) => p.id === id && p.accountId === ownerId));
      if (missing.length) throw new VercelError(404, 'not_found', `Project not found: ${missing.join(', ')}`);
      // The sandbox's choice of answer: account webhooks are a Pro and Enterprise feature.
      if (planOf(state, ownerId) === 'hobby') {
        throw new VercelError(403, 'forbidden', 'Webhooks are available on the Pro and Enterprise plans. Upgrade to create one.');
      }
      const hook = registerWebhook(state, { url: url.href, events: b.events, ownerId, projectIds });
      return { status: 200, body: { ...render(hook), secret: hook.secret } };
    },
    'GET /v1/webhooks': (req) => {
      const { ownerId } = scopeOf(state, req);
      const projectId = req.query.get('projectId');
      const list = state.webhooks.filter((h) => h.ownerId === ownerId && (!projectId || !h.projectIds || h.projectIds.includes(projectId)));
      return { status: 200, body: list.map(render) };
    },
    'GET /v1/webhooks/:id': (req) => ({ status: 200, body: render(findHook(state, req)) }),
    'DELETE /v1/webhooks/:id': (req) => {
      const hook = findHook(state, req);
      state.webhooks.splice(state.webhooks.indexOf(hook), 1);
      return { status: 204 };
    },
  };
}

/** The body Vercel sends for a deployment event (vercel.com/docs/webhooks/webhooks-api). */
function envelope(state: VercelState, d: VercelDeployment, eventId: string, type: string, event: DeploymentEvent) {
  const team = state.teams.find((t) => t.id === d.ownerId);
  const slug = team?.slug ?? state.user.username;
  const inspector = inspectorUrl(state, d);
  return {
    id: eventId,
    type,
    createdAt: Date.now(),
    region: 'iad1',
    payload: {
      team: { id: team?.id ?? null },
      user: { id: state.user.id },
      ...(event === 'created' ? { alias: d.aliases } : {}),
      deployment: { id: d.uid, meta: d.meta, url: d.url, name: d.name, inspectorUrl: inspector },
      links: { deployment: inspector, project: `https://vercel.com/${slug}/${d.name}` },
      name: d.name,
      plan: planOf(state, d.ownerId),
      project: { id: d.projectId },
      regions: ['iad1'],
      target: d.target,
      type: 'LAMBDAS',
      url: d.url,
    },
  };
}

export function sign(secret: string, body: string): string {
  return createHmac('sha1', secret).update(body).digest('hex');
}

async function post(state: VercelState, delivery: VercelWebhookDelivery): Promise<DeliveryResult> {
  try {
    const res = await request(delivery.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-vercel-signature': delivery.signature, 'user-agent': 'Vercel-Webhooks (sandbox)' },
      body: delivery.body,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    await res.body.dump();
    delivery.status = res.statusCode;
  } catch (error) {
    delivery.error = String((error as Error).message ?? error);
  }
  return { eventId: delivery.eventId, type: delivery.type, webhookId: delivery.webhookId, status: delivery.status, error: delivery.error };
}

/** Tracks a delivery so `vercelWebhooksIdle` can wait for it. */
function track<T>(state: VercelState, promise: Promise<T>): Promise<T> {
  state.pending.add(promise);
  void promise.finally(() => state.pending.delete(promise));
  return promise;
}

/**
 * Calls every webhook of the deployment's owner that wants these events and covers its project,
 * one event after the other per webhook; resolves with what each call answered.
 */
export function emitDeploymentEvents(state: VercelState, d: VercelDeployment, events: DeploymentEvent[]): Promise<DeliveryResult[]> {
  const hooks = state.webhooks.filter((h) => h.ownerId === d.ownerId && (!h.projectIds || h.projectIds.includes(d.projectId)));
  const perHook = hooks.map(async (hook) => {
    const results: DeliveryResult[] = [];
    for (const event of events) {
      const names = EVENT_NAMES[event];
      const type = hook.events.includes(names.current) ? names.current : names.legacy && hook.events.includes(names.legacy) ? names.legacy : undefined;
      if (!type) continue;
      const eventId = 'evt_' + hexId(`${hook.id}/${d.uid}/${type}/${++state.seq}`, 24);
      const body = JSON.stringify(envelope(state, d, eventId, type, event));
      const delivery: VercelWebhookDelivery = { eventId, type, webhookId: hook.id, url: hook.url, body, signature: sign(hook.secret, body), status: null, error: null, at: Date.now() };
      state.deliveries.push(delivery);
      results.push(await post(state, delivery));
    }
    return results;
  });
  return track(state, Promise.all(perHook).then((r) => r.flat()));
}

/** Sends an earlier delivery again, byte for byte (same envelope id and signature), as Vercel's redelivery does. */
export function redeliver(state: VercelState, eventId: string): Promise<DeliveryResult> {
  const first = state.deliveries.find((x) => x.eventId === eventId);
  if (!first) throw new VercelError(404, 'not_found', `No delivery ${eventId}`);
  const again: VercelWebhookDelivery = { ...first, status: null, error: null, at: Date.now() };
  state.deliveries.push(again);
  return track(state, post(state, again));
}

/** Resolves once no webhook delivery is in flight. */
export async function vercelWebhooksIdle(state: VercelState): Promise<void> {
  while (state.pending.size) await Promise.allSettled([...state.pending]);
}

/** `POST /_sandbox/vercel/events/:id/redeliver`, `GET /_sandbox/vercel/deliveries`: sandbox-only, no token. */
export function hookControlRoutes(state: VercelState): Routes {
  return {
    'POST /_sandbox/vercel/events/:id/redeliver': async (req) => {
      if (!state.deliveries.some((x) => x.eventId === req.params.id)) {
        return { status: 404, body: { error: { code: 'not_found', message: `No delivery ${req.params.id}` } } };
      }
      return { status: 200, body: await redeliver(state, req.params.id!) };
    },
    'GET /_sandbox/vercel/deliveries': async () => {
      await vercelWebhooksIdle(state);
      return { status: 200, body: state.deliveries.map(({ body: _body, signature: _sig, ...rest }) => rest) };
    },
  };
}
