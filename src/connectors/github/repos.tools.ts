import * as z from 'zod/v4';
import { ProviderError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import type { Tool } from '../../tool.js';
import { clip, cursorField, githubPage, limitField, repoFields, repoPath, segment } from './common.js';
import { github } from './connector.js';
import { contentsTools } from './contents.tools.js';
import { gitTools } from './git.tools.js';

/** Repositories, stars and releases; contents and git live in their own files and are listed here too. */

interface GhRepo {
  full_name: string;
  description: string | null;
  private: boolean;
  default_branch: string;
  html_url: string;
  clone_url: string;
  language: string | null;
  topics?: string[];
  stargazers_count: number;
  forks_count: number;
  open_issues_count: number;
  archived: boolean;
  pushed_at: string | null;
  permissions?: { admin?: boolean; maintain?: boolean; push?: boolean; triage?: boolean; pull?: boolean };
}

/** The highest of the spec's permission levels the account holds (pull, triage, push, maintain, admin). */
function permissionOf(p: GhRepo['permissions']): string | null {
  if (!p) return null;
  return (['admin', 'maintain', 'push', 'triage', 'pull'] as const).find((k) => p[k]) ?? null;
}

const MOVED = [301, 302, 307];

/** GET that follows GitHub's 301/307 for renamed or transferred repositories (the URL guard still applies, 3 hops at most). */
async function getFollowingMoves(api: Api, endpoint: string): Promise<unknown> {
  let res = await api.request({ method: 'GET', endpoint, acceptStatus: MOVED });
  for (let hop = 1; MOVED.includes(res.status); hop++) {
    const target = res.headers.location ?? (res.body as { url?: string } | null)?.url;
    if (!target) {
      throw new ProviderError({ connector: 'github', status: res.status, method: 'GET', path: new URL(res.url).pathname, providerMessage: 'moved, without saying where' });
    }
    res = await api.request({ method: 'GET', endpoint: target, endpointField: 'repo', acceptStatus: hop < 3 ? MOVED : [] });
  }
  return res.body;
}

const createRepository = github.tool({
  name: 'create_repository',
  title: 'Create repository',
  description:
    'Create a repository for you or an org; returns its full_name, URLs and default branch. ' +
    'create_branch needs auto_init.',
  input: z
    .object({
      name: z.string().min(1).describe('Repo name'),
      org: z.string().optional().describe('Org login; omit for yours'),
      description: z.string().optional().describe('Description'),
      private: z.boolean().optional().describe('Default false'),
      auto_init: z.boolean().optional().describe('Commit a README first'),
      gitignore_template: z.string().optional().describe('e.g. Node'),
      license_template: z.string().optional().describe('e.g. mit'),
    })
    .strict(),
  output: z.object({ full_name: z.string(), html_url: z.string(), clone_url: z.string(), default_branch: z.string(), private: z.boolean() }),
  effect: 'write',
  async run({ org, ...body }, { api }) {
    const endpoint = org !== undefined ? `/orgs/${segment(org, 'org')}/repos` : '/user/repos';
    const r = await api.post<GhRepo>(endpoint, body);
    return { full_name: r.full_name, html_url: r.html_url, clone_url: r.clone_url, default_branch: r.default_branch, private: r.private };
  },
});

const getRepository = github.tool({
  name: 'get_repository',
  title: 'Get repository',
  description:
    'Get a repository: description, default branch, visibility, language, topics, counts and your permission. ' +
    'Follows renames.',
  input: z.object({ ...repoFields }).strict(),
  output: z.object({
    full_name: z.string(),
    description: z.string().nullable(),
    private: z.boolean(),
    default_branch: z.string(),
    html_url: z.string(),
    language: z.string().nullable(),
    topics: z.array(z.string()),
    stargazers_count: z.number(),
    forks_count: z.number(),
    open_issues_count: z.number(),
    archived: z.boolean(),
    pushed_at: z.string().nullable(),
    permission: z.string().nullable().describe('pull|triage|push|maintain|admin'),
  }),
  effect: 'read',
  async run({ owner, repo }, { api }) {
    const r = (await getFollowingMoves(api, repoPath(owner, repo))) as GhRepo;
    return {
      full_name: r.full_name,
      description: r.description,
      private: r.private,
      default_branch: r.default_branch,
      html_url: r.html_url,
      language: r.language,
      topics: r.topics ?? [],
      stargazers_count: r.stargazers_count,
      forks_count: r.forks_count,
      open_issues_count: r.open_issues_count,
      archived: r.archived,
      pushed_at: r.pushed_at,
      permission: permissionOf(r.permissions),
    };
  },
});

const starRepository = github.tool({
  name: 'star_repository',
  title: 'Star repository',
  description: 'Star a repository as the account user; returns starred: true, also when it was starred already.',
  input: z.object({ ...repoFields }).strict(),
  output: z.object({ starred: z.boolean(), full_name: z.string() }),
  effect: 'write',
  idempotent: true,
  async run({ owner, repo }, { api }) {
    await api.request({ method: 'PUT', endpoint: `/user/starred/${segment(owner, 'owner')}/${segment(repo, 'repo')}` });
    return { starred: true, full_name: `${owner}/${repo}` };
  },
});

interface GhRelease {
  tag_name: string;
  name: string | null;
  draft: boolean;
  prerelease: boolean;
  published_at: string | null;
  html_url: string;
  body?: string | null;
}

const listReleases = github.tool({
  name: 'list_releases',
  title: 'List releases',
  description:
    'List releases newest first with tag, flags, date, URL and notes (cut at 500 characters). ' +
    'Drafts need push access.',
  input: z.object({ ...repoFields, limit: limitField(100, 10), cursor: cursorField }).strict(),
  output: z.object({
    releases: z.array(
      z.object({
        tag_name: z.string(),
        name: z.string().nullable(),
        draft: z.boolean(),
        prerelease: z.boolean(),
        published_at: z.string().nullable(),
        html_url: z.string(),
        body: z.string().nullable(),
      }),
    ),
    next_cursor: z.string().nullable(),
  }),
  effect: 'read',
  records: 'releases',
  async run({ owner, repo, limit, cursor }, { api }) {
    const page = await githubPage<GhRelease>(api, `${repoPath(owner, repo)}/releases`, { limit: limit ?? 10, cursor });
    return {
      releases: page.items.map((r) => ({
        tag_name: r.tag_name,
        name: r.name,
        draft: r.draft,
        prerelease: r.prerelease,
        published_at: r.published_at,
        html_url: r.html_url,
        body: clip(r.body, 500),
      })),
      next_cursor: page.next_cursor,
    };
  },
});

export const reposTools: Tool[] = [createRepository, getRepository, ...contentsTools, starRepository, ...gitTools, listReleases];
