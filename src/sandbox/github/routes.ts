import { createHash, randomUUID } from 'node:crypto';
import type { Routes, SandboxResponse } from '../server.js';
import { ORGS, USERS, seedRepos } from './data.js';
import { actionsRoutes } from './actions.js';
import { gistRoutes } from './gists.js';
import { hookRoutes } from './hooks.js';
import { polledRoutes } from './polled.js';
import { issueRoutes } from './issues.js';
import { graphqlRoutes } from './projects.js';
import { pullRoutes } from './pulls.js';
import { GhError, errorBody } from './render.js';
import { repoRoutes } from './repos.js';
import { searchRoutes } from './search.js';
import { GITHUB_SAMPLE_TOKEN, type GithubState, type RateBucket } from './state.js';
import { bearerToken, header, withMiddleware } from '../util.js';

/** GitHub REST stand-in: rate limits, ETags, Link pagination, and a tiny git underneath. */

export { GITHUB_SAMPLE_TOKEN, type GithubState } from './state.js';

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
  for (const [key, handler] of Object.entries({ ...hookRoutes(state), ...polledRoutes(state) })) routes[key] ??= handler; // webhooks + polled endpoints; never replaces a route
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
