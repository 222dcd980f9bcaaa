import type { SandboxRequest, SandboxResponse } from '../server.js';
import type { GhIssue, GhLabel, GhRepo, GhUser, GithubState, RepoRole } from './state.js';
import { treeSha, type GitCommit } from './git.js';
import { intParam, originOf } from '../util.js';

/** Shared pieces of the GitHub sandbox: errors, pagination, and the wire shapes of users, repos, commits. */

const DOCS = 'https://docs.github.com/rest';

export function errorBody(status: number, message: string, documentation_url = DOCS, errors?: unknown[]) {
  return errors ? { message, errors, documentation_url, status: String(status) } : { message, documentation_url, status: String(status) };
}

export class GhError extends Error {
  readonly body: Record<string, unknown>;
  constructor(
    readonly status: number,
    message: string,
    documentationUrl = DOCS,
    errors?: unknown[],
  ) {
    super(message);
    this.body = errorBody(status, message, documentationUrl, errors);
  }
}

export const notFound = (doc = DOCS) => new GhError(404, 'Not Found', doc);
export const validationFailed = (errors: unknown[], doc = DOCS) => new GhError(422, 'Validation Failed', doc, errors);
/** GitHub's wording when a required body field is absent on some endpoints (contents, refs). */
export const missingField = (field: string, doc = DOCS) => new GhError(422, `Invalid request.\n\n"${field}" wasn't supplied.`, doc);

/** Per-request rendering context: the state and the origin links should point back at. */
export interface Ctx {
  state: GithubState;
  api: string;
  req: SandboxRequest;
}
export const ctxOf = (state: GithubState, req: SandboxRequest): Ctx => ({ state, api: originOf(req), req });

/** `per_page` (default 30, max 100) and `page`, with GitHub's Link header. */
export function paginate<T>(req: SandboxRequest, items: T[]): { items: T[]; headers: Record<string, string> } {
  const perPage = intParam(req.query.get('per_page') ?? undefined, 30, 1, 100);
  const page = intParam(req.query.get('page') ?? undefined, 1, 1, 100_000);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (p: number, rel: string) => {
    const q = new URLSearchParams(req.query);
    q.set('page', String(p));
    return `<${originOf(req)}${req.path}?${q}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(Math.min(page - 1, last), 'prev'));
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) links.push(link(1, 'first'));
  return { items: items.slice((page - 1) * perPage, page * perPage), headers: links.length ? { link: links.join(', ') } : {} };
}

export function findRepo(ctx: Ctx, owner: string, name: string): GhRepo {
  const repo = ctx.state.repos.find((r) => r.owner.toLowerCase() === owner.toLowerCase() && r.name.toLowerCase() === name.toLowerCase());
  if (!repo || (repo.private && !roleOf(ctx.state, repo, ctx.state.login))) throw notFound('https://docs.github.com/rest/repos/repos#get-a-repository');
  return repo;
}

export function roleOf(state: GithubState, repo: GhRepo, login: string): RepoRole | undefined {
  if (repo.collaborators[login]) return repo.collaborators[login];
  if (repo.owner === login) return 'admin';
  if (state.orgs[repo.owner]?.members[login] === 'admin') return 'admin';
  return repo.private ? undefined : 'read';
}

export function permissionsOf(role: RepoRole | undefined) {
  const rank = { read: 1, triage: 2, write: 3, maintain: 4, admin: 5 }[role ?? 'read'] ?? 0;
  return { admin: rank >= 5, maintain: rank >= 4, push: rank >= 3, triage: rank >= 2, pull: rank >= 1 };
}

export function simpleUser(ctx: Ctx, login: string | null) {
  if (!login) return null;
  const u = ctx.state.users[login];
  const id = u?.id ?? 10_000 + [...login].reduce((n, c) => n + c.charCodeAt(0), 0);
  const url = `${ctx.api}/users/${login}`;
  return {
    login,
    id,
    node_id: u?.node_id ?? `U_sbx${id}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: '',
    url,
    html_url: `https://github.com/${login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: u?.type ?? 'User',
    user_view_type: 'public',
    site_admin: false,
  };
}

/** An organization as GET /orgs/{org} answers it. */
export function renderOrg(ctx: Ctx, u: GhUser, description: string | null, publicRepos: number) {
  const url = `${ctx.api}/orgs/${u.login}`;
  return {
    login: u.login,
    id: u.id,
    node_id: u.node_id,
    url,
    repos_url: `${url}/repos`,
    events_url: `${url}/events`,
    hooks_url: `${url}/hooks`,
    issues_url: `${url}/issues`,
    members_url: `${url}/members{/member}`,
    public_members_url: `${url}/public_members{/member}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${u.id}?v=4`,
    description,
    name: u.name,
    blog: u.blog,
    email: u.email,
    html_url: `https://github.com/${u.login}`,
    has_organization_projects: true,
    has_repository_projects: true,
    type: 'Organization',
    public_repos: publicRepos,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: u.created_at,
    updated_at: u.updated_at,
    archived_at: null,
  };
}

