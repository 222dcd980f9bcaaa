import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import { VercelError, badRequest, notFound, planOf, scopeOf, type VercelDeployment, type VercelDomain, type VercelEnv, type VercelProject, type VercelProjectDomain, type VercelState } from './state.js';
import { hexId, intParam, isObject } from '../util.js';

/** Vercel projects, their environment variables and domains, and account domains. */

const TARGETS = ['production', 'preview', 'development'] as const;
const ENV_TYPES = ['system', 'secret', 'encrypted', 'plain', 'sensitive'];
const PROJECT_PATCHABLE = ['name', 'framework', 'buildCommand', 'installCommand', 'outputDirectory', 'rootDirectory', 'nodeVersion'] as const;

function findProject(state: VercelState, req: SandboxRequest): VercelProject {
  const { ownerId } = scopeOf(state, req);
  const ref = req.params.id!;
  const p = state.projects.find((x) => x.accountId === ownerId && (x.id === ref || x.name === ref));
  if (!p) throw notFound('Project');
  return p;
}

/** Encrypted values are returned as an opaque blob unless `decrypt=true`; sensitive ones never. */
function renderEnv(env: VercelEnv, decrypt: boolean) {
  const hidden = env.type === 'sensitive' || (env.type !== 'plain' && !decrypt);
  const value = env.type === 'sensitive' ? '' : hidden ? Buffer.from(JSON.stringify({ v: 'v2', iv: hexId(env.id, 16), c: hexId(env.value, 32) })).toString('base64') : env.value;
  return { ...env, value, decrypted: !hidden && env.type !== 'plain' };
}

/** An account domain as Vercel answers it, without the owner the sandbox files it under. */
function renderDomain({ ownerId: _owner, ...domain }: VercelDomain) {
  return domain;
}

/** A deployment as a project lists it (latestDeployments, targets). */
function projectDeployment(state: VercelState, d: VercelDeployment) {
  const creator = state.teams.flatMap((t) => t.members).find((m) => m.uid === d.creatorUid);
  return {
    id: d.uid,
    name: d.name,
    url: d.url,
    deploymentHostname: d.url,
    readyState: d.readyState,
    target: d.target,
    createdAt: d.createdAt,
    createdIn: 'sfo1',
    creator: { uid: d.creatorUid, username: creator?.username ?? state.user.username, email: creator?.email ?? state.user.email },
    alias: d.aliases,
    aliasAssigned: d.readyState === 'READY' ? (d.ready ?? null) : null,
    aliasError: null,
    plan: planOf(state, d.ownerId),
    private: true,
    type: 'LAMBDAS',
  };
}

function renderProject(state: VercelState, p: VercelProject) {
  const latest = state.deployments.filter((d) => d.projectId === p.id).sort((a, b) => b.createdAt - a.createdAt);
  const production = latest.find((d) => d.target === 'production' && d.readyState === 'READY');
  // A project without a connected repository has no link field at all.
  const { domains, env, link, ...rest } = p;
  const resources = { functionDefaultRegions: ['iad1'], functionDefaultTimeout: 300, fluid: true };
  return {
    ...rest,
    ...(link ? { link } : {}),
    alias: domains.filter((d) => d.verified).map((d) => ({
      domain: d.name,
      environment: d.gitBranch ? 'preview' : 'production',
      target: d.gitBranch ? 'PREVIEW' : 'PRODUCTION',
      deployment: null,
      createdAt: d.createdAt,
    })),
    autoExposeSystemEnvs: true,
    defaultResourceConfig: resources,
    deploymentExpiration: { expirationDays: 90, expirationDaysProduction: 365, expirationDaysCanceled: 30, expirationDaysErrored: 90, deploymentsToKeep: 10 },
    devCommand: null,
    directoryListing: false,
    env: env.map((e) => renderEnv(e, false)),
    gitForkProtection: true,
    lastRollbackTarget: null,
    latestDeployments: latest.slice(0, 3).map((d) => projectDeployment(state, d)),
    live: false,
    resourceConfig: resources,
    sourceFilesOutsideRootDirectory: true,
    targets: production ? { production: projectDeployment(state, production) } : {},
  };
}

function validDomain(name: unknown): name is string {
  return typeof name === 'string' && /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(name);
}

