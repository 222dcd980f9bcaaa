import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import type { GhRepo, GithubState } from './state.js';
import { emptyRepo } from './data.js';
import { getContents, writeContents } from './contents.js';
import { commit, diffTrees, history, resolveRef } from './git.js';
import {
  GhError,
  ctxOf,
  findRepo,
  missingField,
  notFound,
  nowIso,
  paginate,
  permissionsOf,
  renderCommit,
  renderFullRepo,
  renderOrg,
  renderRepo,
  repoUrl,
  roleOf,
  simpleUser,
  validationFailed,
  type Ctx,
} from './render.js';
import { header, isObject } from '../util.js';

/** Users, repositories, branches, refs, commits, releases, rate limit (contents: contents.ts). */

const DOC = {
  branch: 'https://docs.github.com/rest/branches/branches#get-a-branch',
  refs: 'https://docs.github.com/rest/git/refs#create-a-reference',
  commit: 'https://docs.github.com/rest/commits/commits#get-a-commit',
  createRepo: 'https://docs.github.com/rest/repos/repos#create-a-repository-for-the-authenticated-user',
  createOrgRepo: 'https://docs.github.com/rest/repos/repos#create-an-organization-repository',
};

const ok = (body: unknown, headers?: Record<string, string>): SandboxResponse => ({ status: 200, body, headers });

function list<T>(req: SandboxRequest, items: T[], render: (item: T) => unknown): SandboxResponse {
  const page = paginate(req, items);
  return { status: 200, body: page.items.map(render), headers: page.headers };
}

function renderRelease(ctx: Ctx, repo: GhRepo, r: GhRepo['releases'][number]) {
  const url = `${repoUrl(ctx, repo)}/releases/${r.id}`;
  const html = `https://github.com/${repo.owner}/${repo.name}`;
  return {
    url,
    html_url: `${html}/releases/tag/${r.tag_name}`,
    assets_url: `${url}/assets`,
    upload_url: `https://uploads.github.com/repos/${repo.owner}/${repo.name}/releases/${r.id}/assets{?name,label}`,
    tarball_url: `${repoUrl(ctx, repo)}/tarball/${r.tag_name}`,
    zipball_url: `${repoUrl(ctx, repo)}/zipball/${r.tag_name}`,
    id: r.id,
    node_id: r.node_id,
    tag_name: r.tag_name,
    target_commitish: r.target_commitish,
    name: r.name,
    draft: r.draft,
    prerelease: r.prerelease,
    created_at: r.created_at,
    published_at: r.published_at,
    author: simpleUser(ctx, r.author),
    assets: [],
    body: r.body,
  };
}

function privateUser(ctx: Ctx) {
  const u = ctx.state.users[ctx.state.login]!;
  const mine = ctx.state.repos.filter((r) => r.owner === u.login);
  return {
    ...simpleUser(ctx, u.login),
    name: u.name,
    company: u.company,
    blog: u.blog,
    location: u.location,
    email: u.email,
    hireable: null,
    bio: u.bio,
    twitter_username: u.twitter_username,
    notification_email: u.email,
    public_repos: mine.filter((r) => !r.private).length,
    public_gists: 0,
    followers: 2,
    following: 1,
    created_at: u.created_at,
    updated_at: u.updated_at,
    private_gists: 0,
    total_private_repos: mine.filter((r) => r.private).length,
    owned_private_repos: mine.filter((r) => r.private).length,
    disk_usage: 120,
    collaborators: 1,
    two_factor_authentication: true,
    plan: { name: 'free', space: 976562499, collaborators: 0, private_repos: 10000 },
  };
}

