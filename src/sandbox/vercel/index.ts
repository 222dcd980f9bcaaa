import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import { seedVercel } from './data.js';
import { deploymentControlRoutes, deploymentRoutes } from './deployments.js';
import { projectRoutes } from './projects.js';
import { hookControlRoutes, hookRoutes } from './webhooks.js';
import { bearerToken, hexId, withMiddleware } from '../util.js';

/**
 * Vercel REST stand-in: deployments (with state transitions), projects, env, domains, teams and
 * account webhooks, which it calls, signed, when a deployment changes state; `teamId` picks the owner.
 */

export type ReadyState = 'QUEUED' | 'INITIALIZING' | 'BUILDING' | 'READY' | 'ERROR' | 'CANCELED' | 'BLOCKED';

export interface VercelDeployment {
  uid: string;
  name: string;
  url: string;
  projectId: string;
  /** The user id or team id that owns it. */
  ownerId: string;
  createdAt: number;
  buildingAt: number | null;
  ready: number | null;
  readyState: ReadyState;
  target: 'production' | 'staging' | null;
  creatorUid: string;
  source: 'git' | 'cli' | 'api' | 'redeploy';
  aliases: string[];
  gitSource: Record<string, unknown> | null;
  meta: Record<string, string>;
  errorCode: string | null;
  errorMessage: string | null;
  canceledAt: number | null;
}
export interface VercelEnv {
  id: string;
  key: string;
  value: string;
  type: 'system' | 'secret' | 'encrypted' | 'plain' | 'sensitive';
  target: Array<'production' | 'preview' | 'development'>;
  gitBranch?: string;
  comment: string;
  configurationId: null;
  createdAt: number;
  updatedAt: number;
  createdBy: string;
  updatedBy: string | null;
}
export interface VercelProjectDomain {
  name: string;
  apexName: string;
  projectId: string;
  redirect: string | null;
  redirectStatusCode: number | null;
  gitBranch: string | null;
  customEnvironmentId: null;
  updatedAt: number;
  createdAt: number;
  verified: boolean;
  verification?: Array<{ type: string; domain: string; value: string; reason: string }>;
}
export interface VercelProject {
  id: string;
  name: string;
  accountId: string;
  framework: string | null;
  buildCommand: string | null;
  installCommand: string | null;
  outputDirectory: string | null;
  rootDirectory: string | null;
  nodeVersion: string;
  createdAt: number;
  updatedAt: number;
  link: { type: string; repo: string; org: string; repoId: number; productionBranch: string; [k: string]: unknown } | null;
  env: VercelEnv[];
  domains: VercelProjectDomain[];
}
export interface VercelDomain {
  id: string;
  name: string;
  ownerId: string;
  [key: string]: unknown;
}
export interface VercelMember {
  uid: string;
  username: string;
  name: string;
  email: string;
  role: string;
  confirmed: boolean;
  createdAt: number;
  [key: string]: unknown;
}
export interface VercelTeam {
  id: string;
  slug: string;
  name: string;
  avatar: string | null;
  createdAt: number;
  creatorId: string;
  members: VercelMember[];
  /** Teams are Pro unless told otherwise; account webhooks need Pro or Enterprise. */
  plan?: VercelPlan;
}
export type VercelPlan = 'hobby' | 'pro' | 'enterprise';
/** An account (or team) webhook: `secret` is shown only in the answer that creates it. */
export interface VercelWebhook {
  id: string;
  url: string;
  events: string[];
  ownerId: string;
  /** Only these projects' events; absent means every project of the owner. */
  projectIds?: string[];
  secret: string;
  createdAt: number;
  updatedAt: number;
}
/** One POST the sandbox made (or tried) to a webhook. */
export interface VercelWebhookDelivery {
  /** The envelope id (Vercel's payload `id`); a redelivery repeats it. */
  eventId: string;
  type: string;
  webhookId: string;
  url: string;
  /** The exact bytes sent, and their x-vercel-signature. */
  body: string;
  signature: string;
  status: number | null;
  error: string | null;
  at: number;
}
export interface VercelState {
  /** Bearer tokens this sandbox accepts; all act as `user`. */
  tokens: Set<string>;
  user: { id: string; email: string; name: string; username: string; defaultTeamId: string | null; [key: string]: unknown };
  teams: VercelTeam[];
  projects: VercelProject[];
  deployments: VercelDeployment[];
  domains: VercelDomain[];
  webhooks: VercelWebhook[];
  /** Every webhook delivery, oldest first. */
  deliveries: VercelWebhookDelivery[];
  /** Deliveries still in flight (see `vercelWebhooksIdle`). */
  pending: Set<Promise<unknown>>;
  /** `reset` in epoch seconds, as in the x-ratelimit-reset header. */
  rateLimit: { limit: number; remaining: number; reset: number };
  seq: number;
}

export const VERCEL_SAMPLE_TOKEN = 'sbx-vercel-token-0001';

export function createVercelState(options: { now?: Date } = {}): VercelState {
  const now = (options.now ?? new Date()).getTime();
  return {
    tokens: new Set([VERCEL_SAMPLE_TOKEN]),
    ...seedVercel(now),
    webhooks: [],
    deliveries: [],
    pending: new Set(),
    rateLimit: { limit: 1000, remaining: 1000, reset: Math.floor(now / 1000) + 3600 },
    seq: 0,
  };
}