function envInput(raw: unknown, existing?: VercelEnv): Omit<VercelEnv, 'id' | 'createdAt' | 'updatedAt' | 'createdBy' | 'updatedBy' | 'configurationId'> {
  if (!isObject(raw)) throw badRequest('each environment variable must be an object.');
  const merged = { ...existing, ...raw } as Record<string, any>;
  for (const field of ['key', 'value', 'type', 'target']) if (merged[field] === undefined) throw badRequest(`missing required property \`${field}\`.`);
  if (typeof merged.key !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(merged.key)) throw badRequest('`key` must start with a letter or underscore and hold only letters, digits and underscores.');
  if (typeof merged.value !== 'string') throw badRequest('`value` should be string.');
  if (!ENV_TYPES.includes(merged.type)) throw badRequest(`\`type\` should be equal to one of the allowed values ${ENV_TYPES.map((t) => `"${t}"`).join(', ')}.`);
  const target = Array.isArray(merged.target) ? merged.target : [merged.target];
  if (!target.length || target.some((t: unknown) => !TARGETS.includes(t as never))) throw badRequest('`target` should be an array of "production", "preview", "development".');
  if (merged.gitBranch && (target.length !== 1 || target[0] !== 'preview')) throw badRequest('`gitBranch` can only be set when `target` is ["preview"].');
  return { key: merged.key, value: merged.value, type: merged.type, target, gitBranch: merged.gitBranch || undefined, comment: String(merged.comment ?? '') };
}

function conflicting(p: VercelProject, env: { key: string; target: string[]; gitBranch?: string }, except?: string): VercelEnv | undefined {
  return p.env.find((e) => e.id !== except && e.key === env.key && (e.gitBranch ?? '') === (env.gitBranch ?? '') && e.target.some((t) => env.target.includes(t)));
}

function createEnv(state: VercelState, req: SandboxRequest): SandboxResponse {
  const p = findProject(state, req);
  const items = Array.isArray(req.body) ? req.body : [req.body];
  const upsert = req.query.get('upsert') === 'true';
  const created: unknown[] = [];
  const failed: unknown[] = [];
  for (const raw of items) {
    const input = envInput(raw);
    const clash = conflicting(p, input);
    const now = Date.now();
    if (clash && upsert) {
      Object.assign(clash, input, { updatedAt: now, updatedBy: state.user.id });
      created.push(renderEnv(clash, false));
    } else if (clash) {
      failed.push({ error: { code: 'ENV_ALREADY_EXISTS', message: `A variable with the name \`${input.key}\` already exists for the target ${clash.target.join(',')} on branch ${clash.gitBranch ?? 'undefined'}`, key: input.key, envVarId: clash.id, target: input.target } });
    } else {
      const env: VercelEnv = { ...input, id: 'env_' + hexId(`${p.id}/${input.key}/${++state.seq}`, 16), configurationId: null, createdAt: now, updatedAt: now, createdBy: state.user.id, updatedBy: null };
      p.env.push(env);
      created.push(renderEnv(env, false));
    }
  }
  if (!created.length && failed.length) {
    const { error } = failed[0] as { error: Record<string, unknown> };
    const { code, message, ...extra } = error;
    throw new VercelError(400, String(code), String(message), extra);
  }
  p.updatedAt = Date.now();
  return { status: 201, body: { created: Array.isArray(req.body) ? created : created[0], failed } };
}

function addDomain(state: VercelState, req: SandboxRequest): SandboxResponse {
  const p = findProject(state, req);
  const b = isObject(req.body) ? req.body : {};
  if (b.name === undefined) throw badRequest('missing required property `name`.');
  if (!validDomain(b.name)) throw new VercelError(400, 'invalid_domain', `Invalid domain name "${String(b.name)}".`);
  const name = b.name.toLowerCase();
  const owner = state.projects.find((x) => x.domains.some((d) => d.name === name));
  if (owner) throw new VercelError(409, 'domain_already_in_use', `Cannot add ${name} since it's already in use by ${owner.id === p.id ? 'this' : 'another'} project.`, { projectId: owner.id });
  if (b.redirect !== undefined && b.redirect !== null && !p.domains.some((d) => d.name === b.redirect)) {
    throw new VercelError(400, 'invalid_redirect', `The redirect target "${String(b.redirect)}" is not a domain of this project.`);
  }
  const apexName = name.endsWith('.vercel.app') ? name : name.split('.').slice(-2).join('.');
  // Domains under an apex the owner has verified, and *.vercel.app, are verified at once.
  const verified = name.endsWith('.vercel.app') || state.domains.some((d) => d.ownerId === p.accountId && (name === d.name || name.endsWith(`.${d.name}`)) && d.verified);
  const now = Date.now();
  const domain: VercelProjectDomain = {
    name,
    apexName,
    projectId: p.id,
    redirect: b.redirect ?? null,
    redirectStatusCode: b.redirect ? (b.redirectStatusCode ?? 308) : null,
    gitBranch: b.gitBranch ?? null,
    customEnvironmentId: null,
    updatedAt: now,
    createdAt: now,
    verified,
    ...(verified ? {} : { verification: [{ type: 'TXT', domain: `_vercel.${apexName}`, value: `vc-domain-verify=${name},${hexId(name, 20)}`, reason: 'pending_domain_verification' }] }),
  };
  p.domains.push(domain);
  return { status: 200, body: domain };
}