function createRepo(state: GithubState, req: SandboxRequest, owner: string): SandboxResponse {
  const ctx = ctxOf(state, req);
  const body = isObject(req.body) ? req.body : {};
  const doc = owner === state.login ? DOC.createRepo : DOC.createOrgRepo;
  if (typeof body.name !== 'string' || !body.name) throw validationFailed([{ resource: 'Repository', code: 'missing_field', field: 'name' }], doc);
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(body.name)) throw validationFailed([{ resource: 'Repository', code: 'invalid', field: 'name' }], doc);
  if (state.repos.some((r) => r.owner === owner && r.name.toLowerCase() === body.name.toLowerCase())) {
    throw new GhError(422, 'Repository creation failed.', doc, [{ resource: 'Repository', code: 'custom', field: 'name', message: 'name already exists on this account' }]);
  }
  const when = nowIso();
  const repo = emptyRepo(++state.seq, owner, body.name, {
    private: !!body.private || body.visibility === 'private' || body.visibility === 'internal',
    description: body.description ?? null,
    homepage: body.homepage ?? null,
    created_at: when,
    updated_at: when,
    pushed_at: when,
    has_issues: body.has_issues ?? true,
    has_projects: body.has_projects ?? true,
    has_wiki: body.has_wiki ?? true,
    has_discussions: body.has_discussions ?? false,
    license: LICENSES[body.license_template] ?? null,
    collaborators: { [state.login]: 'admin' },
  });
  // A README, .gitignore or license template each make GitHub write the first commit.
  const files: Record<string, string> = {};
  if (body.auto_init) files['README.md'] = `# ${body.name}\n${body.description ? `\n${body.description}\n` : ''}`;
  if (typeof body.gitignore_template === 'string') files['.gitignore'] = `# ${body.gitignore_template}\nnode_modules/\n`;
  if (repo.license) files.LICENSE = `${repo.license.name}\n`;
  if (Object.keys(files).length) {
    const me = state.users[state.login]!;
    const c = commit(repo.git, { parents: [], changes: files, message: 'Initial commit', author: { name: me.name ?? me.login, email: me.email ?? '', date: when }, authorLogin: me.login });
    repo.git.branches.main = c.sha;
  }
  state.repos.push(repo);
  return { status: 201, body: renderFullRepo(ctx, repo), headers: { location: repoUrl(ctx, repo) } };
}

const LICENSES: Record<string, { key: string; name: string; spdx_id: string }> = {
  mit: { key: 'mit', name: 'MIT License', spdx_id: 'MIT' },
  'apache-2.0': { key: 'apache-2.0', name: 'Apache License 2.0', spdx_id: 'Apache-2.0' },
};

/** The fields of GitHub's organization-simple, which a membership carries. */
const ORG_SIMPLE = new Set(['login', 'id', 'node_id', 'url', 'repos_url', 'events_url', 'hooks_url', 'issues_url', 'members_url', 'public_members_url', 'avatar_url', 'description']);