export class VercelError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new VercelError(400, 'bad_request', `Invalid request: ${message}`);
export const notFound = (what: string) => new VercelError(404, 'not_found', `${what} not found`);

/** Whose resources a request sees: the user's own, or a team's with `?teamId=` (or `?slug=`). */
export function scopeOf(state: VercelState, req: SandboxRequest): { ownerId: string; slug: string; team?: VercelTeam } {
  const teamId = req.query.get('teamId');
  const slug = req.query.get('slug');
  if (!teamId && !slug) return { ownerId: state.user.id, slug: state.user.username };
  const team = state.teams.find((t) => (teamId ? t.id === teamId : t.slug === slug));
  if (!team || !team.members.some((m) => m.uid === state.user.id)) throw new VercelError(403, 'forbidden', 'Not authorized');
  return { ownerId: team.id, slug: team.slug, team };
}

/** The plan of a user id or team id. */
export function planOf(state: VercelState, ownerId: string): VercelPlan {
  const team = state.teams.find((t) => t.id === ownerId);
  if (team) return team.plan ?? 'pro';
  const billing = state.user.billing as { plan?: VercelPlan } | undefined;
  return billing?.plan ?? 'hobby';
}

function renderTeam(state: VercelState, t: VercelTeam) {
  const me = t.members.find((m) => m.uid === state.user.id)!;
  return {
    id: t.id,
    slug: t.slug,
    name: t.name,
    avatar: t.avatar,
    description: null,
    billing: null,
    stagingPrefix: t.slug,
    createdAt: t.createdAt,
    updatedAt: t.createdAt,
    creatorId: t.creatorId,
    membership: { confirmed: true, role: me.role, uid: me.uid, created: me.createdAt, createdAt: me.createdAt, teamId: t.id },
  };
}

function teamOf(state: VercelState, idOrSlug: string): VercelTeam {
  const team = state.teams.find((t) => t.id === idOrSlug || t.slug === idOrSlug);
  if (!team) throw notFound('Team');
  if (!team.members.some((m) => m.uid === state.user.id)) throw new VercelError(403, 'forbidden', 'Not authorized');
  return team;
}

function coreRoutes(state: VercelState): Routes {
  const members = (req: SandboxRequest): SandboxResponse => {
    const team = teamOf(state, req.params.id!);
    const role = req.query.get('role');
    const search = req.query.get('search')?.toLowerCase();
    const list = team.members.filter((m) => (!role || m.role === role) && (!search || `${m.username} ${m.name} ${m.email}`.toLowerCase().includes(search)));
    // A member without a picture has no avatar field at all.
    const rendered = list.map(({ avatar, ...m }) => (avatar ? { ...m, avatar } : m));
    return { status: 200, body: { members: rendered, pagination: { count: list.length, hasNext: false, next: null, prev: null } } };
  };
  return {
    'GET /v2/user': () => ({ status: 200, body: { user: state.user } }),
    'GET /v2/teams': () => {
      const mine = state.teams.filter((t) => t.members.some((m) => m.uid === state.user.id));
      return { status: 200, body: { teams: mine.map((t) => renderTeam(state, t)), pagination: { count: mine.length, next: null, prev: null } } };
    },
    'GET /v2/teams/:id': (req) => ({ status: 200, body: renderTeam(state, teamOf(state, req.params.id!)) }),
    'GET /v2/teams/:id/members': members,
    'GET /v3/teams/:id/members': members,
  };
}

export function vercelRoutes(state: VercelState): Routes {
  const api = withMiddleware({ ...coreRoutes(state), ...deploymentRoutes(state), ...projectRoutes(state), ...hookRoutes(state) }, async (req, next) => {
    const now = Math.floor(Date.now() / 1000);
    const rl = state.rateLimit;
    if (now >= rl.reset) Object.assign(rl, { remaining: rl.limit, reset: now + 3600 });
    const common = () => ({ 'x-vercel-id': `iad1::${hexId(String(Math.random()), 12)}`, 'x-ratelimit-limit': String(rl.limit), 'x-ratelimit-remaining': String(rl.remaining), 'x-ratelimit-reset': String(rl.reset) });
    const token = bearerToken(req);
    // Vercel answers a missing or unknown token with 403 forbidden, not 401.
    if (!token || !state.tokens.has(token)) {
      const body = token ? { error: { code: 'forbidden', message: 'Not authorized', invalidToken: true } } : { error: { code: 'forbidden', message: 'The request is missing an authentication token', missingToken: true } };
      return { status: 403, body, headers: common() };
    }
    if (rl.remaining <= 0) {
      return { status: 429, headers: { ...common(), 'retry-after': String(Math.max(1, rl.reset - now)) }, body: { error: { code: 'rate_limited', message: 'Rate limit exceeded', limit: { remaining: 0, reset: rl.reset, resetMs: rl.reset * 1000, total: rl.limit } } } };
    }
    rl.remaining -= 1;
    let res: SandboxResponse;
    try {
      res = await next(req);
    } catch (error) {
      if (!(error instanceof VercelError)) throw error;
      res = { status: error.status, body: { error: { code: error.code, message: error.message, ...error.extra } } };
    }
    return { ...res, headers: { ...common(), ...res.headers } };
  });
  // Sandbox-only control routes: outside Vercel's paths, no token needed.
  return { ...api, ...deploymentControlRoutes(state), ...hookControlRoutes(state) };
}

/** The route table (same as vercelRoutes). */
export const routes = vercelRoutes;
