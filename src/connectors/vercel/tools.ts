import * as z from 'zod/v4';
import { InputError, ProviderError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import type { Tool } from '../../tool.js';
import { vercel } from './connector.js';

/** Create, list and cancel deployments (specification 4.5: POST /v13, GET /v6, GET /v13 + PATCH /v12 .../cancel). */

const ENVIRONMENTS = ['production', 'preview', 'development'] as const;
const STATES = ['READY', 'ERROR', 'BUILDING', 'QUEUED', 'CANCELED', 'INITIALIZING', 'BLOCKED'] as const;
/** "queued" and "ongoing" in the specification: the states Vercel lets a cancel stop. */
const CANCELABLE = ['QUEUED', 'INITIALIZING', 'BUILDING'];

/** Vercel's deployment targets are production, staging or a custom environment; "development" is local only. */
const DEVELOPMENT_REFUSED =
  'Vercel cannot create a "development" deployment: development is the environment of `vercel dev` on your own machine (and of development env vars), not a deployment target. ' +
  'Use environment "preview" to deploy the branch to a preview URL, or "production". Nothing was sent.';

const NO_DEVELOPMENT_DEPLOYMENTS =
  'Vercel has no "development" deployments: development is the environment of `vercel dev` on your own machine (and of development env vars). ' +
  'Filter by "preview" (every non-production deployment) or "production".';

interface VercelDeployment {
  id?: string;
  uid?: string;
  url?: string | null;
  name?: string;
  readyState?: string;
  state?: string;
  status?: string;
  target?: string | null;
  inspectorUrl?: string | null;
  created?: number;
  createdAt?: number;
  creator?: { username?: string; githubLogin?: string } | null;
  meta?: Record<string, string>;
}

interface VercelProject {
  id: string;
  name: string;
  link?: { type?: string; org?: string; repo?: string; repoId?: number } | null;
}

/** One path segment from a caller's value; a deployment URL may be given with its scheme. */
function segment(value: string, field: string): string {
  const v = value.trim().replace(/^https?:\/\//i, '').replace(/\/+$/, '');
  if (!v || v === '.' || v === '..' || v.includes('/')) {
    throw new InputError(`"${field}" must be a single id or name without '/' (got ${JSON.stringify(value.slice(0, 80))}).`, field);
  }
  return encodeURIComponent(v);
}

const https = (host: string | null | undefined) => (host ? (/^https?:\/\//.test(host) ? host : `https://${host}`) : null);

/** The project, so an unknown name fails here instead of Vercel creating a new project by that name. */
async function findProject(api: Api, project: string): Promise<VercelProject> {
  try {
    return await api.get<VercelProject>(`/v9/projects/${segment(project, 'project')}`);
  } catch (error) {
    if (error instanceof ProviderError && error.status === 404) {
      throw new InputError(
        `No Vercel project "${project}" in this account: check the name or id (vercel_api_call GET /v9/projects lists them; a team's projects need an account connected to that team). Nothing was deployed.`,
        'project',
      );
    }
    throw error;
  }
}

type GitSource = { type: 'github'; ref: string; sha?: string } & ({ org: string; repo: string } | { repoId: number });

/** The caller's repo or repo_id as a gitSource, checked before anything is sent; undefined: use the project's link. */
function explicitSource(input: { repo?: string; repo_id?: number; branch: string }): GitSource | undefined {
  if (input.repo !== undefined && input.repo_id !== undefined) throw new InputError('Give "repo" or "repo_id", not both. Nothing was sent.', 'repo_id');
  if (input.repo !== undefined) {
    const m = /^([\w.-]+)\/([\w.-]+)$/.exec(input.repo.trim().replace(/\.git$/, ''));
    if (!m) throw new InputError(`"repo" must be owner/name, such as octo/hello-world (got ${JSON.stringify(input.repo.slice(0, 80))}). Nothing was sent.`, 'repo');
    return { type: 'github', org: m[1]!, repo: m[2]!, ref: input.branch };
  }
  if (input.repo_id !== undefined) return { type: 'github', repoId: input.repo_id, ref: input.branch };
  return undefined;
}

/** The project's linked GitHub repository, as the spec's "target branch" deployments of a project use it. */
function linkedSource(project: VercelProject, branch: string): GitSource {
  const link = project.link;
  if (link?.type === 'github' && typeof link.repoId === 'number' && link.repoId > 0) return { type: 'github', repoId: link.repoId, ref: branch };
  if (link?.type === 'github' && link.org && link.repo) return { type: 'github', org: link.org, repo: link.repo, ref: branch };
  throw new InputError(
    `Project "${project.name}" has no linked GitHub repository${link?.type ? ` (it is linked to ${link.type})` : ''}: pass "repo" (owner/name) or "repo_id". ` +
      'Other git providers: vercel_api_call POST /v13/deployments with their gitSource. Nothing was deployed.',
    'repo',
  );
}

const createDeployment = vercel.tool({
  name: 'create_deployment',
  title: 'Create deployment',
  description:
    'Deploy a GitHub branch of a project to preview or production; returns its id, URL and status. ' +
    'cancel_deployment stops it.',
  input: z
    .object({
      project: z.string().min(1).describe('Project name or id'),
      branch: z.string().min(1).describe('Git branch'),
      environment: z.enum(ENVIRONMENTS).optional().describe('Default preview; not development'),
      repo: z.string().optional().describe("GitHub owner/name; default the project's"),
      repo_id: z.number().int().positive().optional().describe('Instead of repo'),
      commit: z.string().optional().describe('Full sha; default branch head'),
    })
    .strict(),
  output: z.object({
    id: z.string(),
    url: z.string().nullable(),
    status: z.string().describe('readyState'),
    target: z.string().nullable().describe('null: preview'),
    inspectorUrl: z.string().nullable(),
  }),
  effect: 'write',
  async run(input, { api }) {
    if (input.environment === 'development') throw new InputError(DEVELOPMENT_REFUSED, 'environment');
    if (input.commit !== undefined && !/^[0-9a-f]{40}$/i.test(input.commit)) {
      throw new InputError(`"commit" must be a full 40-character commit SHA (got ${JSON.stringify(input.commit.slice(0, 60))}). Nothing was sent.`, 'commit');
    }
    const explicit = explicitSource(input);
    const project = await findProject(api, input.project);
    const gitSource = explicit ?? linkedSource(project, input.branch);
    if (input.commit) gitSource.sha = input.commit.toLowerCase();
    // Preview is Vercel's default: it is chosen by leaving `target` out.
    const body = { name: project.name, project: project.id, ...(input.environment === 'production' ? { target: 'production' } : {}), gitSource };
    const d = await api.post<VercelDeployment>('/v13/deployments', body);
    return {
      id: d.id ?? d.uid ?? '',
      url: https(d.url),
      status: d.readyState ?? d.status ?? 'QUEUED',
      target: d.target ?? null,
      inspectorUrl: d.inspectorUrl ?? null,
    };
  },
});

const CURSOR_PREFIX = 'v1.';

/** The cursor holds the first page's query with `until` = pagination.next, so later pages keep the filters. */
function encodeCursor(query: Record<string, string>, next: number | null | undefined): string | null {
  if (typeof next !== 'number') return null;
  return CURSOR_PREFIX + Buffer.from(JSON.stringify({ ...query, until: String(next) }), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): Record<string, string> {
  try {
    if (!cursor.startsWith(CURSOR_PREFIX)) throw new Error();
    const q = JSON.parse(Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8')) as unknown;
    if (!q || typeof q !== 'object' || Array.isArray(q) || !Object.values(q).every((v) => typeof v === 'string')) throw new Error();
    return q as Record<string, string>;
  } catch {
    throw new InputError('"cursor" is not a next_cursor from vercel_list_deployments; omit it to start from the first page.', 'cursor');
  }
}

/** ISO 8601 or epoch milliseconds, as Vercel's `since`/`until` want them (ms). */
function toMs(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) {
    const n = Number(value);
    if (Number.isSafeInteger(n) && n >= 0) return String(n);
  } else if (/^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value))) {
    return String(Date.parse(value));
  }
  throw new InputError(`"${field}" must be an ISO 8601 time such as 2026-05-01T12:00:00Z, or epoch milliseconds (got ${JSON.stringify(String(value).slice(0, 40))}).`, field);
}

const rowShape = z.object({
  uid: z.string(),
  name: z.string(),
  url: z.string().nullable(),
  state: z.string(),
  target: z.string().nullable().describe('null: preview'),
  created: z.string(),
  creator: z.string().nullable().describe('Username'),
  ref: z.string().nullable().describe('Git branch'),
  sha: z.string().nullable(),
});

const listDeployments = vercel.tool({
  name: 'list_deployments',
  title: 'List deployments',
  description:
    'List deployments newest first, by project, environment, state or time. ' +
    'cancel_deployment takes the uid.',
  input: z
    .object({
      project: z.string().min(1).optional().describe('Project name or id'),
      environment: z.enum(ENVIRONMENTS).optional().describe('production or preview'),
      state: z.array(z.enum(STATES)).optional().describe('Only these states'),
      since: z.string().optional().describe('After: ISO 8601 or epoch ms'),
      until: z.string().optional().describe('Before: ISO 8601 or epoch ms'),
      limit: z.number().int().min(1).max(100).optional().describe('Default 20'),
      cursor: z.string().optional(),
    })
    .strict(),
  output: z.object({ deployments: z.array(rowShape), next_cursor: z.string().nullable() }),
  effect: 'read',
  records: 'deployments',
  async run(input, { api }) {
    let query: Record<string, string>;
    if (input.cursor) {
      query = decodeCursor(input.cursor);
    } else {
      if (input.environment === 'development') throw new InputError(NO_DEVELOPMENT_DEPLOYMENTS, 'environment');
      const entries: Array<[string, string | undefined]> = [
        ['projectId', input.project?.trim()],
        ['target', input.environment],
        ['state', input.state?.join(',')],
        ['since', toMs(input.since, 'since')],
        ['until', toMs(input.until, 'until')],
      ];
      query = Object.fromEntries(entries.filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
    }
    const limit = input.limit ?? (query.limit ? Number(query.limit) : 20);
    query = { ...query, limit: String(limit) };
    const res = await api.request({ method: 'GET', endpoint: '/v6/deployments', query });
    const body = (res.body ?? {}) as { deployments?: VercelDeployment[]; pagination?: { next?: number | null } };
    const deployments = (body.deployments ?? []).map((d) => ({
      uid: d.uid ?? d.id ?? '',
      name: d.name ?? '',
      url: https(d.url),
      state: d.readyState ?? d.state ?? 'UNKNOWN',
      target: d.target ?? null,
      created: new Date(d.created ?? d.createdAt ?? 0).toISOString(),
      creator: d.creator?.username ?? d.creator?.githubLogin ?? null,
      ref: d.meta?.githubCommitRef ?? d.meta?.gitlabCommitRef ?? d.meta?.bitbucketCommitRef ?? null,
      sha: d.meta?.githubCommitSha ?? d.meta?.gitlabCommitSha ?? d.meta?.bitbucketCommitSha ?? null,
    }));
    // Vercel can answer a next timestamp with a short last page; an empty page ends the walk.
    const next = deployments.length ? encodeCursor(query, body.pagination?.next) : null;
    return { deployments, next_cursor: next };
  },
});

const cancelDeployment = vercel.tool({
  name: 'cancel_deployment',
  title: 'Cancel deployment',
  description:
    'Cancel a deployment that is queued or building; else its state is returned. ' +
    'Ids come from list_deployments.',
  input: z.object({ id: z.string().min(1).describe('dpl_... id or URL') }).strict(),
  output: z.object({
    canceled: z.boolean().describe('This call stopped it'),
    id: z.string(),
    state: z.string().describe('readyState now'),
    note: z.string().optional(),
  }),
  // Destructive: a canceled build cannot be resumed, only deployed again. Idempotent: a second call changes nothing.
  effect: 'delete',
  idempotent: true,
  async run({ id }, { api }) {
    const current = await api.get<VercelDeployment>(`/v13/deployments/${segment(id, 'id')}`);
    const uid = current.id ?? current.uid ?? id;
    const state = current.readyState ?? current.status ?? 'UNKNOWN';
    const leave = (now: string, why: string) => ({
      canceled: false,
      id: uid,
      state: now,
      note: `${why} Only QUEUED, INITIALIZING or BUILDING deployments can be canceled; nothing was changed.`,
    });
    if (!CANCELABLE.includes(state)) return leave(state, `The deployment is ${state}.`);
    try {
      const done = await api.patch<VercelDeployment>(`/v12/deployments/${encodeURIComponent(uid)}/cancel`);
      return { canceled: true, id: uid, state: done.readyState ?? done.status ?? 'CANCELED' };
    } catch (error) {
      // It may have finished between the two calls: Vercel then refuses the cancel with a 400.
      if (!(error instanceof ProviderError) || error.status !== 400) throw error;
      const after = await api.get<VercelDeployment>(`/v13/deployments/${encodeURIComponent(uid)}`);
      const now = after.readyState ?? after.status ?? 'UNKNOWN';
      if (CANCELABLE.includes(now)) throw error;
      return leave(now, `The deployment became ${now} before the cancel arrived.`);
    }
  },
});

export const vercelTools: Tool[] = [createDeployment, listDeployments, cancelDeployment];