export function repoRoutes(state: GithubState): Routes {
  const repoOf = (req: SandboxRequest) => {
    const ctx = ctxOf(state, req);
    return { ctx, repo: findRepo(ctx, req.params.owner!, req.params.repo!) };
  };
  const bucket = (b: { limit: number; used: number; reset: number }) => ({ limit: b.limit, used: b.used, remaining: Math.max(0, b.limit - b.used), reset: b.reset });

  return {
    'GET /user': (req) => ok(privateUser(ctxOf(state, req))),
    'GET /user/emails': () => ok([{ email: state.users[state.login]!.email, primary: true, verified: true, visibility: 'public' }]),
    'GET /user/memberships/orgs/:org': (req) => {
      const org = Object.keys(state.orgs).find((o) => o === req.params.org!.toLowerCase());
      const role = org ? state.orgs[org]!.members[state.login] : undefined;
      if (!org || !role) throw notFound('https://docs.github.com/rest/orgs/members#get-an-organization-membership-for-the-authenticated-user');
      const ctx = ctxOf(state, req);
      const full = renderOrg(ctx, state.users[org]!, state.orgs[org]!.description, 0);
      const organization = Object.fromEntries(Object.entries(full).filter(([k]) => ORG_SIMPLE.has(k)));
      return ok({ url: `${ctx.api}/orgs/${org}/memberships/${state.login}`, state: 'active', role, organization_url: `${ctx.api}/orgs/${org}`, organization, user: simpleUser(ctx, state.login) });
    },
    'GET /users/:username': (req) => {
      const u = Object.values(state.users).find((x) => x.login.toLowerCase() === req.params.username!.toLowerCase());
      if (!u) throw notFound('https://docs.github.com/rest/users/users#get-a-user');
      const { email: _email, ...pub } = u;
      const publicRepos = state.repos.filter((r) => r.owner === u.login && !r.private).length;
      return ok({ ...simpleUser(ctxOf(state, req), u.login), ...pub, email: null, hireable: null, public_repos: publicRepos, public_gists: 0, followers: 0, following: 0 });
    },
    'GET /orgs/:org': (req) => {
      const org = state.orgs[req.params.org!.toLowerCase()];
      const u = state.users[req.params.org!.toLowerCase()];
      if (!org || !u) throw notFound('https://docs.github.com/rest/orgs/orgs#get-an-organization');
      const ctx = ctxOf(state, req);
      return ok(renderOrg(ctx, u, org.description, state.repos.filter((r) => r.owner === u.login && !r.private).length));
    },
    'GET /rate_limit': () => {
      const core = bucket(state.rateLimits.core);
      const far = Math.floor(Date.now() / 1000) + 3600;
      return ok({
        resources: {
          core,
          search: bucket(state.rateLimits.search),
          graphql: bucket(state.rateLimits.graphql),
          integration_manifest: { limit: 5000, used: 0, remaining: 5000, reset: far },
          code_search: { limit: 10, used: 0, remaining: 10, reset: far },
          source_import: { limit: 100, used: 0, remaining: 100, reset: far },
          actions_runner_registration: { limit: 10000, used: 0, remaining: 10000, reset: far },
        },
        rate: core,
      });
    },
    'GET /user/repos': (req) => {
      const ctx = ctxOf(state, req);
      const visible = state.repos.filter((r) => r.owner === state.login || r.collaborators[state.login] || state.orgs[r.owner]?.members[state.login]);
      const sort = req.query.get('sort') ?? 'full_name';
      const key = (r: GhRepo) => (sort === 'created' ? r.created_at : sort === 'updated' ? r.updated_at : sort === 'pushed' ? r.pushed_at : `${r.owner}/${r.name}`.toLowerCase());
      const desc = (req.query.get('direction') ?? (sort === 'full_name' ? 'asc' : 'desc')) === 'desc';
      const sorted = [...visible].sort((a, b) => (desc ? -1 : 1) * key(a).localeCompare(key(b)));
      return list(req, sorted, (r) => renderRepo(ctx, r));
    },
    'POST /user/repos': (req) => createRepo(state, req, state.login),
    'POST /orgs/:org/repos': (req) => {
      const org = Object.keys(state.orgs).find((o) => o.toLowerCase() === req.params.org!.toLowerCase());
      if (!org) throw notFound('https://docs.github.com/rest/repos/repos#create-an-organization-repository');
      if (!state.orgs[org]!.members[state.login]) throw new GhError(403, 'You need admin access to the organization before adding a repository to it.', DOC.createOrgRepo);
      return createRepo(state, req, org);
    },
    'GET /repos/:owner/:repo': (req) => {
      const { ctx, repo } = repoOf(req);
      return ok(renderFullRepo(ctx, repo));
    },
    'GET /user/starred/:owner/:repo': (req) => {
      const { repo } = repoOf(req);
      if (!repo.stargazers.includes(state.login)) throw notFound();
      return { status: 204 };
    },
    'PUT /user/starred/:owner/:repo': (req) => {
      const { repo } = repoOf(req);
      if (!repo.stargazers.includes(state.login)) repo.stargazers.push(state.login);
      return { status: 204 };
    },
    'DELETE /user/starred/:owner/:repo': (req) => {
      const { repo } = repoOf(req);
      repo.stargazers = repo.stargazers.filter((l) => l !== state.login);
      return { status: 204 };
    },
    'GET /repos/:owner/:repo/contents': (req) => {
      const { ctx, repo } = repoOf(req);
      return getContents(ctx, repo, '');
    },
    'GET /repos/:owner/:repo/contents/*path': (req) => {
      const { ctx, repo } = repoOf(req);
      return getContents(ctx, repo, req.params.path!);
    },
    'PUT /repos/:owner/:repo/contents/*path': (req) => {
      const { ctx, repo } = repoOf(req);
      return writeContents(ctx, repo, req.params.path!.replace(/^\/+|\/+$/g, ''), false);
    },
    'DELETE /repos/:owner/:repo/contents/*path': (req) => {
      const { ctx, repo } = repoOf(req);
      return writeContents(ctx, repo, req.params.path!.replace(/^\/+|\/+$/g, ''), true);
    },
    'GET /repos/:owner/:repo/branches': (req) => {
      const { ctx, repo } = repoOf(req);
      const prot = req.query.get('protected');
      const names = Object.keys(repo.git.branches).sort().filter((n) => prot === null || String(repo.protected_branches.includes(n)) === prot);
      return list(req, names, (name) => ({ name, commit: { sha: repo.git.branches[name], url: `${repoUrl(ctx, repo)}/commits/${repo.git.branches[name]}` }, protected: repo.protected_branches.includes(name) }));
    },
    'GET /repos/:owner/:repo/branches/*branch': (req) => {
      const { ctx, repo } = repoOf(req);
      const name = req.params.branch!;
      const sha = repo.git.branches[name];
      if (!sha) throw new GhError(404, 'Branch not found', DOC.branch);
      const url = `${repoUrl(ctx, repo)}/branches/${name}`;
      const prot = repo.protected_branches.includes(name);
      return ok({
        name,
        commit: renderCommit(ctx, repo, repo.git.commits[sha]!),
        _links: { self: url, html: `https://github.com/${repo.owner}/${repo.name}/tree/${name}` },
        protected: prot,
        protection: { enabled: prot, required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] } },
        protection_url: `${url}/protection`,
      });
    },
    'GET /repos/:owner/:repo/git/ref/*ref': (req) => {
      const { ctx, repo } = repoOf(req);
      const m = /^(heads|tags)\/(.+)$/.exec(req.params.ref!);
      const sha = m ? (m[1] === 'heads' ? repo.git.branches : repo.git.tags)[m[2]!] : undefined;
      if (!sha) throw notFound('https://docs.github.com/rest/git/refs#get-a-reference');
      return ok(renderRef(ctx, repo, `refs/${req.params.ref}`, sha));
    },
    'POST /repos/:owner/:repo/git/refs': (req) => {
      const { ctx, repo } = repoOf(req);
      if ((roleOf(state, repo, state.login) ?? 'read') === 'read') throw notFound(DOC.refs);
      const body = isObject(req.body) ? req.body : {};
      if (typeof body.ref !== 'string') throw missingField('ref', DOC.refs);
      if (typeof body.sha !== 'string') throw missingField('sha', DOC.refs);
      const m = /^refs\/(heads|tags)\/(.+)$/.exec(body.ref);
      if (!m || /\.\.|\/\/|\/$|[\s~^:?*[\\]/.test(m[2]!)) throw new GhError(422, 'Reference name is invalid', DOC.refs);
      if (!repo.git.commits[body.sha]) throw new GhError(422, 'Object does not exist', DOC.refs);
      const table = m[1] === 'heads' ? repo.git.branches : repo.git.tags;
      if (table[m[2]!]) throw new GhError(422, 'Reference already exists', DOC.refs);
      table[m[2]!] = body.sha;
      repo.pushed_at = nowIso();
      const ref = renderRef(ctx, repo, body.ref, body.sha);
      return { status: 201, body: ref, headers: { location: ref.url } };
    },
    'GET /repos/:owner/:repo/commits': (req) => {
      const { ctx, repo } = repoOf(req);
      if (!Object.keys(repo.git.branches).length) throw new GhError(409, 'Git Repository is empty.', 'https://docs.github.com/rest/commits/commits#list-commits');
      const ref = req.query.get('sha') ?? repo.default_branch;
      const sha = resolveRef(repo.git, ref);
      if (!sha) throw new GhError(404, `No commit found for SHA: ${ref}`, 'https://docs.github.com/rest/commits/commits#list-commits');
      const path = req.query.get('path');
      const author = req.query.get('author');
      const since = req.query.get('since');
      const until = req.query.get('until');
      const commits = history(repo.git, sha).filter((c) => {
        if (path && diffTrees(repo.git, c.parents[0] ? repo.git.commits[c.parents[0]]!.tree : {}, c.tree).every((f) => f.filename !== path && !f.filename.startsWith(path + '/'))) return false;
        if (author && c.authorLogin !== author && c.author.email !== author) return false;
        if (since && c.committer.date < since) return false;
        if (until && c.committer.date > until) return false;
        return true;
      });
      return list(req, commits, (c) => renderCommit(ctx, repo, c));
    },
    'GET /repos/:owner/:repo/commits/*ref': (req) => {
      const { ctx, repo } = repoOf(req);
      const sha = resolveRef(repo.git, req.params.ref!);
      if (!sha) throw new GhError(422, `No commit found for SHA: ${req.params.ref}`, DOC.commit);
      if (/vnd\.github(\.v3)?\.sha/i.test(header(req, 'accept') ?? '')) return { status: 200, body: sha, headers: { 'content-type': 'application/vnd.github.sha; charset=utf-8' } };
      const c = repo.git.commits[sha]!;
      const files = diffTrees(repo.git, c.parents[0] ? repo.git.commits[c.parents[0]]!.tree : {}, c.tree);
      const additions = files.reduce((n, f) => n + f.additions, 0);
      const deletions = files.reduce((n, f) => n + f.deletions, 0);
      const base = `https://github.com/${repo.owner}/${repo.name}`;
      // per_page and page page through the files (default 300 a page); the stats always cover them all.
      const perPage = req.query.has('per_page') ? req.query : new URLSearchParams([...req.query, ['per_page', '300']]);
      const page = paginate({ ...req, query: perPage }, files);
      return ok(
        {
          ...renderCommit(ctx, repo, c),
          stats: { total: additions + deletions, additions, deletions },
          files: page.items.map((f) => ({ ...f, blob_url: `${base}/blob/${c.sha}/${f.filename}`, raw_url: `${base}/raw/${c.sha}/${f.filename}`, contents_url: `${repoUrl(ctx, repo)}/contents/${f.filename}?ref=${c.sha}` })),
        },
        page.headers,
      );
    },
    'GET /repos/:owner/:repo/releases': (req) => {
      const { ctx, repo } = repoOf(req);
      // Drafts are visible only to accounts with push access.
      const push = permissionsOf(roleOf(state, repo, state.login)).push;
      return list(req, repo.releases.filter((r) => push || !r.draft), (r) => renderRelease(ctx, repo, r));
    },
  };
}

function renderRef(ctx: Ctx, repo: GhRepo, ref: string, sha: string) {
  return {
    ref,
    node_id: 'REF_kwDO' + Buffer.from(`${repo.id}:${ref}`).toString('base64url'),
    url: `${repoUrl(ctx, repo)}/git/${ref}`,
    object: { sha, type: 'commit', url: `${repoUrl(ctx, repo)}/git/commits/${sha}` },
  };
}
