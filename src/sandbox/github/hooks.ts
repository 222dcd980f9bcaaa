import { createHmac, randomUUID } from 'node:crypto';
import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import type { GhRepo, GithubState } from './state.js';
import { ctxOf, findRepo, list, notFound, nowIso, renderRepo, roleOf, simpleUser, validationFailed, type Ctx } from './render.js';
import { isObject } from '../util.js';

/**
 * Webhooks at the GitHub sandbox: repository and organization hooks (create, read, edit, delete,
 * ping, deliveries, redeliver), and signed deliveries to every hook subscribed to an event, as
 * GitHub sends them. The polled endpoints of the kinds without a webhook are in polled.ts.
 */

export type HookTarget = { owner: string; repo: string } | { org: string };

export interface SbxDelivery {
  id: number;
  guid: string;
  delivered_at: string;
  redelivery: boolean;
  duration: number;
  status: string;
  status_code: number;
  event: string;
  action: string | null;
  installation_id: number | null;
  repository_id: number | null;
  request: { headers: Record<string, string>; payload: unknown };
  response: { body: string };
}

export interface SbxHook {
  id: number;
  target: HookTarget;
  active: boolean;
  events: string[];
  config: { url: string; content_type: 'json' | 'form'; insecure_ssl: string; secret?: string };
  created_at: string;
  updated_at: string;
  last_response: { code: number | null; status: string; message: string | null };
  deliveries: SbxDelivery[];
}

export interface SbxThread {
  id: string;
  login: string;
  repo: string;
  reason: string;
  unread: boolean;
  updated_at: string;
  subject: { title: string; type: string; number: number };
}

interface Side {
  hooks: SbxHook[];
  threads: SbxThread[];
  inFlight: Set<Promise<unknown>>;
  /** Seconds GitHub asks notification pollers to wait (X-Poll-Interval). */
  pollIntervalSeconds: number;
}

const sides = new WeakMap<GithubState, Side>();

/** Webhooks, notification threads and the in-flight deliveries of a sandbox, kept beside its state. */
export function hookSide(state: GithubState): Side {
  let side = sides.get(state);
  if (!side) sides.set(state, (side = { hooks: [], threads: [], inFlight: new Set(), pollIntervalSeconds: 60 }));
  return side;
}

/** Webhook event names GitHub accepts in `events` (no `gist`: there is no gist webhook). */
const EVENTS = new Set(
  ('* branch_protection_configuration branch_protection_rule check_run check_suite code_scanning_alert commit_comment create custom_property ' +
    'custom_property_values delete dependabot_alert deploy_key deployment deployment_protection_rule deployment_review deployment_status discussion ' +
    'discussion_comment fork gollum issue_comment issues label member membership merge_group meta milestone org_block organization package ' +
    'page_build personal_access_token_request project project_card project_column projects_v2 projects_v2_item projects_v2_status_update public ' +
    'pull_request pull_request_review pull_request_review_comment pull_request_review_thread push registry_package release repository ' +
    'repository_advisory repository_dispatch repository_import repository_ruleset repository_vulnerability_alert secret_scanning_alert ' +
    'secret_scanning_alert_location security_advisory security_and_analysis sponsorship star status team team_add watch workflow_dispatch ' +
    'workflow_job workflow_run').split(' '),
);

const DOC = 'https://docs.github.com/rest/repos/webhooks';
const ORG_DOC = 'https://docs.github.com/rest/orgs/webhooks';
const isOrg = (t: HookTarget): t is { org: string } => 'org' in t;
export const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function renderHook(ctx: Ctx, h: SbxHook) {
  const base = isOrg(h.target) ? `${ctx.api}/orgs/${h.target.org}/hooks/${h.id}` : `${ctx.api}/repos/${h.target.owner}/${h.target.repo}/hooks/${h.id}`;
  const config = { content_type: h.config.content_type, insecure_ssl: h.config.insecure_ssl, url: h.config.url, ...(h.config.secret ? { secret: '********' } : {}) };
  const common = { id: h.id, name: 'web', active: h.active, events: h.events, config, updated_at: h.updated_at, created_at: h.created_at };
  return isOrg(h.target)
    ? { ...common, url: base, ping_url: `${base}/pings`, deliveries_url: `${base}/deliveries`, type: 'Organization' }
    : { type: 'Repository', ...common, url: base, test_url: `${base}/test`, ping_url: `${base}/pings`, deliveries_url: `${base}/deliveries`, last_response: h.last_response };
}

