import { randomUUID } from 'node:crypto';
import type { GraphMessage, OutlookState } from './state.js';
import { mailbox, resolveFolderIn } from './mailbox.js';
import { GraphError, graphError } from './query.js';
import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import { isObject, originOf } from '../util.js';

/**
 * Graph change notifications at the Outlook sandbox: subscriptions to the messages of a folder (create with the
 * validation handshake, read, renew, reauthorize, delete), a change notification posted for each message created
 * in a subscribed folder, and lifecycle notifications on demand. Graph retries a notification that was not answered
 * 2xx for up to 4 hours; this stand-in sends each one once and records the answer.
 */

export type LifecycleEvent = 'reauthorizationRequired' | 'subscriptionRemoved' | 'missed';

export interface SbxPost {
  kind: 'validation' | 'change' | 'lifecycle';
  url: string;
  /** The answer's status; 0 when the endpoint could not be reached; null when the notification was dropped or withheld. */
  status: number | null;
  at: string;
  /** How long the endpoint took to answer. */
  tookMs?: number;
  /** The lifecycle event, or the id of the message a change notification is about. */
  about?: string;
}

export interface SbxSubscription {
  id: string;
  resource: string;
  changeType: string;
  notificationUrl: string;
  lifecycleNotificationUrl: string | null;
  expirationDateTime: string;
  clientState: string | null;
  /** Whose mailbox and which folder the resource names ('' for all of its messages). */
  userId: string;
  folderId: string;
  /** After a reauthorizationRequired lifecycle event: change notifications are withheld until a renewal or reauthorize. */
  needsReauthorization: boolean;
  posts: SbxPost[];
}

interface Side {
  subscriptions: Map<string, SbxSubscription>;
  /** Every subscription ever deleted or expired, with what was posted for it. */
  gone: SbxSubscription[];
  /** Change notifications still to be dropped instead of sent. */
  dropNext: number;
  inFlight: Set<Promise<unknown>>;
  /** The longest lifetime accepted: 4,230 minutes, the lower of the limits Graph has documented for messages. */
  maxMinutes: number;
  /** The longest lifetime granted, when less than asked for. */
  grantMs?: number;
}

const sides = new WeakMap<OutlookState, Side>();
const APPLICATION_ID = '24d3b144-21ae-4080-943f-7067b395b913';
const TENANT_ID = '84bd8158-6d4d-4958-8b9f-9d6445542f95';
const CHANGE_TYPES = new Set(['created', 'updated', 'deleted']);
const NOTIFICATION_TIMEOUT_MS = 3_000;
const VALIDATION_TIMEOUT_MS = 10_000;

/** The subscriptions of a sandbox and their notification traffic, kept beside its state. */
export function subscriptionSide(state: OutlookState): Side {
  let side = sides.get(state);
  if (!side) sides.set(state, (side = { subscriptions: new Map(), gone: [], dropNext: 0, inFlight: new Set(), maxMinutes: 4_230 }));
  return side;
}

/** Live subscriptions, expired ones removed first, as Graph deletes a subscription that was not renewed in time. */
export function liveSubscriptions(state: OutlookState): SbxSubscription[] {
  const side = subscriptionSide(state);
  for (const sub of side.subscriptions.values()) if (Date.parse(sub.expirationDateTime) <= Date.now()) forget(side, sub);
  return [...side.subscriptions.values()];
}

function forget(side: Side, sub: SbxSubscription): void {
  side.subscriptions.delete(sub.id);
  side.gone.push(sub);
}

/** Sandbox control: the next `count` change notifications are lost, as Graph drops some from a slow endpoint. */
export function dropNotifications(state: OutlookState, count = 1): void {
  subscriptionSide(state).dropNext += count;
}

/** Sandbox control: subscriptions made or renewed from now on expire after `ms` at most (undefined: when asked), as Graph may grant less than asked. */
export function grantSubscriptionsFor(state: OutlookState, ms: number | undefined): void {
  subscriptionSide(state).grantMs = ms;
}

