import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { InputError, ProviderError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import type { Account, Store, Trigger } from '../../store/types.js';
import type { SetupContext } from '../../contracts/triggers.js';

/**
 * One GitHub webhook per (account, target) — a repository or an organization — created by
 * Switchboard and shared by every trigger on that target. Its events are the union of what those
 * triggers need; the last trigger to leave deletes it.
 */

export interface HookTarget {
  /** Stored in hooks.target: "repo:owner/name" or "org:login", lower-cased (GitHub names ignore case). */
  key: string;
  /** Collection path at the provider: /repos/{o}/{r}/hooks or /orgs/{org}/hooks. */
  path: string;
  /** For people: "octo/hello" or "organization octo". */
  label: string;
}

export function repoTarget(fullName: string): HookTarget {
  const [owner, name] = fullName.split('/') as [string, string];
  return { key: `repo:${fullName.toLowerCase()}`, path: `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/hooks`, label: fullName };
}

export function orgTarget(org: string): HookTarget {
  return { key: `org:${org.toLowerCase()}`, path: `/orgs/${encodeURIComponent(org)}/hooks`, label: `organization ${org}` };
}

function targetFromKey(key: string): HookTarget {
  return key.startsWith('org:') ? orgTarget(key.slice(4)) : repoTarget(key.slice(5));
}

/** What each stored trigger on a hook needs it to be subscribed to. */
export type EventsOf = (trigger: Trigger) => string[];

/** The URL GitHub delivers to for one hook. */
export function deliveryUrl(publicUrl: string, hookId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/webhooks/github/${hookId}`;
}

// Two triggers created at once on one target must not both create a hook, in this process (a promise chain) or in
// another one sharing the store (a lease on the store's clock, so a holder that dies frees it after LEASE_MS).
const locks = new Map<string, Promise<void>>();
const HOLDER = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
const LEASE_MS = 60_000;

/** Waits for the target's lock, in this process and across processes; resolves to its release. */
async function hold(store: Store, key: string): Promise<() => Promise<void>> {
  const previous = locks.get(key) ?? Promise.resolve();
  let unlock!: () => void;
  const mine = new Promise<void>((resolve) => (unlock = resolve));
  locks.set(key, mine);
  const free = () => {
    if (locks.get(key) === mine) locks.delete(key);
    unlock();
  };
  await previous;
  const lease = `github-hook:${key}`;
  try {
    const deadline = Date.now() + LEASE_MS;
    while (!(await store.leases.acquire(lease, HOLDER, LEASE_MS))) {
      if (Date.now() > deadline) throw new Error('another Switchboard process has been changing this webhook for a minute; try again');
      await delay(50);
    }
  } catch (error) {
    free();
    throw error;
  }
  return async () => {
    try {
      await store.leases.release(lease, HOLDER);
    } finally {
      free();
    }
  };
}

async function serialized<T>(store: Store, key: string, fn: () => Promise<T>): Promise<T> {
  const release = await hold(store, key);
  try {
    return await fn();
  } finally {
    await release();
  }
}

const union = (...lists: string[][]) => [...new Set(lists.flat())].sort();
const sameSet = (a: string[], b: string[]) => a.length === b.length && union(a).join() === union(b).join();

function hookBody(url: string, secret: string, events: string[]) {
  return { name: 'web', active: true, events, config: { url, content_type: 'json', secret, insecure_ssl: '0' } };
}

interface RemoteHook {
  id: number;
  active?: boolean;
  events?: string[];
  config?: { url?: string; content_type?: string };
}

export interface JoinResult {
  hookId: string;
  events: string[];
  /** created: a new webhook; updated: its events or URL were changed; shared: already right. */
  change: 'created' | 'updated' | 'shared';
  /**
   * Frees the target, to be called once the trigger is stored (or given up): until then the hook is still held, so
   * no trigger leaving it elsewhere can find it unused and delete it under the new one.
   */
  release: () => Promise<void>;
}

/**
 * Creates the target's webhook at GitHub, or joins the existing one and widens its events.
 * The trigger is not stored yet, so its own events are passed in.
 */
export async function joinHook(ctx: SetupContext & { publicUrl: string }, target: HookTarget, events: string[], eventsOf: EventsOf): Promise<JoinResult> {
  const release = await hold(ctx.store, `${ctx.account.id} ${target.key}`);
  try {
    return { ...(await join(ctx, target, events, eventsOf)), release };
  } catch (error) {
    await release();
    throw error;
  }
}

async function join(ctx: SetupContext & { publicUrl: string }, target: HookTarget, events: string[], eventsOf: EventsOf): Promise<Omit<JoinResult, 'release'>> {
  const { store, api, account } = ctx;
  const existing = await store.hooks.find('github', account.id, target.key);
  if (!existing) {
    const { hook, secret } = await store.hooks.create({ provider: 'github', accountId: account.id, target: target.key, events });
    try {
      const remote = await createRemote(api, target, deliveryUrl(ctx.publicUrl, hook.id), secret, events);
      await store.hooks.update(hook.id, { remoteId: String(remote.id) });
    } catch (error) {
      await store.hooks.remove(hook.id);
      throw explain(error, target, account);
    }
    return { hookId: hook.id, events, change: 'created' };
  }

  const others = await store.hooks.triggers(existing.id);
  const wanted = union(events, ...others.map(eventsOf));
  const url = deliveryUrl(ctx.publicUrl, existing.id);
  const secret = await store.hooks.secret(existing.id);
  let change: JoinResult['change'] = 'shared';
  try {
    const remote = existing.remoteId
      ? await api.request({ method: 'GET', endpoint: `${target.path}/${existing.remoteId}`, acceptStatus: [404] })
      : undefined;
    if (!remote || remote.status === 404) {
      // Removed at GitHub (or never made it there): make it again, same URL and secret.
      const made = await createRemote(api, target, url, secret, wanted);
      await store.hooks.update(existing.id, { remoteId: String(made.id), events: wanted });
      return { hookId: existing.id, events: wanted, change: 'created' };
    }
    const current = remote.body as RemoteHook;
    const stale = current.active === false || current.config?.url !== url || current.config?.content_type !== 'json';
    if (stale || !sameSet(current.events ?? [], wanted)) {
      await api.patch(`${target.path}/${existing.remoteId}`, stale ? hookBody(url, secret, wanted) : { active: true, events: wanted });
      change = 'updated';
    }
  } catch (error) {
    throw explain(error, target, account);
  }
  await store.hooks.update(existing.id, { events: wanted });
  return { hookId: existing.id, events: wanted, change };
}

/**
 * Called before a trigger is removed: narrows the hook to what the other triggers still need, or
 * deletes it (at GitHub, where a 404 means already gone, and in the store) when none remain.
 */
export async function leaveHook(ctx: { trigger: Trigger; account: Account; api: Api; store: Store }, eventsOf: EventsOf): Promise<void> {
  const hookId = ctx.trigger.providerRefs.hookId;
  if (typeof hookId !== 'string') return;
  const hook = await ctx.store.hooks.get(hookId);
  if (!hook) return;
  const target = targetFromKey(hook.target);
  await serialized(ctx.store, `${hook.accountId} ${hook.target}`, async () => {
    const others = (await ctx.store.hooks.triggers(hook.id)).filter((t) => t.id !== ctx.trigger.id);
    if (others.length === 0) {
      if (hook.remoteId) await ctx.api.request({ method: 'DELETE', endpoint: `${target.path}/${hook.remoteId}`, acceptStatus: [404] });
      await ctx.store.hooks.remove(hook.id);
      return;
    }
    const wanted = union(...others.map(eventsOf));
    if (hook.remoteId && !sameSet(wanted, hook.events)) {
      await ctx.api.request({ method: 'PATCH', endpoint: `${target.path}/${hook.remoteId}`, body: { events: wanted }, acceptStatus: [404] });
    }
    await ctx.store.hooks.update(hook.id, { events: wanted });
  });
}

async function createRemote(api: Api, target: HookTarget, url: string, secret: string, events: string[]): Promise<RemoteHook> {
  return api.post<RemoteHook>(target.path, hookBody(url, secret, events));
}

/** GitHub says 404 both for "no such repository" and "not allowed to manage its hooks". */
function explain(error: unknown, target: HookTarget, account: Account): unknown {
  if (!(error instanceof ProviderError) || ![403, 404, 422].includes(error.status)) return error;
  const org = target.key.startsWith('org:');
  if (error.status === 422) return new InputError(`GitHub refused the webhook on ${target.label}: ${error.message}`, org ? 'config.org' : 'config.repo');
  const needs = org
    ? `an organization owner's token with the admin:org_hook scope (an OAuth app can only manage org hooks it created)`
    : 'admin rights on the repository and the admin:repo_hook (or repo) scope';
  return new InputError(
    `Could not set up the GitHub webhook on ${target.label} with account ${account.label}: ${error.message} ` +
      `Switchboard creates the webhook itself, which needs ${needs}. Check the ${org ? 'organization' : 'repository'} name, or use an account with those rights.`,
    org ? 'config.org' : 'config.repo',
  );
}
