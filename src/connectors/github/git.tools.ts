import * as z from 'zod/v4';
import type { Api, ApiResponse } from '../../http/client.js';
import type { Tool } from '../../tool.js';
import { checkIso, clip, cursorField, filePath, githubPage, limitField, repoFields, repoPath } from './common.js';
import { github } from './connector.js';

/** Branches and commits. */

/** Files a get_commit result lists (GitHub pages a commit's files with per_page). */
const MAX_COMMIT_FILES = 30;
const MAX_PATCH_CHARS = 2000;

interface GhCommit {
  sha: string;
  html_url: string;
  commit: { message: string; author: { name: string; email: string; date: string } | null };
  author: { login: string } | null;
  parents: Array<{ sha: string }>;
  stats?: { additions: number; deletions: number; total: number };
  files?: Array<{ filename: string; status: string; additions: number; deletions: number; patch?: string }>;
}

/** The author's GitHub login, else the name in the commit. */
function authorOf(c: GhCommit): string | null {
  return c.author?.login ?? c.commit.author?.name ?? null;
}

/** A ref in a path: `feature/x` keeps its slash, each part encoded. */
function refPath(ref: string, field: string): string {
  return filePath(ref.replace(/^refs\/(heads|tags)\//, ''), field);
}

function textOf(res: ApiResponse): string {
  if (res.bodyEncoding === 'base64') return Buffer.from(String(res.body), 'base64').toString('utf8').trim();
  return String(res.body ?? '').trim();
}

/** A branch, tag or short sha → the full commit sha, with the one-line `sha` media type. */
async function resolveSha(api: Api, base: string, ref: string, field: string): Promise<string> {
  const res = await api.request({ method: 'GET', endpoint: `${base}/commits/${refPath(ref, field)}`, headers: { accept: 'application/vnd.github.sha' } });
  return textOf(res);
}

const createBranch = github.tool({
  name: 'create_branch',
  title: 'Create branch',
  description:
    'Create a branch from a branch, tag or sha (default: the default branch); returns its ref and sha. ' +
    'Commit with create_or_update_file.',
  input: z
    .object({
      ...repoFields,
      branch: z.string().min(1).describe('New branch name'),
      from: z.string().optional().describe('Branch, tag or sha; default branch'),
    })
    .strict(),
  output: z.object({ ref: z.string(), sha: z.string(), from: z.string() }),
  effect: 'write',
  async run({ owner, repo, branch, from }, { api }) {
    const base = repoPath(owner, repo);
    const name = branch.replace(/^refs\/heads\//, '');
    const start = from || (await api.get<{ default_branch: string }>(base)).default_branch;
    const sha = /^[0-9a-f]{40}$/i.test(start) ? start.toLowerCase() : await resolveSha(api, base, start, 'from');
    const ref = await api.post<{ ref: string; object: { sha: string } }>(`${base}/git/refs`, { ref: `refs/heads/${name}`, sha });
    return { ref: ref.ref, sha: ref.object.sha, from: start };
  },
});

const getCommit = github.tool({
  name: 'get_commit',
  title: 'Get commit',
  description:
    `Get one commit with stats and up to ${MAX_COMMIT_FILES} changed files with patches (cut at ${MAX_PATCH_CHARS} characters). ` +
    'Shas come from list_commits.',
  input: z.object({ ...repoFields, ref: z.string().min(1).describe('Commit sha, branch or tag') }).strict(),
  output: z.object({
    sha: z.string(),
    html_url: z.string(),
    message: z.string(),
    author: z.string().nullable().describe('Login, else name'),
    date: z.string().nullable(),
    parents: z.array(z.string()),
    additions: z.number(),
    deletions: z.number(),
    files: z.array(z.object({ filename: z.string(), status: z.string(), additions: z.number(), deletions: z.number(), patch: z.string().optional() })),
    more_files: z.boolean(),
  }),
  effect: 'read',
  async run({ owner, repo, ref }, { api }) {
    const res = await api.request({ method: 'GET', endpoint: `${repoPath(owner, repo)}/commits/${refPath(ref, 'ref')}`, query: { per_page: MAX_COMMIT_FILES } });
    const c = res.body as GhCommit;
    const files = c.files ?? [];
    return {
      sha: c.sha,
      html_url: c.html_url,
      message: c.commit.message,
      author: authorOf(c),
      date: c.commit.author?.date ?? null,
      parents: c.parents.map((p) => p.sha),
      additions: c.stats?.additions ?? files.reduce((n, f) => n + f.additions, 0),
      deletions: c.stats?.deletions ?? files.reduce((n, f) => n + f.deletions, 0),
      files: files.slice(0, MAX_COMMIT_FILES).map((f) => ({
        filename: f.filename,
        status: f.status,
        additions: f.additions,
        deletions: f.deletions,
        ...(f.patch !== undefined ? { patch: clip(f.patch, MAX_PATCH_CHARS)! } : {}),
      })),
      more_files: files.length > MAX_COMMIT_FILES || /rel="next"/.test(res.headers.link ?? ''),
    };
  },
});

const listCommits = github.tool({
  name: 'list_commits',
  title: 'List commits',
  description:
    'List commits newest first (sha, first message line, author, date), by path, author or time. ' +
    'get_commit shows one in full.',
  input: z
    .object({
      ...repoFields,
      sha: z.string().optional().describe('Branch or sha; default branch'),
      path: z.string().optional().describe('Only commits touching this path'),
      author: z.string().optional().describe('Login or email'),
      since: z.string().optional().describe('ISO 8601 time'),
      until: z.string().optional().describe('ISO 8601 time'),
      limit: limitField(100, 30),
      cursor: cursorField,
    })
    .strict(),
  output: z.object({
    commits: z.array(
      z.object({ sha: z.string(), message: z.string(), author: z.string().nullable(), date: z.string().nullable() }),
    ),
    next_cursor: z.string().nullable(),
  }),
  effect: 'read',
  async run({ owner, repo, sha, path, author, since, until, limit, cursor }, { api }) {
    const query = { sha: sha || undefined, path: path || undefined, author: author || undefined, since: checkIso(since, 'since'), until: checkIso(until, 'until') };
    const page = await githubPage<GhCommit>(api, `${repoPath(owner, repo)}/commits`, { limit: limit ?? 30, cursor, query });
    return {
      commits: page.items.map((c) => ({
        sha: c.sha,
        message: clip(c.commit.message.split('\n', 1)[0] ?? '', 200)!,
        author: authorOf(c),
        date: c.commit.author?.date ?? null,
      })),
      next_cursor: page.next_cursor,
    };
  },
});

export const gitTools: Tool[] = [createBranch, getCommit, listCommits];