const renderDelivery = (d: SbxDelivery, full: boolean) => {
  const { request, response, ...summary } = d;
  return full ? { ...summary, url: '', request: { headers: request.headers, payload: request.payload }, response: { headers: {}, payload: response.body } } : summary;
};

/** Signs and POSTs one delivery; records it on the hook as GitHub's delivery log does. */
async function deliver(state: GithubState, hook: SbxHook, event: string, payload: unknown, redeliverOf?: SbxDelivery): Promise<SbxDelivery> {
  const guid = redeliverOf?.guid ?? randomUUID();
  const json = JSON.stringify(payload);
  const body = hook.config.content_type === 'json' ? json : `payload=${encodeURIComponent(json)}`;
  const target = hook.target;
  const headers: Record<string, string> = {
    'content-type': hook.config.content_type === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
    'user-agent': 'GitHub-Hookshot/sbx0001',
    'x-github-event': event,
    'x-github-delivery': guid,
    'x-github-hook-id': String(hook.id),
    'x-github-hook-installation-target-type': isOrg(target) ? 'organization' : 'repository',
    'x-github-hook-installation-target-id': String(isOrg(target) ? (state.users[target.org]?.id ?? 0) : (state.repos.find((r) => same(r.owner, target.owner) && same(r.name, target.repo))?.id ?? 0)),
  };
  if (hook.config.secret) {
    headers['x-hub-signature'] = 'sha1=' + createHmac('sha1', hook.config.secret).update(body).digest('hex');
    headers['x-hub-signature-256'] = 'sha256=' + createHmac('sha256', hook.config.secret).update(body).digest('hex');
  }
  const started = Date.now();
  let code = 0;
  let text = '';
  try {
    const res = await fetch(hook.config.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    code = res.status;
    text = (await res.text()).slice(0, 2000);
  } catch (error) {
    text = `failed to connect: ${(error as Error).message}`;
  }
  const ok = code >= 200 && code < 300;
  const d: SbxDelivery = {
    id: ++state.seq,
    guid,
    delivered_at: new Date(started).toISOString().replace(/\.\d+Z$/, 'Z'),
    redelivery: !!redeliverOf,
    duration: (Date.now() - started) / 1000,
    status: ok ? 'OK' : code ? `Invalid HTTP Response: ${code}` : 'We couldn’t deliver this payload: failed to connect to host',
    status_code: code,
    event,
    action: isObject(payload) && typeof payload.action === 'string' ? payload.action : null,
    installation_id: null,
    repository_id: isObject(payload) && isObject(payload.repository) && typeof payload.repository.id === 'number' ? payload.repository.id : null,
    request: { headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, k.startsWith('x-hub-signature') ? '********' : v])), payload },
    response: { body: text },
  };
  hook.deliveries.unshift(d);
  hook.last_response = { code: code || null, status: ok ? 'active' : 'misconfigured', message: ok ? 'OK' : d.status };
  return d;
}

function track<T>(state: GithubState, p: Promise<T>): Promise<T> {
  const side = hookSide(state);
  side.inFlight.add(p);
  void p.finally(() => side.inFlight.delete(p)).catch(() => undefined);
  return p;
}

/** Resolves once every delivery under way (pings included) has been answered. */
export async function settleWebhooks(state: GithubState): Promise<void> {
  while (hookSide(state).inFlight.size) await Promise.allSettled([...hookSide(state).inFlight]);
}

/**
 * Delivers `event` to every active hook subscribed to it (or to "*"): for a repository, its own
 * hooks and the hooks of the organization that owns it; for an organization, the org's hooks.
 */
export async function emitWebhook(state: GithubState, target: HookTarget, event: string, payload: Record<string, unknown>): Promise<SbxDelivery[]> {
  const hooks = hookSide(state).hooks.filter((h) => {
    if (!h.active || !(h.events.includes(event) || h.events.includes('*'))) return false;
    if (isOrg(h.target)) return same(h.target.org, isOrg(target) ? target.org : target.owner);
    return !isOrg(target) && same(h.target.owner, target.owner) && same(h.target.repo, target.repo);
  });
  return track(state, Promise.all(hooks.map((h) => deliver(state, h, event, payload))));
}

