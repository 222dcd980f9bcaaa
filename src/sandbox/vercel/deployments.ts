import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import { VercelError, badRequest, inspectorUrl, planOf, scopeOf, type ReadyState, type VercelDeployment, type VercelState } from './state.js';
import { emitDeploymentEvents, type DeliveryResult, type DeploymentEvent } from './webhooks.js';
import { hexId, intParam, isObject } from '../util.js';

/**
 * Vercel deployments: list (/v6 and /v7, paged with `until`), create, get, cancel, delete, and the
 * state machine QUEUED -> (INITIALIZING) -> BUILDING -> READY | ERROR, CANCELED from any of the first three.
 * Each change calls the matching account webhooks (webhooks.ts).
 */

/** The states from which a deployment can still be canceled ("queued" and "ongoing" in the specification). */
export const CANCELABLE: readonly ReadyState[] = ['QUEUED', 'INITIALIZING', 'BUILDING'];

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
    aliasAssigned: d.readyState === 'READY',
    aliasAssignedAt: d.readyState === 'READY' ? (d.ready ?? null) : null,
    aliasError: null,
    build: { env: [] },
    buildSkipped: false,
    isInConcurrentBuildsQueue: false,
    isInSystemBuildsQueue: false,
    routes: null,
    env: [],
    projectSettings: { framework: project?.framework ?? null },
    gitSource: d.gitSource,
    meta: d.meta,
    regions: ['iad1'],
    creator: { uid: creator.uid, username: creator.username },
    inspectorUrl: inspectorUrl(state, d),
    public: false,
    plan: planOf(state, d.ownerId),
    version: 2,
    source: d.source,
    project: project ? { id: project.id, name: project.name, framework: project.framework } : undefined,
    ...(team ? { team: { id: team.id, name: team.name, slug: team.slug } } : {}),
  };
}

export function findDeployment(state: VercelState, req: SandboxRequest, ref: string): VercelDeployment {
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
  void emitDeploymentEvents(state, d, ['created']);
  return { status: 200, body: renderDeployment(state, d) };
}


function cancelDeployment(state: VercelState, req: SandboxRequest): SandboxResponse {
  const d = findDeployment(state, req, req.params.id!);
  if (!CANCELABLE.includes(d.readyState)) {
    throw new VercelError(400, 'bad_request', `Deployment ${d.uid} can not be canceled because its state is ${d.readyState}.`);
  }
  d.readyState = 'CANCELED';
  d.canceledAt = Date.now();
  void emitDeploymentEvents(state, d, ['canceled']);
  return { status: 200, body: renderDeployment(state, d) };
}

export function deploymentRoutes(state: VercelState): Routes {
  return {
    'GET /v6/deployments': (req) => listDeployments(state, req),
    'GET /v7/deployments': (req) => listDeployments(state, req),
    'GET /v13/deployments/:idOrUrl': (req) => ({ status: 200, body: renderDeployment(state, findDeployment(state, req, req.params.idOrUrl!)) }),
    'POST /v13/deployments': (req) => createDeployment(state, req),
    'PATCH /v12/deployments/:id/cancel': (req) => cancelDeployment(state, req),
    'DELETE /v13/deployments/:id': (req) => {
      const d = findDeployment(state, req, req.params.id!);
      state.deployments.splice(state.deployments.indexOf(d), 1);
      return { status: 200, body: { uid: d.uid, state: 'DELETED' } };
    },
  };
}

export type AdvanceTarget = 'INITIALIZING' | 'BUILDING' | 'READY' | 'ERROR' | 'CANCELED';

/**
 * Moves a deployment on, as Vercel's build would: by default QUEUED or INITIALIZING -> BUILDING and
 * BUILDING -> READY; `to` picks the state. Resolves once every matching webhook has been called.
 */
export async function advanceDeployment(
  state: VercelState,
  uid: string,
  to?: AdvanceTarget,
  options: { errorMessage?: string } = {},
): Promise<{ deployment: VercelDeployment; deliveries: DeliveryResult[] }> {
  const d = state.deployments.find((x) => x.uid === uid);
  if (!d) throw new VercelError(404, 'not_found', 'Deployment not found');
  if (!CANCELABLE.includes(d.readyState)) {
    throw new VercelError(409, 'conflict', `Deployment ${d.uid} is ${d.readyState} and can no longer change state.`);
  }
  const next: AdvanceTarget = to ?? (d.readyState === 'BUILDING' ? 'READY' : 'BUILDING');
  const now = Date.now();
  const events: DeploymentEvent[] = [];
  d.readyState = next;
  if (next === 'BUILDING' || next === 'INITIALIZING') d.buildingAt ??= now;
  if (next === 'READY') {
    d.buildingAt ??= now;
    d.ready = now;
    const project = state.projects.find((p) => p.id === d.projectId);
    if (d.target === 'production' && project) d.aliases = project.domains.filter((x) => !x.redirect).map((x) => x.name);
    // Vercel sends both: succeeded once the build is done, ready once it serves traffic.
    events.push('succeeded', 'ready');
  }
  if (next === 'ERROR') {
    d.errorCode = 'BUILD_FAILED';
    d.errorMessage = options.errorMessage ?? 'Command "npm run build" exited with 1';
    events.push('error');
  }
  if (next === 'CANCELED') {
    d.canceledAt = now;
    events.push('canceled');
  }
  return { deployment: d, deliveries: await emitDeploymentEvents(state, d, events) };
}

const TARGETS: readonly AdvanceTarget[] = ['INITIALIZING', 'BUILDING', 'READY', 'ERROR', 'CANCELED'];

/** `POST /_sandbox/vercel/deployments/:id/advance` {to?, errorMessage?}: drives the build state machine by hand. */
export function deploymentControlRoutes(state: VercelState): Routes {
  return {
    'POST /_sandbox/vercel/deployments/:id/advance': async (req) => {
      const b = isObject(req.body) ? req.body : {};
      if (b.to !== undefined && !TARGETS.includes(b.to)) {
        return { status: 400, body: { error: { code: 'bad_request', message: `"to" must be one of ${TARGETS.join(', ')}` } } };
      }
      try {
        const { deployment, deliveries } = await advanceDeployment(state, req.params.id!, b.to, { errorMessage: typeof b.errorMessage === 'string' ? b.errorMessage : undefined });
        return { status: 200, body: { deployment: renderDeployment(state, deployment), deliveries } };
      } catch (error) {
        if (!(error instanceof VercelError)) throw error;
        return { status: error.status, body: { error: { code: error.code, message: error.message } } };
      }
    },
  };
}
