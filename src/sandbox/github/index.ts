import { createHash, randomUUID } from 'node:crypto';
import type { Routes, SandboxResponse } from '../server.js';
import { ORGS, USERS, seedRepos } from './data.js';
import type { GitStore } from './git.js';
import { actionsRoutes } from './actions.js';
import { gistRoutes } from './gists.js';
import { hookRoutes } from './hooks.js';
import { issueRoutes } from './issues.js';
import { graphqlRoutes } from './projects.js';
import { pullRoutes } from './pulls.js';
import { GhError, errorBody } from './render.js';
import { repoRoutes } from './repos.js';
import { searchRoutes } from './search.js';
import { bearerToken, header, withMiddleware } from '../util.js';

/** GitHub REST stand-in: rate limits, ETags, Link pagination, and a tiny git underneath. */

export type RepoRole = 'admin' | 'maintain' | 'write' | 'triage' | 'read';

export interface GhUser {
  login: string;
  id: number;
  node_id: string;
  type: 'User' | 'Organization';
  name: string | null;
  email: string | null;
  company: string | null;
  blog: string;
  location: string | null;
  bio: string | null;
  twitter_username: string | null;
  created_at: string;
  updated_at: string;
}
export interface GhLabel {
  id: number;
  node_id: string;
  name: string;
  color: string;
  description: string | null;
  default: boolean;
}
export interface GhComment {
  id: number;
  node_id: string;
  issue_number: number;
  body: string;
  user: string;
  created_at: string;
  updated_at: string;
}
export interface GhReview {
  id: number;
  node_id: string;
  user: string;
  body: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED';
  submitted_at: string;
  commit_id: string;
}
export interface GhPull {
  head: string;
  base: string;
  draft: boolean;
  merged_at: string | null;
  merged_by: string | null;
  merge_commit_sha: string | null;
  /** The head sha when the pull request was closed or merged (its branch may be gone). */
  head_sha: string | null;
  requested_reviewers: string[];
  reviews: GhReview[];
  maintainer_can_modify: boolean;
}
/** Issues and pull requests share one numbering; a pull request is an issue with `pull`. */
export interface GhIssue {
  id: number;
  node_id: string;
  number: number;
  title: string;
  body: string | null;
  user: string;
  state: 'open' | 'closed';
  state_reason: string | null;
  labels: string[];
  assignees: string[];
  locked: boolean;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  closed_by: string | null;
  pull?: GhPull;
}
export interface GhInvitation {
  id: number;
  invitee: string;
  inviter: string;
  permissions: string;
  created_at: string;
}
export interface GhRelease {
  id: number;
  node_id: string;
  tag_name: string;
  target_commitish: string;
  name: string;
  body: string;
  draft: boolean;
  prerelease: boolean;
  author: string;
  created_at: string;
  published_at: string | null;
}
export interface GhRepo {
  id: number;
  node_id: string;
  name: string;
  owner: string;
  private: boolean;
  description: string | null;
  homepage: string | null;
  language: string | null;
  topics: string[];
  default_branch: string;
  created_at: string;
  updated_at: string;
  pushed_at: string;
  has_issues: boolean;
  has_projects: boolean;
  has_wiki: boolean;
  has_discussions: boolean;
  archived: boolean;
  license: { key: string; name: string; spdx_id: string } | null;
  stargazers: string[];
  subscribers: string[];
  forks_count: number;
  git: GitStore;
  protected_branches: string[];
  labels: GhLabel[];
  issues: GhIssue[];
  comments: GhComment[];
  collaborators: Record<string, RepoRole>;
  invitations: GhInvitation[];
  releases: GhRelease[];
}
export interface RateBucket {
  limit: number;
  used: number;
  /** Epoch seconds. */
  reset: number;
}
export interface GithubState {
  /** Tokens this sandbox accepts; all act as `login`. */
  tokens: Set<string>;
  /** Sent as x-oauth-scopes. */
  scopes: string[];
  login: string;
  users: Record<string, GhUser>;
  orgs: Record<string, { description: string; members: Record<string, 'admin' | 'member'> }>;
  repos: GhRepo[];
  rateLimits: Record<'core' | 'search' | 'graphql' | 'unauthenticated', RateBucket>;
  seq: number;
  /** Whether changes made through the API send webhook deliveries (tests that deliver by hand turn it off). */
  webhooksOnChange: boolean;
}

export const GITHUB_SAMPLE_TOKEN = 'sbx-github-token-0001';
const SUPPORTED_VERSIONS = ['2022-11-28', '2026-03-10'];

export function createGithubState(): GithubState {
  const reset = Math.floor(Date.now() / 1000) + 3600;
  return {
    tokens: new Set([GITHUB_SAMPLE_TOKEN]),
    scopes: ['gist', 'project', 'read:org', 'repo', 'workflow'],
    login: 'sbx-octocat',
    webhooksOnChange: true,
    users: structuredClone(USERS),
    orgs: structuredClone(ORGS),
    repos: seedRepos(),
    rateLimits: {
      core: { limit: 5000, used: 0, reset },
      search: { limit: 30, used: 0, reset: reset - 3540 },
      graphql: { limit: 5000, used: 0, reset },
      unauthenticated: { limit: 60, used: 0, reset },
    },
    seq: 10_000_000,
  };
}