function ping(ctx: Ctx, hook: SbxHook, repo?: GhRepo): Promise<SbxDelivery> {
  const payload = {
    zen: 'Design for failure.',
    hook_id: hook.id,
    hook: renderHook(ctx, hook),
    ...(repo ? { repository: renderRepo(ctx, repo) } : {}),
    ...(isOrg(hook.target) ? { organization: simpleUser(ctx, hook.target.org) } : {}),
    sender: simpleUser(ctx, ctx.state.login),
  };
  return track(ctx.state, deliver(ctx.state, hook, 'ping', payload));
}

function hookInput(body: any, existing: SbxHook | undefined, doc: string, org: boolean): Pick<SbxHook, 'active' | 'events' | 'config'> {
  const b = isObject(body) ? body : {};
  if (b.name !== undefined && b.name !== 'web') throw validationFailed([{ resource: 'Hook', code: 'custom', message: 'Name must be "web"' }], doc);
  if (org && !existing && (b.name === undefined || !isObject(b.config))) throw validationFailed([{ resource: 'Hook', code: 'missing_field', field: b.name === undefined ? 'name' : 'config' }], doc);
  let events: string[] = Array.isArray(b.events) ? b.events : existing?.events ?? ['push'];
  if (Array.isArray(b.add_events)) events = [...new Set([...events, ...b.add_events])];
  if (Array.isArray(b.remove_events)) events = events.filter((e) => !b.remove_events.includes(e));
  const bad = events.find((e) => typeof e !== 'string' || !EVENTS.has(e));
  if (bad !== undefined) throw validationFailed([{ resource: 'Hook', code: 'invalid', field: 'events', message: `${JSON.stringify(bad)} is not a valid event name` }], doc);
  const c = isObject(b.config) ? b.config : {};
  const url = typeof c.url === 'string' ? c.url : existing?.config.url;
  if (!url) throw validationFailed([{ resource: 'Hook', code: 'custom', message: 'Config must contain URL for webhooks' }], doc);
  if (!/^https?:\/\/[^\s]+$/i.test(url)) throw validationFailed([{ resource: 'Hook', code: 'custom', message: 'Config url is not supported' }], doc);
  const contentType = c.content_type ?? existing?.config.content_type ?? 'form';
  if (contentType !== 'json' && contentType !== 'form') throw validationFailed([{ resource: 'Hook', code: 'invalid', field: 'content_type' }], doc);
  const secret = typeof c.secret === 'string' && c.secret ? c.secret : existing?.config.secret;
  return {
    active: typeof b.active === 'boolean' ? b.active : (existing?.active ?? true),
    events: [...new Set(events)],
    config: { url, content_type: contentType, insecure_ssl: String(c.insecure_ssl ?? existing?.config.insecure_ssl ?? '0'), ...(secret ? { secret } : {}) },
  };
}

