import { randomBytes } from 'node:crypto';
import type { Api } from '../../http/client.js';
import type { Account, Trigger } from '../../store/types.js';
import type { PushContext, PushTiming, TriggerMode } from '../../contracts/triggers.js';

/**
 * Graph change notifications for a new-email trigger. The trigger's claimed poll keeps its subscription: it
 * subscribes, renews before expiry, answers lifecycle notifications and removes a subscription it no longer wants,
 * so one instance at a time does it, whichever is alive. A notification only asks for that poll (a delta pull),
 * which stays the one source of events.
 */

export const DEFAULT_PUSH_TIMING: PushTiming = {
  // Under 4,230 minutes, the lower of the two maximums Graph has documented for messages (the other is 10,080).
  lifetimeMs: 4_200 * 60_000,
  renewBeforeMs: 24 * 60 * 60_000,
  retryMs: 60 * 60_000,
};

/** What the trigger's state keeps of its subscription (under `push`); the clientState is in its encrypted secrets. */
export interface PushState {
  mode: 'push' | 'poll';
  /** Why polling, or what went wrong while pushing; null when all is well. */
  reason: string | null;
  subscriptionId?: string;
  expiresAt?: string;
  /** When to renew: renewBeforeMs before expiry, or halfway to it when Graph granted less than twice that. */
  renewAt?: string;
  /** The URL the subscription posts to: a subscription made under another public URL is replaced. */
  notificationUrl?: string;
  /** After a refusal: when to ask Graph again. */
  retryAt?: string;
  /** The id of the last lifecycle note acted on. */
  lifecycleSeen?: string;
}

/** A lifecycle notification, as the notification route notes it in providerRefs.lifecycle for the next poll. */
export interface LifecycleNote {
  event: 'reauthorizationRequired' | 'subscriptionRemoved';
  subscriptionId: string;
  at: string;
  /** Each note's own id: the poll acts on a note once. */
  id: string;
}

export interface WatchedFolder {
  folder: string;
  mailbox?: string;
  pollMs: number;
  backstopMs: number;
}

/** Where Graph posts a trigger's change notifications, and its lifecycle notifications. */
export function notificationUrls(publicUrl: string, triggerId: string): { notificationUrl: string; lifecycleNotificationUrl: string } {
  const base = `${publicUrl.replace(/\/+$/, '')}/webhooks/outlook/${triggerId}`;
  return { notificationUrl: base, lifecycleNotificationUrl: `${base}/lifecycle` };
}

/** The subscribed resource: new messages of one folder, of the signed-in user or of a shared mailbox. */
export function subscriptionResource(watched: Pick<WatchedFolder, 'folder' | 'mailbox'>): string {
  const box = watched.mailbox ? `users/${encodeURIComponent(watched.mailbox).replace(/%40/g, '@')}` : 'me';
  return `${box}/mailFolders('${watched.folder.replace(/'/g, "''")}')/messages`;
}

interface GraphSubscription {
  id: string;
  expirationDateTime?: string;
}

export async function maintainSubscription(ctx: PushContext, watched: WatchedFolder): Promise<{ state: Record<string, unknown>; nextPollMs: number }> {
  const timing = { ...DEFAULT_PUSH_TIMING, ...ctx.timing };
  const previous = ctx.state.push as PushState | undefined;
  const polling = (push: PushState, nextPollMs = watched.pollMs) => ({ state: { ...ctx.state, push }, nextPollMs });
  const pushing = (push: PushState) =>
    polling(push, Math.max(1_000, Math.min(watched.backstopMs, renewalDue(push, timing) - ctx.now)));

  if (!ctx.publicUrl) {
    if (previous?.subscriptionId) await removeSubscription(ctx.api, previous.subscriptionId).catch(() => undefined);
    return polling({ mode: 'poll', reason: 'No public URL (serve --public-url), so Graph cannot notify this server.' });
  }
  const urls = notificationUrls(ctx.publicUrl, ctx.trigger.id);
  let current = previous?.subscriptionId && previous.notificationUrl === urls.notificationUrl ? previous : undefined;
  if (previous?.subscriptionId && !current) await removeSubscription(ctx.api, previous.subscriptionId).catch(() => undefined);
  const lifecycle = ctx.trigger.providerRefs.lifecycle as LifecycleNote | undefined;
  const fresh = lifecycle && lifecycle.id !== previous?.lifecycleSeen ? lifecycle : undefined;
  const seen = { lifecycleSeen: lifecycle?.id ?? previous?.lifecycleSeen };

  try {
    // Removed at Graph: subscribe again. Reauthorization required: a renewal reauthorizes as well.
    if (current && fresh?.event === 'subscriptionRemoved' && fresh.subscriptionId === current.subscriptionId) current = undefined;
    // A renewal also tells whether Graph still has the subscription, after a pause in which it may have lapsed.
    const due =
      current && (ctx.recovering || fresh?.subscriptionId === current.subscriptionId || current.reason || ctx.now >= renewalDue(current, timing));
    if (current && !due) return pushing({ ...current, ...seen });
    if (current) {
      const renewed = await renew(ctx, current, timing);
      if (renewed) return pushing({ ...renewed, ...seen });
      current = undefined; // Graph no longer has it
    }
    const refusedLately = !previous?.subscriptionId && previous?.retryAt && ctx.now < Date.parse(previous.retryAt) && previous.notificationUrl === urls.notificationUrl;
    if (refusedLately) return polling({ ...previous, ...seen });
    return pushing({ ...(await subscribe(ctx, watched, urls, timing)), ...seen });
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (current && Date.parse(current.expiresAt!) > ctx.now) {
      // Still subscribed for now: try again at the next poll, a poll interval away.
      return polling({ ...current, ...seen, reason: `Renewing the subscription failed (${message}); trying again.` });
    }
    return polling({
      mode: 'poll',
      reason: `Graph refused the subscription: ${message}`,
      retryAt: new Date(ctx.now + timing.retryMs).toISOString(),
      notificationUrl: urls.notificationUrl,
      ...seen,
    });
  }
}