/** Resolves once every notification under way has been answered. */
export async function settleNotifications(state: OutlookState): Promise<void> {
  const side = subscriptionSide(state);
  while (side.inFlight.size) await Promise.allSettled([...side.inFlight]);
}

/** Called where the stand-in creates a message: each live subscription to its folder gets a change notification. */
export function messageCreated(state: OutlookState, boxId: string, message: GraphMessage): void {
  const side = subscriptionSide(state);
  for (const sub of liveSubscriptions(state)) {
    if (sub.userId !== boxId || (sub.folderId && sub.folderId !== message.parentFolderId) || !sub.changeType.split(',').includes('created')) continue;
    const post: SbxPost = { kind: 'change', url: sub.notificationUrl, status: null, at: new Date().toISOString(), about: message.id };
    sub.posts.push(post);
    if (sub.needsReauthorization) continue;
    if (side.dropNext > 0) {
      side.dropNext--;
      continue;
    }
    const resource = `Users/${boxId}/Messages/${message.id}`;
    const notification = {
      subscriptionId: sub.id,
      subscriptionExpirationDateTime: sub.expirationDateTime,
      changeType: 'created',
      resource,
      resourceData: { '@odata.type': '#Microsoft.Graph.Message', '@odata.id': resource, '@odata.etag': `W/"${message.changeKey}"`, id: message.id },
      clientState: sub.clientState,
      tenantId: TENANT_ID,
    };
    track(side, send(post, { value: [notification] }));
  }
}

/** Sandbox control: Graph posts a lifecycle notification; subscriptionRemoved removes the subscription first. */
export async function sendLifecycle(state: OutlookState, subscriptionId: string, event: LifecycleEvent): Promise<SbxPost> {
  const side = subscriptionSide(state);
  const sub = liveSubscriptions(state).find((s) => s.id === subscriptionId);
  if (!sub) throw new GraphError(404, 'ResourceNotFound', `No live subscription ${subscriptionId}.`);
  if (!sub.lifecycleNotificationUrl) throw new GraphError(400, 'InvalidRequest', `Subscription ${subscriptionId} has no lifecycleNotificationUrl.`);
  if (event === 'subscriptionRemoved') forget(side, sub);
  if (event === 'reauthorizationRequired') sub.needsReauthorization = true;
  const post: SbxPost = { kind: 'lifecycle', url: sub.lifecycleNotificationUrl, status: null, at: new Date().toISOString(), about: event };
  sub.posts.push(post);
  const body = { value: [{ subscriptionId: sub.id, subscriptionExpirationDateTime: sub.expirationDateTime, tenantId: TENANT_ID, clientState: sub.clientState, lifecycleEvent: event }] };
  await track(side, send(post, body));
  return post;
}

function track(side: Side, p: Promise<unknown>): Promise<unknown> {
  side.inFlight.add(p);
  void p.finally(() => side.inFlight.delete(p));
  return p;
}

async function send(post: SbxPost, body: unknown): Promise<void> {
  const started = Date.now();
  try {
    const res = await fetch(post.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(NOTIFICATION_TIMEOUT_MS),
    });
    await res.arrayBuffer();
    post.status = res.status;
  } catch {
    post.status = 0;
  }
  post.tookMs = Date.now() - started;
}

const invalid = (message: string) => new GraphError(400, 'InvalidRequest', message);

