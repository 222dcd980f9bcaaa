import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import { seedVercel } from './data.js';
import { deploymentControlRoutes, deploymentRoutes } from './deployments.js';
import { projectRoutes } from './projects.js';
import { hookControlRoutes, hookRoutes } from './webhooks.js';
import { VERCEL_SAMPLE_TOKEN, VercelError, notFound, type VercelState, type VercelTeam } from './state.js';
import { bearerToken, hexId, withMiddleware } from '../util.js';

/**
 * Vercel REST stand-in: deployments (with state transitions), projects, env, domains, teams and
 * account webhooks, which it calls, signed, when a deployment changes state; `teamId` picks the owner.
 */

export { VERCEL_SAMPLE_TOKEN, type VercelState } from './state.js';

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