async function subscribe(ctx: PushContext, watched: WatchedFolder, urls: ReturnType<typeof notificationUrls>, timing: PushTiming): Promise<PushState> {
  const secrets = await ctx.store.triggers.secrets(ctx.trigger.id);
  let clientState = secrets.clientState;
  if (!clientState) {
    clientState = randomBytes(32).toString('base64url');
    // Stored before Graph is asked: its first notification may arrive before this poll commits.
    await ctx.store.triggers.setSecrets(ctx.trigger.id, { ...secrets, clientState });
  }
  const requested = new Date(ctx.now + timing.lifetimeMs).toISOString();
  const made = await ctx.api.post<GraphSubscription>('/subscriptions', {
    changeType: 'created',
    notificationUrl: urls.notificationUrl,
    lifecycleNotificationUrl: urls.lifecycleNotificationUrl,
    resource: subscriptionResource(watched),
    expirationDateTime: requested,
    clientState,
  });
  const expiresAt = made.expirationDateTime ?? requested;
  return { mode: 'push', reason: null, subscriptionId: made.id, expiresAt, renewAt: renewalTime(ctx.now, expiresAt, timing), notificationUrl: urls.notificationUrl };
}

/** PATCH renews, and reauthorizes; undefined when Graph no longer has the subscription. */
async function renew(ctx: PushContext, current: PushState, timing: PushTiming): Promise<PushState | undefined> {
  const requested = new Date(ctx.now + timing.lifetimeMs).toISOString();
  const res = await ctx.api.request({
    method: 'PATCH',
    endpoint: `/subscriptions/${encodeURIComponent(current.subscriptionId!)}`,
    body: { expirationDateTime: requested },
    acceptStatus: [404],
  });
  if (res.status === 404) return undefined;
  const expiresAt = (res.body as GraphSubscription).expirationDateTime ?? requested;
  return { ...current, reason: null, expiresAt, renewAt: renewalTime(ctx.now, expiresAt, timing) };
}

function renewalTime(now: number, expiresAt: string, timing: PushTiming): string {
  const expiry = Date.parse(expiresAt);
  return new Date(expiry - Math.min(timing.renewBeforeMs, Math.max(0, expiry - now) / 2)).toISOString();
}

function renewalDue(push: PushState, timing: PushTiming): number {
  return push.renewAt ? Date.parse(push.renewAt) : Date.parse(push.expiresAt!) - timing.renewBeforeMs;
}

export async function removeSubscription(api: Api, subscriptionId: string): Promise<void> {
  await api.request({ method: 'DELETE', endpoint: `/subscriptions/${encodeURIComponent(subscriptionId)}`, acceptStatus: [404] });
}

/** The trigger's mode for triggers_list, from what its last poll kept and its account's status. */
export function pushMode(trigger: Trigger, account: Account | undefined, watched: WatchedFolder): TriggerMode {
  const refused = Number(trigger.providerRefs.refusedNotifications ?? 0);
  const push = trigger.state.push as PushState | undefined;
  const every = (ms: number) => `${Math.round(ms / 1000)} s`;
  if (account?.status === 'needs_reconnect') {
    return {
      mode: 'paused',
      reason: 'The account needs reconnecting: Graph notifications are acknowledged but wait, and polling and the subscription resume as soon as it is signed in again.',
      refused,
    };
  }
  if (push?.mode === 'push') {
    const renewal = push.reason ? ` ${push.reason}` : ' It is renewed before then.';
    return {
      mode: 'push',
      reason: `Graph change notifications, subscription ${push.subscriptionId} until ${push.expiresAt}.${renewal} A delta poll every ${every(watched.backstopMs)} catches anything a notification missed.`,
      refused,
    };
  }
  if (push) {
    const retry = push.retryAt ? ` Graph is asked again after ${push.retryAt}.` : '';
    return { mode: 'poll', reason: `${push.reason} Polled every ${every(watched.pollMs)}.${retry}`, refused };
  }
  return { mode: 'poll', reason: `Polled every ${every(watched.pollMs)}; a server with a public URL subscribes to Graph change notifications at its next poll.`, refused };
}