function bucketHeaders(name: string, b: RateBucket): Record<string, string> {
  return {
    'x-ratelimit-limit': String(b.limit),
    'x-ratelimit-remaining': String(Math.max(0, b.limit - b.used)),
    'x-ratelimit-used': String(b.used),
    'x-ratelimit-reset': String(b.reset),
    'x-ratelimit-resource': name === 'unauthenticated' ? 'core' : name,
  };
}

function refreshWindow(b: RateBucket, seconds: number): void {
  const now = Math.floor(Date.now() / 1000);
  if (now >= b.reset) {
    b.used = 0;
    b.reset = now + seconds;
  }
}

/** `If-None-Match` holds one or more entity tags, weak or strong, or `*`. */
function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || bare(t) === bare(etag));
}

export function githubRoutes(state: GithubState): Routes {
  const routes = { ...repoRoutes(state), ...issueRoutes(state), ...pullRoutes(state), ...searchRoutes(state), ...graphqlRoutes(state), ...actionsRoutes(state), ...gistRoutes(state) };
  for (const [key, handler] of Object.entries(hookRoutes(state))) routes[key] ??= handler; // webhooks + polled endpoints; never replaces a route
  return withMiddleware(routes, async (req, next) => {
    const base: Record<string, string> = {
      'x-github-media-type': 'github.v3; format=json',
      'x-github-api-version-selected': header(req, 'x-github-api-version') ?? SUPPORTED_VERSIONS[0]!,
      'x-github-request-id': randomUUID().slice(0, 18).toUpperCase().replace(/-/g, ':'),
    };
    const token = bearerToken(req, ['bearer', 'token']);
    if (!token || !state.tokens.has(token)) {
      const b = state.rateLimits.unauthenticated;
      refreshWindow(b, 3600);
      b.used += 1;
      const message = token ? 'Bad credentials' : 'Requires authentication';
      return { status: 401, headers: { ...base, ...bucketHeaders('unauthenticated', b) }, body: errorBody(401, message, 'https://docs.github.com/rest') };
    }
    const version = header(req, 'x-github-api-version');
    if (version && !SUPPORTED_VERSIONS.includes(version)) {
      return { status: 400, headers: base, body: errorBody(400, `API version ${version} is not supported. Supported versions: ${SUPPORTED_VERSIONS.join(', ')}.`, 'https://docs.github.com/rest/about-the-rest-api/api-versions') };
    }
    const path = req.path.replace(ENTERPRISE_PREFIX, '');
    const resource = path.startsWith('/search/') ? 'search' : path === '/graphql' ? 'graphql' : 'core';
    const bucket = state.rateLimits[resource];
    refreshWindow(bucket, resource === 'search' ? 60 : 3600);
    const counted = path.replace(/\/$/, '') !== '/rate_limit';
    const auth = { 'x-oauth-scopes': state.scopes.join(', '), 'x-accepted-oauth-scopes': '' };
    if (counted && bucket.used >= bucket.limit) {
      return {
        status: 403,
        headers: { ...base, ...auth, ...bucketHeaders(resource, bucket) },
        body: errorBody(403, `API rate limit exceeded for user ID ${state.users[state.login]?.id}.`, 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api'),
      };
    }
    let res: SandboxResponse;
    try {
      res = await next(req);
    } catch (error) {
      if (!(error instanceof GhError)) throw error;
      res = { status: error.status, body: error.body };
    }
    const headers: Record<string, string> = { ...base, ...auth, ...res.headers };
    if (req.method === 'GET' && (res.status ?? 200) === 200 && res.body !== undefined) {
      const bytes = Buffer.isBuffer(res.body) ? res.body : Buffer.from(typeof res.body === 'string' ? res.body : JSON.stringify(res.body));
      const etag = `W/"${createHash('sha256').update(bytes).digest('hex').slice(0, 40)}"`;
      headers.etag = etag;
      headers['cache-control'] = 'private, max-age=60, s-maxage=60';
      // A 304 does not count against the primary rate limit.
      if (etagMatches(header(req, 'if-none-match'), etag)) {
        return { status: 304, headers: { ...headers, ...bucketHeaders(resource, bucket) } };
      }
    }
    if (counted) bucket.used += 1;
    return { ...res, headers: { ...headers, ...bucketHeaders(resource, bucket) } };
  });
}

/** The route table (same as githubRoutes). */
export const routes = githubRoutes;

const ENTERPRISE_PREFIX = /^\/api(?:\/v3)?(?=\/)/;

/** The same API laid out as GitHub Enterprise Server serves it: REST under /api/v3, GraphQL at /api/graphql. */
export function githubEnterpriseRoutes(state: GithubState): Routes {
  return Object.fromEntries(
    Object.entries(githubRoutes(state)).map(([key, handler]) => {
      const [method, path] = key.split(' ', 2) as [string, string];
      return [`${method} ${path === '/graphql' ? '/api/graphql' : `/api/v3${path}`}`, handler];
    }),
  );
}