/** https, or http to this machine only: the sandbox's callers listen on loopback. */
function checkUrl(value: unknown, field: string): string {
  if (typeof value !== 'string' || !value) throw invalid(`${field} is required.`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(`${field} '${value}' is not a valid URL.`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw invalid(`${field} must use the https scheme.`);
  return value;
}

function checkExpiration(side: Side, value: unknown): string {
  const at = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(at)) throw invalid('expirationDateTime is required: an ISO 8601 date and time.');
  if (at <= Date.now()) throw invalid('Subscription expiration must be in the future.');
  if (at > Date.now() + side.maxMinutes * 60_000) throw invalid(`Subscription expiration can only be ${side.maxMinutes} minutes in the future.`);
  return new Date(side.grantMs === undefined ? at : Math.min(at, Date.now() + side.grantMs)).toISOString();
}

const RESOURCE = /^\/?(?:me|users\/([^/]+))\/(?:mailfolders(?:\('((?:[^']|'')*)'\)|\/([^/()]+))\/)?messages$/i;

/** Whose messages, in which folder, a resource names: `me/mailFolders('inbox')/messages` and the like. */
function parseResource(state: OutlookState, resource: unknown): { userId: string; folderId: string } {
  const m = typeof resource === 'string' ? RESOURCE.exec(resource) : null;
  if (!m) throw invalid(`Resource '${String(resource)}' is not supported: use me/mailFolders('{id}')/messages or users/{id}/mailFolders('{id}')/messages.`);
  const box = mailbox(state, m[1] ? decodeURIComponent(m[1]) : state.user.id);
  const folder = m[2] !== undefined ? m[2].replace(/''/g, "'") : m[3];
  return { userId: box.id, folderId: folder === undefined ? '' : resolveFolderIn(box, decodeURIComponent(folder)).id };
}

/** Graph's handshake: the token goes out form-encoded in the query; the endpoint must echo it decoded, as text, in 10 s. */
async function validate(sub: SbxSubscription, url: string): Promise<boolean> {
  // Spaces, as in Graph's own tokens, and a '+': only a query-string decoding gives both back.
  const token = `Validation: Testing client application reachability for subscription Request-Id: ${randomUUID()} +1`;
  const post: SbxPost = { kind: 'validation', url, status: null, at: new Date().toISOString() };
  sub.posts.push(post);
  try {
    const target = `${url}${url.includes('?') ? '&' : '?'}${new URLSearchParams({ validationToken: token })}`;
    const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'text/plain; charset=utf-8' }, redirect: 'manual', signal: AbortSignal.timeout(VALIDATION_TIMEOUT_MS) });
    const text = await res.text();
    post.status = res.status;
    return res.status === 200 && (res.headers.get('content-type') ?? '').startsWith('text/plain') && text === token;
  } catch {
    post.status = 0;
    return false;
  }
}

function render(req: SandboxRequest, sub: SbxSubscription): Record<string, unknown> {
  return {
    '@odata.context': `${originOf(req)}/v1.0/$metadata#subscriptions/$entity`,
    id: sub.id,
    resource: sub.resource,
    applicationId: APPLICATION_ID,
    changeType: sub.changeType,
    clientState: sub.clientState,
    notificationUrl: sub.notificationUrl,
    notificationQueryOptions: null,
    lifecycleNotificationUrl: sub.lifecycleNotificationUrl,
    expirationDateTime: sub.expirationDateTime,
    creatorId: sub.userId,
    includeResourceData: false,
    latestSupportedTlsVersion: 'v1_2',
    encryptionCertificate: null,
    encryptionCertificateId: null,
    notificationUrlAppId: null,
  };
}