export function projectRoutes(state: VercelState): Routes {
  const listProjects = (req: SandboxRequest): SandboxResponse => {
    const { ownerId } = scopeOf(state, req);
    const search = req.query.get('search')?.toLowerCase();
    const repo = req.query.get('repo');
    const from = Number(req.query.get('from') ?? Infinity);
    const limit = intParam(req.query.get('limit') ?? undefined, 20, 1, 100);
    const all = state.projects
      .filter((p) => p.accountId === ownerId && (!search || p.name.toLowerCase().includes(search)) && (!repo || p.link?.repo === repo) && p.updatedAt < from)
      .sort((a, b) => b.updatedAt - a.updatedAt);
    const page = all.slice(0, limit);
    return {
      status: 200,
      body: { projects: page.map((p) => renderProject(state, p)), pagination: { count: page.length, next: all.length > page.length ? page[page.length - 1]!.updatedAt : null, prev: null } },
    };
  };
  const createProject = (req: SandboxRequest): SandboxResponse => {
    const { ownerId } = scopeOf(state, req);
    const b = isObject(req.body) ? req.body : {};
    if (typeof b.name !== 'string' || !b.name) throw badRequest('missing required property `name`.');
    if (!/^[a-z0-9._-]{1,100}$/.test(b.name) || b.name.includes('---')) throw badRequest('`name` must be lowercase, up to 100 characters, and hold only letters, digits, ".", "_" and "-".');
    if (state.projects.some((p) => p.accountId === ownerId && p.name === b.name)) throw new VercelError(409, 'conflict', `Project "${b.name}" already exists, please use a new name.`);
    const now = Date.now();
    const repo = isObject(b.gitRepository) && typeof b.gitRepository.repo === 'string' ? b.gitRepository.repo.split('/') : undefined;
    const p: VercelProject = {
      id: 'prj_' + hexId(`${ownerId}/${b.name}/${++state.seq}`, 26),
      name: b.name,
      accountId: ownerId,
      framework: b.framework ?? null,
      buildCommand: b.buildCommand ?? null,
      installCommand: b.installCommand ?? null,
      outputDirectory: b.outputDirectory ?? null,
      rootDirectory: b.rootDirectory ?? null,
      nodeVersion: '20.x',
      createdAt: now,
      updatedAt: now,
      link: repo ? { type: String(b.gitRepository.type ?? 'github'), org: repo[0]!, repo: repo[1] ?? '', repoId: 0, productionBranch: 'main', createdAt: now, updatedAt: now, deployHooks: [] } : null,
      env: [],
      domains: [],
    };
    state.projects.push(p);
    if (Array.isArray(b.environmentVariables)) {
      for (const raw of b.environmentVariables) p.env.push({ ...envInput(raw), id: 'env_' + hexId(`${p.id}/${++state.seq}`, 16), configurationId: null, createdAt: now, updatedAt: now, createdBy: state.user.id, updatedBy: null });
    }
    return { status: 200, body: renderProject(state, p) };
  };
  const listEnv = (req: SandboxRequest): SandboxResponse => {
    const p = findProject(state, req);
    const decrypt = req.query.get('decrypt') === 'true';
    const branch = req.query.get('gitBranch');
    // Listed, each variable also carries the security findings on it (none here).
    const envs = p.env.filter((e) => !branch || !e.gitBranch || e.gitBranch === branch).map((e) => ({ ...renderEnv(e, decrypt), securityIssues: [] }));
    return { status: 200, body: { envs, pagination: { count: envs.length, next: null, prev: null } } };
  };
  const findEnv = (req: SandboxRequest) => {
    const p = findProject(state, req);
    const env = p.env.find((e) => e.id === req.params.envId);
    if (!env) throw new VercelError(404, 'not_found', 'Environment Variable not found');
    return { p, env };
  };

  return {
    'GET /v9/projects': listProjects,
    'GET /v10/projects': listProjects,
    'POST /v10/projects': createProject,
    'POST /v11/projects': createProject,
    'GET /v9/projects/:id': (req) => ({ status: 200, body: renderProject(state, findProject(state, req)) }),
    'PATCH /v9/projects/:id': (req) => {
      const p = findProject(state, req);
      const b = isObject(req.body) ? req.body : {};
      if (b.name !== undefined && state.projects.some((x) => x !== p && x.accountId === p.accountId && x.name === b.name)) {
        throw new VercelError(409, 'conflict', `Project "${b.name}" already exists, please use a new name.`);
      }
      for (const k of PROJECT_PATCHABLE) if (k in b) (p as unknown as Record<string, unknown>)[k] = b[k];
      p.updatedAt = Date.now();
      return { status: 200, body: renderProject(state, p) };
    },
    'DELETE /v9/projects/:id': (req) => {
      const p = findProject(state, req);
      state.projects.splice(state.projects.indexOf(p), 1);
      state.deployments = state.deployments.filter((d) => d.projectId !== p.id);
      return { status: 204 };
    },
    'GET /v9/projects/:id/domains': (req) => {
      const p = findProject(state, req);
      return { status: 200, body: { domains: p.domains, pagination: { count: p.domains.length, next: null, prev: null } } };
    },
    'GET /v9/projects/:id/domains/:domain': (req) => {
      const d = findProject(state, req).domains.find((x) => x.name === req.params.domain!.toLowerCase());
      if (!d) throw new VercelError(404, 'not_found', `The domain "${req.params.domain}" is not assigned to this project.`);
      return { status: 200, body: d };
    },
    'POST /v10/projects/:id/domains': (req) => addDomain(state, req),
    'DELETE /v9/projects/:id/domains/:domain': (req) => {
      const p = findProject(state, req);
      const d = p.domains.find((x) => x.name === req.params.domain!.toLowerCase());
      if (!d) throw new VercelError(404, 'not_found', `The domain "${req.params.domain}" is not assigned to this project.`);
      p.domains = p.domains.filter((x) => x !== d && x.redirect !== d.name);
      return { status: 200, body: {} };
    },
    'GET /v9/projects/:id/env': listEnv,
    'GET /v10/projects/:id/env': listEnv,
    'POST /v10/projects/:id/env': (req) => createEnv(state, req),
    'GET /v1/projects/:id/env/:envId': (req) => ({ status: 200, body: renderEnv(findEnv(req).env, true) }),
    'PATCH /v9/projects/:id/env/:envId': (req) => {
      const { p, env } = findEnv(req);
      const input = envInput(req.body, env);
      if (conflicting(p, input, env.id)) throw new VercelError(400, 'ENV_CONFLICT', `A variable with the name \`${input.key}\` already exists for an overlapping target.`);
      Object.assign(env, input, { updatedAt: Date.now(), updatedBy: state.user.id });
      return { status: 200, body: renderEnv(env, false) };
    },
    'DELETE /v9/projects/:id/env/:envId': (req) => {
      const { p, env } = findEnv(req);
      p.env.splice(p.env.indexOf(env), 1);
      return { status: 200, body: renderEnv(env, false) };
    },
    'GET /v5/domains': (req) => {
      const { ownerId } = scopeOf(state, req);
      const domains = state.domains.filter((d) => d.ownerId === ownerId).map(renderDomain);
      return { status: 200, body: { domains, pagination: { count: domains.length, next: null, prev: null } } };
    },
    'GET /v5/domains/:domain': (req) => {
      const { ownerId } = scopeOf(state, req);
      const d = state.domains.find((x) => x.ownerId === ownerId && x.name === req.params.domain!.toLowerCase());
      if (!d) throw new VercelError(404, 'not_found', `The domain "${req.params.domain}" was not found.`);
      return { status: 200, body: { domain: renderDomain(d) } };
    },
  };
}
