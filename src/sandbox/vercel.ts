import type { Routes, SandboxRequest, SandboxResponse } from './server.js';
import { seedVercel } from './vercel.data.js';
import { projectRoutes } from './vercel.projects.js';
import { bearerToken, hexId, intParam, isObject, withMiddleware } from './util.js';

/** Vercel REST stand-in: deployments, projects, env, domains, teams; `teamId` picks the owner. */

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
}
export interface VercelState {
  /** Bearer tokens this sandbox accepts; all act as `user`. */
  tokens: Set<string>;
  user: { id: string; email: string; name: string; username: string; defaultTeamId: string | null; [key: string]: unknown };
  teams: VercelTeam[];
  projects: VercelProject[];
  deployments: VercelDeployment[];
  domains: VercelDomain[];
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

function renderDeploymentItem(state: VercelState, d: VercelDeployment) {
  const creator = creatorOf(state, d);
  return {
    uid: d.uid,
    name: d.name,
    url: d.url,
    created: d.createdAt,
    createdAt: d.createdAt,
    buildingAt: d.buildingAt ?? undefined,
    ready: d.ready ?? undefined,
    state: d.readyState,
    readyState: d.readyState,
    type: 'LAMBDAS',
    creator: { uid: creator.uid, email: creator.email, username: creator.username, githubLogin: creator.username },
    meta: d.meta,
    target: d.target,
    projectId: d.projectId,
    inspectorUrl: inspectorUrl(state, d),
    source: d.source,
    aliasAssigned: d.readyState === 'READY' ? (d.ready ?? true) : null,
    aliasError: null,
    isRollbackCandidate: d.readyState === 'READY' && d.target === 'production',
    ...(d.errorCode ? { errorCode: d.errorCode, errorMessage: d.errorMessage } : {}),
  };
}

function creatorOf(state: VercelState, d: VercelDeployment) {
  const m = state.teams.flatMap((t) => t.members).find((x) => x.uid === d.creatorUid);
  return { uid: d.creatorUid, email: m?.email ?? state.user.email, username: m?.username ?? state.user.username };
}

function inspectorUrl(state: VercelState, d: VercelDeployment): string {
  const slug = state.teams.find((t) => t.id === d.ownerId)?.slug ?? state.user.username;
  return `https://vercel.com/${slug}/${d.name}/${d.uid.replace(/^dpl_/, '')}`;
}

export function renderDeployment(state: VercelState, d: VercelDeployment) {
  const project = state.projects.find((p) => p.id === d.projectId);
  const team = state.teams.find((t) => t.id === d.ownerId);
  const creator = creatorOf(state, d);
  return {
    id: d.uid,
    url: d.url,
    name: d.name,
    readyState: d.readyState,
    status: d.readyState,
    type: 'LAMBDAS',
    createdAt: d.createdAt,
    createdIn: 'sfo1',
    buildingAt: d.buildingAt ?? d.createdAt,
    ready: d.ready ?? undefined,
    bootedAt: d.buildingAt ?? d.createdAt,
    ...(d.canceledAt ? { canceledAt: d.canceledAt } : {}),
    ...(d.errorCode ? { errorCode: d.errorCode, errorMessage: d.errorMessage, errorStep: 'build' } : {}),
    target: d.target,
    projectId: d.projectId,
    ownerId: d.ownerId,
    alias: d.aliases,
    aliasAssigned: d.readyState === 'READY' ? d.ready : null,
    aliasError: null,
    gitSource: d.gitSource,
    meta: d.meta,
    regions: ['iad1'],
    creator: { uid: creator.uid, username: creator.username },
    inspectorUrl: inspectorUrl(state, d),
    public: false,
    plan: team ? 'pro' : 'hobby',
    version: 2,
    source: d.source,
    project: project ? { id: project.id, name: project.name, framework: project.framework } : undefined,
    ...(team ? { team: { id: team.id, name: team.name, slug: team.slug } } : {}),
  };
}

function findDeployment(state: VercelState, req: SandboxRequest, ref: string): VercelDeployment {
  const { ownerId } = scopeOf(state, req);
  const host = ref.replace(/^https?:\/\//, '');
  const d = state.deployments.find((x) => x.uid === ref || x.url === host || x.aliases.includes(host));
  if (!d || d.ownerId !== ownerId) throw new VercelError(404, 'not_found', 'Deployment not found');
  return d;
}

function listDeployments(state: VercelState, req: SandboxRequest): SandboxResponse {
  const { ownerId } = scopeOf(state, req);
  const q = req.query;
  const projectIds = [...q.getAll('projectIds'), ...(q.get('projectId') ? [q.get('projectId')!] : [])].flatMap((s) => s.split(','));
  const states = (q.get('state') ?? '').split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
  const users = (q.get('users') ?? '').split(',').filter(Boolean);
  const target = q.get('target');
  const since = Number(q.get('since') ?? q.get('from') ?? 0);
  const until = Number(q.get('until') ?? q.get('to') ?? Infinity);
  const limit = intParam(q.get('limit') ?? undefined, 20, 1, 100);
  const all = state.deployments
    .filter(
      (d) =>
        d.ownerId === ownerId &&
        (!projectIds.length || projectIds.includes(d.projectId) || projectIds.includes(d.name)) &&
        (!q.get('app') || d.name === q.get('app')) &&
        (!target || (target === 'preview' ? d.target === null : d.target === target)) &&
        (!states.length || states.includes(d.readyState)) &&
        (!users.length || users.includes(d.creatorUid)) &&
        (!q.get('branch') || d.meta.githubCommitRef === q.get('branch')) &&
        (!q.get('sha') || d.meta.githubCommitSha === q.get('sha')) &&
        d.createdAt > since &&
        d.createdAt < until,
    )
    .sort((a, b) => b.createdAt - a.createdAt);
  const page = all.slice(0, limit);
  const more = all.length > page.length;
  return {
    status: 200,
    body: {
      deployments: page.map((d) => renderDeploymentItem(state, d)),
      pagination: { count: page.length, next: more ? page[page.length - 1]!.createdAt : null, prev: page[0]?.createdAt ?? null },
    },
  };
}

function createDeployment(state: VercelState, req: SandboxRequest): SandboxResponse {
  const scope = scopeOf(state, req);
  const b = isObject(req.body) ? req.body : {};
  if (typeof b.name !== 'string' || !b.name) throw badRequest('missing required property `name`.');
  if (b.target !== undefined && b.target !== null && !['production', 'staging'].includes(b.target)) {
    throw badRequest('`target` should be equal to one of the allowed values "staging", "production" (omit it for a preview deployment).');
  }
  const redeploy = typeof b.deploymentId === 'string' ? findDeployment(state, req, b.deploymentId) : undefined;
  const git = isObject(b.gitSource) ? b.gitSource : (redeploy?.gitSource ?? null);
  if (git) {
    if (!['github', 'github-limited', 'gitlab', 'bitbucket'].includes(String(git.type))) throw badRequest('`gitSource.type` must be one of github, gitlab, bitbucket.');
    if (typeof git.ref !== 'string' || !git.ref) throw badRequest('missing required property `gitSource.ref`.');
  } else if (!Array.isArray(b.files)) {
    throw badRequest('one of `gitSource`, `files` or `deploymentId` is required.');
  } else {
    const uploaded = b.files.filter((f: any) => isObject(f) && typeof f.sha === 'string').map((f: any) => f.sha);
    if (uploaded.length) throw new VercelError(400, 'missing_files', 'Missing files', { missing: uploaded });
  }
  const ref = String(b.project ?? b.name);
  let project = state.projects.find((p) => p.accountId === scope.ownerId && (p.id === ref || p.name === ref));
  if (!project) {
    project = { id: 'prj_' + hexId(`${scope.ownerId}/${ref}/${++state.seq}`, 26), name: ref, accountId: scope.ownerId, framework: null, buildCommand: null, installCommand: null, outputDirectory: null, rootDirectory: null, nodeVersion: '20.x', createdAt: Date.now(), updatedAt: Date.now(), link: null, env: [], domains: [] };
    state.projects.push(project);
  }
  const n = ++state.seq;
  const uid = 'dpl_' + hexId(`sbx-created-${n}-${Date.now()}`, 28).replace(/[0-9]/g, (d) => 'ABCDEFGHIJ'[Number(d)]!);
  const sha = typeof git?.sha === 'string' ? git.sha : hexId(`sha-created-${n}`, 40);
  const d: VercelDeployment = {
    uid,
    name: project.name,
    url: `${project.name}-${hexId(uid, 9)}-${scope.slug}.vercel.app`,
    projectId: project.id,
    ownerId: scope.ownerId,
    createdAt: Date.now(),
    buildingAt: null,
    ready: null,
    readyState: 'QUEUED',
    target: (b.target ?? null) as VercelDeployment['target'],
    creatorUid: state.user.id,
    source: redeploy ? 'redeploy' : git ? 'git' : 'api',
    aliases: [],
    gitSource: git ? { ...git, sha } : null,
    meta: {
      ...(git ? { githubCommitRef: String(git.ref), githubCommitSha: sha, githubOrg: String(git.org ?? project.link?.org ?? ''), githubRepo: String(git.repo ?? project.link?.repo ?? '') } : {}),
      ...(isObject(b.meta) ? Object.fromEntries(Object.entries(b.meta).map(([k, v]) => [k, String(v)])) : {}),
    },
    errorCode: null,
    errorMessage: null,
    canceledAt: null,
  };
  state.deployments.push(d);
  project.updatedAt = d.createdAt;
  return { status: 200, body: renderDeployment(state, d) };
}

function renderTeam(state: VercelState, t: VercelTeam) {
  const me = t.members.find((m) => m.uid === state.user.id)!;
  return { id: t.id, slug: t.slug, name: t.name, avatar: t.avatar, createdAt: t.createdAt, creatorId: t.creatorId, membership: { confirmed: true, confirmedAt: me.createdAt, role: me.role, uid: me.uid, createdAt: me.createdAt, teamId: t.id } };
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
    return { status: 200, body: { members: list, pagination: { count: list.length, hasNext: false, next: null, prev: null } } };
  };
  return {
    'GET /v2/user': () => ({ status: 200, body: { user: state.user } }),
    'GET /v6/deployments': (req) => listDeployments(state, req),
    'GET /v7/deployments': (req) => listDeployments(state, req),
    'GET /v13/deployments/:idOrUrl': (req) => ({ status: 200, body: renderDeployment(state, findDeployment(state, req, req.params.idOrUrl!)) }),
    'POST /v13/deployments': (req) => createDeployment(state, req),
    'PATCH /v12/deployments/:id/cancel': (req) => {
      const d = findDeployment(state, req, req.params.id!);
      if (!['QUEUED', 'INITIALIZING', 'BUILDING'].includes(d.readyState)) {
        throw new VercelError(400, 'bad_request', `Deployment ${d.uid} can not be canceled because its state is ${d.readyState}.`);
      }
      d.readyState = 'CANCELED';
      d.canceledAt = Date.now();
      return { status: 200, body: renderDeployment(state, d) };
    },
    'DELETE /v13/deployments/:id': (req) => {
      const d = findDeployment(state, req, req.params.id!);
      state.deployments.splice(state.deployments.indexOf(d), 1);
      return { status: 200, body: { uid: d.uid, state: 'DELETED' } };
    },
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
  return withMiddleware({ ...coreRoutes(state), ...projectRoutes(state) }, async (req, next) => {
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
}

/** The route table (same as vercelRoutes). */
export const routes = vercelRoutes;