async function create(state: OutlookState, req: SandboxRequest): Promise<SandboxResponse> {
  const side = subscriptionSide(state);
  const b = req.body;
  if (!isObject(b)) throw invalid('Send the subscription as a JSON object.');
  const changeType = typeof b.changeType === 'string' ? b.changeType : '';
  if (!changeType || changeType.split(',').some((c) => !CHANGE_TYPES.has(c.trim()))) throw invalid("changeType must be 'created', 'updated' or 'deleted', or a comma-separated list of them.");
  const notificationUrl = checkUrl(b.notificationUrl, 'notificationUrl');
  const lifecycleNotificationUrl = b.lifecycleNotificationUrl === undefined ? null : checkUrl(b.lifecycleNotificationUrl, 'lifecycleNotificationUrl');
  const { userId, folderId } = parseResource(state, b.resource);
  const expirationDateTime = checkExpiration(side, b.expirationDateTime);
  if (b.clientState !== undefined && (typeof b.clientState !== 'string' || b.clientState.length > 128)) throw invalid('clientState must be a string of at most 128 characters.');
  if (b.includeResourceData === true) throw invalid('includeResourceData needs encryptionCertificate and encryptionCertificateId.');
  const sub: SbxSubscription = {
    id: randomUUID(),
    resource: String(b.resource),
    changeType: changeType.split(',').map((c) => c.trim()).join(','),
    notificationUrl,
    lifecycleNotificationUrl,
    expirationDateTime,
    clientState: (b.clientState as string | undefined) ?? null,
    userId,
    folderId,
    needsReauthorization: false,
    posts: [],
  };
  for (const url of [notificationUrl, ...(lifecycleNotificationUrl ? [lifecycleNotificationUrl] : [])]) {
    if (!(await validate(sub, url))) {
      side.gone.push(sub);
      return graphError(400, 'ValidationError', `Subscription validation request failed. Notification endpoint must respond with 200 OK to validation request. (${url})`);
    }
  }
  side.subscriptions.set(sub.id, sub);
  return { status: 201, body: render(req, sub) };
}

function find(state: OutlookState, id: string): SbxSubscription {
  const sub = liveSubscriptions(state).find((s) => s.id === id);
  if (!sub) throw new GraphError(404, 'ResourceNotFound', 'The object was not found.');
  return sub;
}

/** Subscription routes (behind the Graph auth middleware). */
export function subscriptionRoutes(state: OutlookState): Routes {
  return {
    'POST /subscriptions': (req) => create(state, req),
    'GET /subscriptions': (req) => ({ status: 200, body: { value: liveSubscriptions(state).map((s) => render(req, s)) } }),
    'GET /subscriptions/:id': (req) => ({ status: 200, body: render(req, find(state, req.params.id!)) }),
    'PATCH /subscriptions/:id': (req) => {
      const sub = find(state, req.params.id!);
      const b = isObject(req.body) ? req.body : {};
      const other = Object.keys(b).find((k) => k !== 'expirationDateTime' && k !== 'notificationUrl');
      if (other) throw invalid(`Only expirationDateTime and notificationUrl can be updated, not ${other}.`);
      sub.expirationDateTime = checkExpiration(subscriptionSide(state), b.expirationDateTime);
      if (b.notificationUrl !== undefined) sub.notificationUrl = checkUrl(b.notificationUrl, 'notificationUrl');
      sub.needsReauthorization = false;
      return { status: 200, body: render(req, sub) };
    },
    'POST /subscriptions/:id/reauthorize': (req) => {
      find(state, req.params.id!).needsReauthorization = false;
      return { status: 204 };
    },
    'DELETE /subscriptions/:id': (req) => {
      forget(subscriptionSide(state), find(state, req.params.id!));
      return { status: 204 };
    },
  };
}

/** Sandbox-only control routes: a lifecycle notification on demand, dropping notifications, and what was posted. */
export function subscriptionControlRoutes(state: OutlookState): Routes {
  const side = () => subscriptionSide(state);
  return {
    'POST /_sandbox/outlook/subscriptions/:id/lifecycle': async (req) => {
      const event = req.body?.lifecycleEvent;
      if (!['reauthorizationRequired', 'subscriptionRemoved', 'missed'].includes(event)) {
        return graphError(400, 'invalidRequest', 'Send {"lifecycleEvent": "reauthorizationRequired" | "subscriptionRemoved" | "missed"}.');
      }
      try {
        return { status: 200, body: await sendLifecycle(state, req.params.id!, event) };
      } catch (error) {
        if (error instanceof GraphError) return graphError(error.status, error.code, error.message);
        throw error;
      }
    },
    'POST /_sandbox/outlook/drop-notifications': (req) => {
      dropNotifications(state, Number(req.body?.count ?? 1) || 1);
      return { status: 204 };
    },
    'GET /_sandbox/outlook/subscriptions': () => ({ status: 200, body: { live: liveSubscriptions(state), gone: side().gone } }),
  };
}