export function repoUrl(ctx: Ctx, repo: GhRepo): string {
  return `${ctx.api}/repos/${repo.owner}/${repo.name}`;
}

/** The hypermedia links every repository object carries, minimal ones included. */
function repoLinks(url: string) {
  return {
    archive_url: `${url}/{archive_format}{/ref}`,
    assignees_url: `${url}/assignees{/user}`,
    blobs_url: `${url}/git/blobs{/sha}`,
    branches_url: `${url}/branches{/branch}`,
    collaborators_url: `${url}/collaborators{/collaborator}`,
    comments_url: `${url}/comments{/number}`,
    commits_url: `${url}/commits{/sha}`,
    compare_url: `${url}/compare/{base}...{head}`,
    contents_url: `${url}/contents/{+path}`,
    contributors_url: `${url}/contributors`,
    deployments_url: `${url}/deployments`,
    downloads_url: `${url}/downloads`,
    events_url: `${url}/events`,
    forks_url: `${url}/forks`,
    git_commits_url: `${url}/git/commits{/sha}`,
    git_refs_url: `${url}/git/refs{/sha}`,
    git_tags_url: `${url}/git/tags{/sha}`,
    hooks_url: `${url}/hooks`,
    issue_comment_url: `${url}/issues/comments{/number}`,
    issue_events_url: `${url}/issues/events{/number}`,
    issues_url: `${url}/issues{/number}`,
    keys_url: `${url}/keys{/key_id}`,
    labels_url: `${url}/labels{/name}`,
    languages_url: `${url}/languages`,
    merges_url: `${url}/merges`,
    milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`,
    pulls_url: `${url}/pulls{/number}`,
    releases_url: `${url}/releases{/id}`,
    stargazers_url: `${url}/stargazers`,
    statuses_url: `${url}/statuses/{sha}`,
    subscribers_url: `${url}/subscribers`,
    subscription_url: `${url}/subscription`,
    tags_url: `${url}/tags`,
    teams_url: `${url}/teams`,
    trees_url: `${url}/git/trees{/sha}`,
  };
}

/** A repository as GitHub nests it in other objects (workflow runs, notifications): identity and links. */
export function minimalRepo(ctx: Ctx, repo: GhRepo) {
  const url = repoUrl(ctx, repo);
  const full = `${repo.owner}/${repo.name}`;
  return { id: repo.id, node_id: repo.node_id, name: repo.name, full_name: full, private: repo.private, owner: simpleUser(ctx, repo.owner), html_url: `https://github.com/${full}`, description: repo.description, fork: false, url, ...repoLinks(url) };
}

export function renderRepo(ctx: Ctx, repo: GhRepo) {
  const url = repoUrl(ctx, repo);
  const full = `${repo.owner}/${repo.name}`;
  const open = repo.issues.filter((i) => i.state === 'open').length;
  const size = Object.values(repo.git.blobs).reduce((n, b) => n + Math.ceil((b.length * 3) / 4), 0);
  return {
    id: repo.id,
    node_id: repo.node_id,
    name: repo.name,
    full_name: full,
    private: repo.private,
    owner: simpleUser(ctx, repo.owner),
    html_url: `https://github.com/${full}`,
    description: repo.description,
    fork: false,
    url,
    ...repoLinks(url),
    created_at: repo.created_at,
    updated_at: repo.updated_at,
    pushed_at: repo.pushed_at,
    git_url: `git://github.com/${full}.git`,
    ssh_url: `git@github.com:${full}.git`,
    clone_url: `https://github.com/${full}.git`,
    svn_url: `https://github.com/${full}`,
    homepage: repo.homepage,
    size: Math.ceil(size / 1024),
    stargazers_count: repo.stargazers.length,
    watchers_count: repo.stargazers.length,
    language: repo.language,
    has_issues: repo.has_issues,
    has_projects: repo.has_projects,
    has_downloads: true,
    has_wiki: repo.has_wiki,
    has_pages: false,
    has_discussions: repo.has_discussions,
    forks_count: repo.forks_count,
    mirror_url: null,
    archived: repo.archived,
    disabled: false,
    open_issues_count: open,
    license: repo.license ? { ...repo.license, url: `${ctx.api}/licenses/${repo.license.key}`, node_id: `MDc6TGljZW5zZ${repo.license.key}` } : null,
    allow_forking: true,
    is_template: false,
    web_commit_signoff_required: false,
    topics: repo.topics,
    visibility: repo.private ? 'private' : 'public',
    forks: repo.forks_count,
    open_issues: open,
    watchers: repo.stargazers.length,
    default_branch: repo.default_branch,
    permissions: permissionsOf(roleOf(ctx.state, repo, ctx.state.login)),
  };
}

/** A repository as GET /repos/{owner}/{repo} and repository creation answer it: with its network and organization. */
export function renderFullRepo(ctx: Ctx, repo: GhRepo) {
  return {
    ...renderRepo(ctx, repo),
    network_count: repo.forks_count,
    subscribers_count: repo.subscribers.length,
    ...(repo.owner in ctx.state.orgs ? { organization: simpleUser(ctx, repo.owner) } : {}),
  };
}

export function renderLabel(ctx: Ctx, repo: GhRepo, label: GhLabel) {
  return { ...label, url: `${repoUrl(ctx, repo)}/labels/${encodeURIComponent(label.name)}` };
}

const VERIFICATION = { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null };

export function renderCommit(ctx: Ctx, repo: GhRepo, c: GitCommit) {
  const url = repoUrl(ctx, repo);
  const loginOf = (email: string) => Object.values(ctx.state.users).find((u) => u.email === email)?.login ?? null;
  return {
    sha: c.sha,
    node_id: 'C_kwDO' + Buffer.from(c.sha.slice(0, 12)).toString('base64url'),
    commit: {
      author: c.author,
      committer: c.committer,
      message: c.message,
      tree: { sha: treeSha(c.tree), url: `${url}/git/trees/${treeSha(c.tree)}` },
      url: `${url}/git/commits/${c.sha}`,
      comment_count: 0,
      verification: VERIFICATION,
    },
    url: `${url}/commits/${c.sha}`,
    html_url: `https://github.com/${repo.owner}/${repo.name}/commit/${c.sha}`,
    comments_url: `${url}/commits/${c.sha}/comments`,
    author: simpleUser(ctx, c.authorLogin ?? loginOf(c.author.email)),
    committer: simpleUser(ctx, c.authorLogin ?? loginOf(c.committer.email)),
    parents: c.parents.map((p) => ({ sha: p, url: `${url}/commits/${p}`, html_url: `https://github.com/${repo.owner}/${repo.name}/commit/${p}` })),
  };
}

export function renderIssue(ctx: Ctx, repo: GhRepo, issue: GhIssue) {
  const url = `${repoUrl(ctx, repo)}/issues/${issue.number}`;
  const html = `https://github.com/${repo.owner}/${repo.name}/${issue.pull ? 'pull' : 'issues'}/${issue.number}`;
  const assignees = issue.assignees.map((a) => simpleUser(ctx, a));
  return {
    url,
    repository_url: repoUrl(ctx, repo),
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: html,
    id: issue.id,
    node_id: issue.node_id,
    number: issue.number,
    title: issue.title,
    user: simpleUser(ctx, issue.user),
    labels: issue.labels.map((n) => repo.labels.find((l) => l.name === n)).filter((l): l is GhLabel => !!l).map((l) => renderLabel(ctx, repo, l)),
    state: issue.state,
    locked: issue.locked,
    assignee: assignees[0] ?? null,
    assignees,
    milestone: null,
    comments: repo.comments.filter((c) => c.issue_number === issue.number).length,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at,
    author_association: roleOf(ctx.state, repo, issue.user) === 'admin' ? 'OWNER' : repo.collaborators[issue.user] ? 'COLLABORATOR' : 'CONTRIBUTOR',
    active_lock_reason: null,
    ...(issue.pull
      ? { draft: issue.pull.draft, pull_request: { url: `${repoUrl(ctx, repo)}/pulls/${issue.number}`, html_url: html, diff_url: `${html}.diff`, patch_url: `${html}.patch`, merged_at: issue.pull.merged_at } }
      : {}),
    body: issue.body,
    closed_by: simpleUser(ctx, issue.closed_by),
    state_reason: issue.state_reason,
  };
}

export const nowIso = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export function list<T>(req: SandboxRequest, items: T[], render: (item: T) => unknown): SandboxResponse {
  const page = paginate(req, items);
  return { status: 200, body: page.items.map(render), headers: page.headers };
}

export function findIssue(repo: GhRepo, n: string, pull = false): GhIssue {
  const issue = repo.issues.find((i) => String(i.number) === n);
  if (!issue || (pull && !issue.pull)) throw notFound();
  return issue;
}

export function assignable(state: GithubState, repo: GhRepo, login: string): boolean {
  return !!repo.collaborators[login] || !!state.orgs[repo.owner]?.members[login] || repo.owner === login;
}

export function sortIssues(req: SandboxRequest, issues: GhIssue[], comments: (i: GhIssue) => number): GhIssue[] {
  const sort = req.query.get('sort') ?? 'created';
  const desc = (req.query.get('direction') ?? 'desc') === 'desc';
  const key = (i: GhIssue) => (sort === 'updated' ? i.updated_at : sort === 'comments' ? String(comments(i)).padStart(8, '0') : i.created_at);
  return [...issues].sort((a, b) => (desc ? -1 : 1) * (key(a).localeCompare(key(b)) || a.number - b.number));
}

export function closeIssue(issue: GhIssue, login: string, reason = 'completed'): void {
  const when = nowIso();
  issue.state = 'closed';
  issue.state_reason = issue.pull ? null : reason;
  issue.closed_at = when;
  issue.closed_by = login;
  issue.updated_at = when;
}