/** The hooks API of one repository or organization; 404 unless the user may administer it, as GitHub answers. */
function hookApi(state: GithubState, resolve: (req: SandboxRequest) => { ctx: Ctx; target: HookTarget; repo?: GhRepo }, doc: string) {
  const side = () => hookSide(state);
  const onTarget = (t: HookTarget) => side().hooks.filter((h) => JSON.stringify(h.target).toLowerCase() === JSON.stringify(t).toLowerCase());
  const one = (req: SandboxRequest) => {
    const at = resolve(req);
    const hook = onTarget(at.target).find((h) => String(h.id) === req.params.hook_id);
    if (!hook) throw notFound(doc);
    return { ...at, hook };
  };
  const org = doc === ORG_DOC;
  return {
    list: (req: SandboxRequest) => {
      const { ctx, target } = resolve(req);
      return list(req, onTarget(target), (h) => renderHook(ctx, h));
    },
    create: (req: SandboxRequest): SandboxResponse => {
      const { ctx, target, repo } = resolve(req);
      const input = hookInput(req.body, undefined, doc, org);
      if (onTarget(target).some((h) => h.config.url === input.config.url)) {
        throw validationFailed([{ resource: 'Hook', code: 'custom', message: `Hook already exists on this ${org ? 'organization' : 'repository'}` }], doc);
      }
      const when = nowIso();
      const hook: SbxHook = { id: ++state.seq, target, ...input, created_at: when, updated_at: when, last_response: { code: null, status: 'unused', message: null }, deliveries: [] };
      side().hooks.push(hook);
      // GitHub pings a new hook right after creating it.
      setImmediate(() => void ping(ctx, hook, repo));
      return { status: 201, body: renderHook(ctx, hook), headers: { location: renderHook(ctx, hook).url } };
    },
    get: (req: SandboxRequest) => {
      const { ctx, hook } = one(req);
      return { status: 200, body: renderHook(ctx, hook) };
    },
    update: (req: SandboxRequest) => {
      const { ctx, hook } = one(req);
      Object.assign(hook, hookInput(req.body, hook, doc, org), { updated_at: nowIso() });
      return { status: 200, body: renderHook(ctx, hook) };
    },
    remove: (req: SandboxRequest): SandboxResponse => {
      const { hook } = one(req);
      side().hooks.splice(side().hooks.indexOf(hook), 1);
      return { status: 204 };
    },
    ping: async (req: SandboxRequest): Promise<SandboxResponse> => {
      const { ctx, hook, repo } = one(req);
      await ping(ctx, hook, repo);
      return { status: 204 };
    },
    deliveries: (req: SandboxRequest) => ({ status: 200, body: one(req).hook.deliveries.slice(0, 100).map((d) => renderDelivery(d, false)) }),
    delivery: (req: SandboxRequest) => {
      const d = one(req).hook.deliveries.find((x) => String(x.id) === req.params.delivery_id);
      if (!d) throw notFound(doc);
      return { status: 200, body: renderDelivery(d, true) };
    },
    redeliver: (req: SandboxRequest): SandboxResponse => {
      const { hook } = one(req);
      const d = hook.deliveries.find((x) => String(x.id) === req.params.delivery_id);
      if (!d) throw notFound(doc);
      void track(state, deliver(state, hook, d.event, d.request.payload, d));
      return { status: 202, body: {} };
    },
  };
}

export const hasScope = (state: GithubState, ...scopes: string[]) => scopes.some((s) => state.scopes.includes(s));

export function hookRoutes(state: GithubState): Routes {
  const repoHooks = hookApi(
    state,
    (req) => {
      const ctx = ctxOf(state, req);
      const repo = findRepo(ctx, req.params.owner!, req.params.repo!);
      if (roleOf(state, repo, state.login) !== 'admin' || !hasScope(state, 'repo', 'admin:repo_hook', 'write:repo_hook', 'read:repo_hook')) throw notFound(DOC);
      return { ctx, repo, target: { owner: repo.owner, repo: repo.name } };
    },
    DOC,
  );
  const orgHooks = hookApi(
    state,
    (req) => {
      const ctx = ctxOf(state, req);
      const org = Object.keys(state.orgs).find((o) => same(o, req.params.org!));
      // Org hooks need an org owner and the admin:org_hook scope; GitHub answers 404 otherwise.
      if (!org || state.orgs[org]!.members[state.login] !== 'admin' || !hasScope(state, 'admin:org_hook')) throw notFound(ORG_DOC);
      return { ctx, target: { org } };
    },
    ORG_DOC,
  );
  const routes: Routes = {};
  for (const [prefix, api] of [['/repos/:owner/:repo/hooks', repoHooks], ['/orgs/:org/hooks', orgHooks]] as const) {
    routes[`GET ${prefix}`] = api.list;
    routes[`POST ${prefix}`] = api.create;
    routes[`GET ${prefix}/:hook_id`] = api.get;
    routes[`PATCH ${prefix}/:hook_id`] = api.update;
    routes[`DELETE ${prefix}/:hook_id`] = api.remove;
    routes[`POST ${prefix}/:hook_id/pings`] = api.ping;
    routes[`GET ${prefix}/:hook_id/deliveries`] = api.deliveries;
    routes[`GET ${prefix}/:hook_id/deliveries/:delivery_id`] = api.delivery;
    routes[`POST ${prefix}/:hook_id/deliveries/:delivery_id/attempts`] = api.redeliver;
  }
  return routes;
}
