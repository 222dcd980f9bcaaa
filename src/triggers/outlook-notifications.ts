import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route } from '../http/incoming.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/types.js';
import type { TriggerKind } from '../contracts/triggers.js';

export interface OutlookNotificationDeps {
  store: Store;
  kinds: Map<string, TriggerKind>;
  logger: Logger;
  /** Reads a notification's body within the listener's limits; undefined when it already answered (too large). */
  read(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined>;
  /** Stores that the trigger needs a poll (and starts it here when this process runs the runner). */
  requestPoll(triggerId: string): Promise<void>;
}

const PATH = /^\/webhooks\/outlook\/(trg_[0-9a-f]+)(\/lifecycle)?$/;

/** Lifecycle events the trigger's next poll must act on; `missed` needs only the poll itself (a delta pull). */
const NOTED_EVENTS = new Set(['reauthorizationRequired', 'subscriptionRemoved']);

/**
 * Graph change notifications and lifecycle notifications for outlook.new_email triggers, at
 * /webhooks/outlook/<trigger id> and /webhooks/outlook/<trigger id>/lifecycle. A notification is not an event:
 * once its clientState checks out, the route stores that the trigger needs a poll (unless its account needs reconnecting:
 * the poll at sign-in catches up) and answers 202, and that poll's
 * delta pull makes the events, deduplicated, filtered and checked for attachment size like any other.
 */
export function outlookNotificationRoutes(deps: OutlookNotificationDeps): Route[] {
  return [{ method: 'POST', path: '/webhooks/outlook/', public: true, handle: (req, res, url) => notification(deps, req, res, url) }];
}

async function notification(deps: OutlookNotificationDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const id = PATH.exec(url.pathname)?.[1];
  const trigger = id ? await deps.store.triggers.get(id) : undefined;
  // A deleted trigger's notifications are refused too; Graph stops sending them once the subscription is deleted.
  if (!trigger || !deps.kinds.get(trigger.kind)?.push) {
    res.setHeader('connection', 'close');
    return reply(res, 404, { error: 'unknown trigger' });
  }
  // Graph validates both URLs before creating the subscription: echo the token, decoded (a '+' is a space), as text.
  const token = url.searchParams.get('validationToken');
  if (token !== null) {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end(token);
    return;
  }
  const raw = await deps.read(req, res);
  if (!raw) return;
  const items = notificationsIn(raw);
  if (!items?.length) return reply(res, 400, { error: 'expected a JSON body with a "value" array of notifications' });

  const expected = (await deps.store.triggers.secrets(trigger.id)).clientState;
  const genuine = items.filter((n) => clientStateMatches(expected, n.clientState));
  const refused = items.length - genuine.length;
  try {
    if (refused) {
      deps.logger.warn('outlook notification refused: wrong clientState', { trigger: trigger.id, refused });
      await deps.store.triggers.note(trigger.id, { count: { key: 'refusedNotifications', by: refused } });
    }
    if (genuine.length === 0) return reply(res, 401, { error: 'clientState mismatch' });
    const lifecycle = genuine.filter((n) => NOTED_EVENTS.has(String(n.lifecycleEvent))).at(-1);
    if (lifecycle) {
      const note = { event: lifecycle.lifecycleEvent, subscriptionId: String(lifecycle.subscriptionId ?? ''), at: new Date().toISOString(), id: randomUUID() };
      await deps.store.triggers.note(trigger.id, { set: { lifecycle: note } });
    }
    // Paused: still 202, so Graph keeps the subscription; the poll at sign-in pulls what was notified meanwhile.
    const account = await deps.store.accounts.find(trigger.accountId);
    if (account?.status !== 'needs_reconnect') await deps.requestPoll(trigger.id);
  } catch (error) {
    deps.logger.error('outlook notification not stored', { trigger: trigger.id, message: (error as Error).message });
    return reply(res, 503, { error: 'The notification could not be stored; send it again.' });
  }
  reply(res, 202, { accepted: genuine.length });
}

function notificationsIn(raw: Buffer): Array<Record<string, unknown>> | undefined {
  try {
    const body = JSON.parse(raw.toString('utf8')) as { value?: unknown };
    if (!Array.isArray(body?.value)) return undefined;
    return body.value.filter((n): n is Record<string, unknown> => !!n && typeof n === 'object' && !Array.isArray(n));
  } catch {
    return undefined;
  }
}

/** Constant time: digests of equal length are compared, whatever the lengths of the values. */
function clientStateMatches(expected: string | undefined, given: unknown): boolean {
  if (!expected || typeof given !== 'string') return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(expected), digest(given));
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
