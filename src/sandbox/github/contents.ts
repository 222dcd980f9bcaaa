import type { SandboxResponse } from '../server.js';
import type { GhRepo } from './state.js';
import { commit, resolveRef, treeSha, type GitCommit } from './git.js';
import { GhError, missingField, notFound, nowIso, renderCommit, repoUrl, type Ctx } from './render.js';
import { header, isObject } from '../util.js';

/** Repository contents: reading a file or directory, and creating, updating or deleting a file (one commit each). */

const DOC = {
  contents: 'https://docs.github.com/rest/repos/contents#get-repository-content',
  putContents: 'https://docs.github.com/rest/repos/contents#create-or-update-file-contents',
};

const INLINE_LIMIT = 1024 * 1024;

const ok = (body: unknown): SandboxResponse => ({ status: 200, body });

function gitCommitBody(ctx: Ctx, repo: GhRepo, c: GitCommit) {
  const url = repoUrl(ctx, repo);
  const r = renderCommit(ctx, repo, c);
  return { sha: c.sha, node_id: r.node_id, url: `${url}/git/commits/${c.sha}`, html_url: r.html_url, author: c.author, committer: c.committer, tree: r.commit.tree, message: c.message, parents: r.parents, verification: r.commit.verification };
}

function contentEntry(ctx: Ctx, repo: GhRepo, ref: string, path: string, sha: string, type: 'file' | 'dir') {
  const url = `${repoUrl(ctx, repo)}/contents/${path}?ref=${encodeURIComponent(ref)}`;
  const git = `${repoUrl(ctx, repo)}/git/${type === 'file' ? 'blobs' : 'trees'}/${sha}`;
  const html = `https://github.com/${repo.owner}/${repo.name}/${type === 'file' ? 'blob' : 'tree'}/${ref}/${path}`;
  const size = type === 'file' ? Buffer.from(repo.git.blobs[sha] ?? '', 'base64').length : 0;
  return {
    name: path.split('/').pop()!,
    path,
    sha,
    size,
    url,
    html_url: html,
    git_url: git,
    download_url: type === 'file' ? `https://raw.githubusercontent.com/${repo.owner}/${repo.name}/${ref}/${path}` : null,
    type,
    _links: { self: url, git, html },
  };
}

export function getContents(ctx: Ctx, repo: GhRepo, rawPath: string): SandboxResponse {
  const ref = ctx.req.query.get('ref') ?? repo.default_branch;
  if (!Object.keys(repo.git.branches).length) throw new GhError(404, 'This repository is empty.', DOC.contents);
  const sha = resolveRef(repo.git, ref);
  if (!sha) throw new GhError(404, `No commit found for the ref ${ref}`, DOC.contents);
  const tree = repo.git.commits[sha]!.tree;
  const path = rawPath.replace(/^\/+|\/+$/g, '');
  const accept = header(ctx.req, 'accept') ?? '';
  const blob = tree[path];
  if (blob) {
    const bytes = Buffer.from(repo.git.blobs[blob]!, 'base64');
    if (/vnd\.github(\.v3)?\.raw/i.test(accept)) return { status: 200, body: bytes, headers: { 'content-type': 'application/vnd.github.raw', 'x-github-media-type': 'github.v3; param=raw' } };
    // Over 1 MB GitHub inlines nothing: content "" with encoding "none"; only the raw media type has the bytes.
    if (bytes.length > INLINE_LIMIT) return ok({ ...contentEntry(ctx, repo, ref, path, blob, 'file'), content: '', encoding: 'none' });
    const content = bytes.toString('base64').replace(/(.{60})/g, '$1\n') + '\n';
    return ok({ ...contentEntry(ctx, repo, ref, path, blob, 'file'), content, encoding: 'base64' });
  }
  const prefix = path ? path + '/' : '';
  const children = new Map<string, 'file' | 'dir'>();
  for (const p of Object.keys(tree).filter((p) => p.startsWith(prefix))) {
    const rest = p.slice(prefix.length);
    children.set(prefix + rest.split('/')[0]!, rest.includes('/') ? 'dir' : 'file');
  }
  if (children.size === 0) throw notFound(DOC.contents);
  const entries = [...children].sort(([a], [b]) => a.localeCompare(b)).map(([p, type]) => {
    const sub = Object.fromEntries(Object.entries(tree).filter(([k]) => k.startsWith(p + '/')));
    return contentEntry(ctx, repo, ref, p, type === 'file' ? tree[p]! : treeSha(sub), type);
  });
  if (/vnd\.github(\.v3)?\.object/i.test(accept)) return ok({ ...contentEntry(ctx, repo, ref, path, treeSha(tree), 'dir'), entries });
  return ok(entries);
}

export function writeContents(ctx: Ctx, repo: GhRepo, path: string, del: boolean): SandboxResponse {
  const body = isObject(ctx.req.body) ? ctx.req.body : {};
  if (typeof body.message !== 'string') throw missingField('message', DOC.putContents);
  if (!del && typeof body.content !== 'string') throw missingField('content', DOC.putContents);
  if (!del && !/^[A-Za-z0-9+/=\s]*$/.test(body.content)) throw new GhError(422, 'content is not valid Base64', DOC.putContents);
  const branch = typeof body.branch === 'string' ? body.branch : repo.default_branch;
  const head = repo.git.branches[branch];
  if (!head && Object.keys(repo.git.branches).length) throw new GhError(404, `Branch ${branch} not found`, DOC.putContents);
  const existing = head ? repo.git.commits[head]!.tree[path] : undefined;
  if (del && !existing) throw notFound(DOC.putContents);
  if (existing && body.sha === undefined) throw missingField('sha', DOC.putContents);
  if (existing && body.sha !== existing) throw new GhError(409, `${path} does not match ${body.sha}`, DOC.putContents);
  const when = nowIso();
  const me = ctx.state.users[ctx.state.login]!;
  const who = isObject(body.author) ? { name: String(body.author.name), email: String(body.author.email), date: when } : { name: me.name ?? me.login, email: me.email ?? '', date: when };
  const c = commit(repo.git, {
    parents: head ? [head] : [],
    changes: { [path]: del ? null : Buffer.from(body.content, 'base64') },
    message: body.message,
    author: who,
    authorLogin: isObject(body.author) ? null : me.login,
  });
  repo.git.branches[branch] = c.sha;
  repo.pushed_at = repo.updated_at = when;
  const content = del ? null : contentEntry(ctx, repo, branch, path, c.tree[path]!, 'file');
  return { status: existing || del ? 200 : 201, body: { content, commit: gitCommitBody(ctx, repo, c) } };
}
