import type { Routes, SandboxRequest } from '../server.js';
import type { GhIssue, GhRepo, GhReview, GithubState } from './state.js';
import { aheadOf, commit, diffTrees, mergeBase, mergeTrees } from './git.js';
import {
  GhError,
  assignable,
  closeIssue,
  ctxOf,
  findIssue,
  findRepo,
  list,
  notFound,
  nowIso,
  permissionsOf,
  renderIssue,
  renderRepo,
  repoUrl,
  roleOf,
  simpleUser,
  sortIssues,
  validationFailed,
  type Ctx,
} from './render.js';
import { notify } from './issues.js';
import { isObject } from '../util.js';

/** Pull requests: list, create, update, merge, reviewers and reviews. */

const DOC = {
  pull: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
  merge: 'https://docs.github.com/rest/pulls/pulls#merge-a-pull-request',
  reviewers: 'https://docs.github.com/rest/pulls/review-requests#request-reviewers-for-a-pull-request',
  reviews: 'https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request',
};

function renderPull(ctx: Ctx, repo: GhRepo, issue: GhIssue, full: boolean) {
  const p = issue.pull!;
  const url = `${repoUrl(ctx, repo)}/pulls/${issue.number}`;
  const base = renderIssue(ctx, repo, issue);
  const headSha = p.head_sha ?? repo.git.branches[p.head] ?? null;
  const baseSha = p.merge_commit_sha ? repo.git.commits[p.merge_commit_sha]!.parents[0]! : (repo.git.branches[p.base] ?? null);
  const side = (ref: string, sha: string | null) => ({ label: `${repo.owner}:${ref}`, ref, sha, user: simpleUser(ctx, repo.owner), repo: renderRepo(ctx, repo) });
  const simple = {
    url,
    id: issue.id + 500_000_000,
    node_id: 'PR_kwDO' + Buffer.from(`${repo.id}#${issue.number}`).toString('base64url'),
    html_url: base.html_url,
    diff_url: `${base.html_url}.diff`,
    patch_url: `${base.html_url}.patch`,
    issue_url: base.url,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${repoUrl(ctx, repo)}/pulls/comments{/number}`,
    comments_url: base.comments_url,
    statuses_url: `${repoUrl(ctx, repo)}/statuses/${headSha}`,
    number: issue.number,
    state: issue.state,
    locked: issue.locked,
    title: issue.title,
    user: base.user,
    body: issue.body,
    labels: base.labels,
    milestone: null,
    active_lock_reason: null,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at,
    merged_at: p.merged_at,
    merge_commit_sha: p.merge_commit_sha,
    assignee: base.assignee,
    assignees: base.assignees,
    requested_reviewers: p.requested_reviewers.map((r) => simpleUser(ctx, r)),
    requested_teams: [],
    head: side(p.head, headSha),
    base: side(p.base, baseSha),
    _links: {
      self: { href: url },
      html: { href: base.html_url },
      issue: { href: base.url },
      comments: { href: base.comments_url },
      review_comments: { href: `${url}/comments` },
      review_comment: { href: `${repoUrl(ctx, repo)}/pulls/comments{/number}` },
      commits: { href: `${url}/commits` },
      statuses: { href: `${repoUrl(ctx, repo)}/statuses/${headSha}` },
    },
    author_association: base.author_association,
    auto_merge: null,
    draft: p.draft,
  };
  if (!full) return simple;
  const ahead = headSha && baseSha ? aheadOf(repo.git, baseSha, headSha) : [];
  const mb = headSha && baseSha ? mergeBase(repo.git, baseSha, headSha) : undefined;
  const files = headSha && mb ? diffTrees(repo.git, repo.git.commits[mb]!.tree, repo.git.commits[headSha]!.tree) : [];
  const open = issue.state === 'open';
  return {
    ...simple,
    merged: !!p.merged_at,
    mergeable: open ? true : null,
    rebaseable: open ? true : null,
    mergeable_state: open ? (p.draft ? 'draft' : 'clean') : 'unknown',
    merged_by: simpleUser(ctx, p.merged_by),
    comments: base.comments,
    review_comments: 0,
    maintainer_can_modify: p.maintainer_can_modify,
    commits: ahead.length,
    additions: files.reduce((n, f) => n + f.additions, 0),
    deletions: files.reduce((n, f) => n + f.deletions, 0),
    changed_files: files.length,
  };
}

export function pullRoutes(state: GithubState): Routes {
  const at = (req: SandboxRequest) => {
    const ctx = ctxOf(state, req);
    return { ctx, repo: findRepo(ctx, req.params.owner!, req.params.repo!) };
  };
  const body = (req: SandboxRequest): Record<string, any> => (isObject(req.body) ? req.body : {});
  const requireWrite = (repo: GhRepo) => {
    if (!permissionsOf(roleOf(state, repo, state.login)).push) throw notFound();
  };

  return {
    'GET /repos/:owner/:repo/pulls': (req) => {
      const { ctx, repo } = at(req);
      const st = req.query.get('state') ?? 'open';
      const head = req.query.get('head');
      const base = req.query.get('base');
      const pulls = repo.issues.filter(
        (i) => i.pull && (st === 'all' || i.state === st) && (!head || `${repo.owner}:${i.pull.head}` === head || i.pull.head === head) && (!base || i.pull.base === base),
      );
      return list(req, sortIssues(req, pulls, () => 0), (i) => renderPull(ctx, repo, i, false));
    },
    'POST /repos/:owner/:repo/pulls': (req) => {
      const { ctx, repo } = at(req);
      const b = body(req);
      const missing = ['head', 'base'].filter((f) => typeof b[f] !== 'string' || !b[f]);
      if (typeof b.title !== 'string' && b.issue === undefined) missing.push('title');
      if (missing.length) throw validationFailed(missing.map((field) => ({ resource: 'PullRequest', code: 'missing_field', field })), DOC.pull);
      const [owner, headBranch] = b.head.includes(':') ? b.head.split(':', 2) : [repo.owner, b.head];
      const headSha = owner === repo.owner ? repo.git.branches[headBranch] : undefined;
      const baseSha = repo.git.branches[b.base];
      const invalid = [...(!headSha ? ['head'] : []), ...(!baseSha ? ['base'] : [])];
      if (invalid.length) throw validationFailed(invalid.map((field) => ({ resource: 'PullRequest', code: 'invalid', field })), DOC.pull);
      if (repo.issues.some((i) => i.pull && i.state === 'open' && i.pull.head === headBranch && i.pull.base === b.base)) {
        throw validationFailed([{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${repo.owner}:${headBranch}.` }], DOC.pull);
      }
      if (aheadOf(repo.git, baseSha!, headSha!).length === 0) {
        throw validationFailed([{ resource: 'PullRequest', code: 'custom', message: `No commits between ${b.base} and ${headBranch}` }], DOC.pull);
      }
      const when = nowIso();
      const fromIssue = b.issue !== undefined ? findIssue(repo, String(b.issue)) : undefined;
      const number = fromIssue?.number ?? Math.max(0, ...repo.issues.map((i) => i.number)) + 1;
      const issue: GhIssue = fromIssue ?? {
        id: repo.id * 1000 + number,
        node_id: 'I_kwDO' + Buffer.from(`${repo.id}#${number}`).toString('base64url'),
        number,
        title: String(b.title),
        body: typeof b.body === 'string' ? b.body : null,
        user: state.login,
        state: 'open',
        state_reason: null,
        labels: [],
        assignees: [],
        locked: false,
        created_at: when,
        updated_at: when,
        closed_at: null,
        closed_by: null,
      };
      issue.pull = { head: headBranch!, base: b.base, draft: b.draft === true, merged_at: null, merged_by: null, merge_commit_sha: null, head_sha: null, requested_reviewers: [], reviews: [], maintainer_can_modify: b.maintainer_can_modify !== false };
      if (!fromIssue) repo.issues.push(issue);
      const rendered = renderPull(ctx, repo, issue, true);
      notify(ctx, repo, 'pull_request', { action: 'opened', number: issue.number, pull_request: rendered });
      return { status: 201, body: rendered, headers: { location: rendered.url } };
    },
    'GET /repos/:owner/:repo/pulls/:number': (req) => {
      const { ctx, repo } = at(req);
      return { status: 200, body: renderPull(ctx, repo, findIssue(repo, req.params.number!, true), true) };
    },
    'PATCH /repos/:owner/:repo/pulls/:number': (req) => {
      const { ctx, repo } = at(req);
      const issue = findIssue(repo, req.params.number!, true);
      const p = issue.pull!;
      const b = body(req);
      if (b.state !== undefined && b.state !== 'open' && b.state !== 'closed') throw validationFailed([{ resource: 'PullRequest', code: 'invalid', field: 'state' }], DOC.pull);
      if (b.base !== undefined && !repo.git.branches[b.base]) throw validationFailed([{ resource: 'PullRequest', code: 'invalid', field: 'base' }], DOC.pull);
      if ('title' in b) issue.title = String(b.title);
      if ('body' in b) issue.body = b.body === null ? null : String(b.body);
      if (b.base !== undefined) p.base = b.base;
      if (typeof b.maintainer_can_modify === 'boolean') p.maintainer_can_modify = b.maintainer_can_modify;
      if (b.state === 'closed' && issue.state === 'open') {
        p.head_sha = repo.git.branches[p.head] ?? null;
        closeIssue(issue, state.login);
      } else if (b.state === 'open' && issue.state === 'closed') {
        if (p.merged_at) throw validationFailed([{ resource: 'PullRequest', code: 'custom', field: 'state', message: 'state cannot be changed. The pull request has been merged.' }], DOC.pull);
        Object.assign(issue, { state: 'open', closed_at: null, closed_by: null });
        p.head_sha = null;
      }
      issue.updated_at = nowIso();
      return { status: 200, body: renderPull(ctx, repo, issue, true) };
    },
    'PUT /repos/:owner/:repo/pulls/:number/merge': (req) => {
      const { repo } = at(req);
      requireWrite(repo);
      const issue = findIssue(repo, req.params.number!, true);
      const p = issue.pull!;
      const b = body(req);
      if (issue.state !== 'open') throw new GhError(405, 'Pull Request is not mergeable', DOC.merge);
      if (p.draft) throw new GhError(405, 'Pull Request is still a draft', DOC.merge);
      const method = b.merge_method ?? 'merge';
      if (!['merge', 'squash', 'rebase'].includes(method)) throw validationFailed([{ resource: 'PullRequest', code: 'invalid', field: 'merge_method' }], DOC.merge);
      const headSha = repo.git.branches[p.head];
      const baseSha = repo.git.branches[p.base];
      if (!headSha || !baseSha) throw new GhError(405, 'Pull Request is not mergeable', DOC.merge);
      if (b.sha !== undefined && b.sha !== headSha) throw new GhError(409, 'Head branch was modified. Review and try the merge again.', DOC.merge);
      const mb = mergeBase(repo.git, baseSha, headSha)!;
      const tree = mergeTrees(repo.git.commits[mb]!.tree, repo.git.commits[headSha]!.tree, repo.git.commits[baseSha]!.tree);
      const title = b.commit_title ?? (method === 'merge' ? `Merge pull request #${issue.number} from ${repo.owner}/${p.head}` : `${issue.title} (#${issue.number})`);
      const me = state.users[state.login]!;
      const when = nowIso();
      // Rebase is recorded like squash: one new commit on the base (this git keeps whole trees, not patches).
      const c = commit(repo.git, {
        parents: method === 'merge' ? [baseSha, headSha] : [baseSha],
        changes: {},
        base: tree,
        message: `${title}\n\n${b.commit_message ?? issue.title}`,
        author: { name: me.name ?? me.login, email: me.email ?? '', date: when },
        authorLogin: me.login,
      });
      repo.git.branches[p.base] = c.sha;
      repo.pushed_at = when;
      Object.assign(p, { merged_at: when, merged_by: state.login, merge_commit_sha: c.sha, head_sha: headSha });
      closeIssue(issue, state.login);
      if (p.base === repo.default_branch) {
        for (const m of (issue.body ?? '').matchAll(/\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s+#(\d+)/gi)) {
          const target = repo.issues.find((i) => i.number === Number(m[1]) && !i.pull && i.state === 'open');
          if (target) closeIssue(target, state.login);
        }
      }
      return { status: 200, body: { sha: c.sha, merged: true, message: 'Pull Request successfully merged' } };
    },
    'GET /repos/:owner/:repo/pulls/:number/requested_reviewers': (req) => {
      const { ctx, repo } = at(req);
      const p = findIssue(repo, req.params.number!, true).pull!;
      return { status: 200, body: { users: p.requested_reviewers.map((r) => simpleUser(ctx, r)), teams: [] } };
    },
    'POST /repos/:owner/:repo/pulls/:number/requested_reviewers': (req) => {
      const { ctx, repo } = at(req);
      const issue = findIssue(repo, req.params.number!, true);
      const reviewers: string[] = Array.isArray(body(req).reviewers) ? body(req).reviewers.map(String) : [];
      if (reviewers.includes(issue.user)) throw new GhError(422, 'Review cannot be requested from pull request author.', 'https://docs.github.com/rest/pulls/review-requests#request-reviewers-for-a-pull-request');
      if (reviewers.some((r) => !assignable(state, repo, r))) {
        throw new GhError(422, `Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the ${repo.owner}/${repo.name} repository.`, 'https://docs.github.com/rest/pulls/review-requests#request-reviewers-for-a-pull-request');
      }
      issue.pull!.requested_reviewers = [...new Set([...issue.pull!.requested_reviewers, ...reviewers])];
      return { status: 201, body: renderPull(ctx, repo, issue, false) };
    },
    'DELETE /repos/:owner/:repo/pulls/:number/requested_reviewers': (req) => {
      const { ctx, repo } = at(req);
      const issue = findIssue(repo, req.params.number!, true);
      const drop: string[] = Array.isArray(body(req).reviewers) ? body(req).reviewers.map(String) : [];
      issue.pull!.requested_reviewers = issue.pull!.requested_reviewers.filter((r) => !drop.includes(r));
      return { status: 200, body: renderPull(ctx, repo, issue, false) };
    },
    'GET /repos/:owner/:repo/pulls/:number/reviews': (req) => {
      const { ctx, repo } = at(req);
      const issue = findIssue(repo, req.params.number!, true);
      return list(req, issue.pull!.reviews, (r) => renderReview(ctx, repo, issue.number, r));
    },
    'POST /repos/:owner/:repo/pulls/:number/reviews': (req) => {
      const { repo } = at(req);
      const issue = findIssue(repo, req.params.number!, true);
      const p = issue.pull!;
      const b = body(req);
      const states = { APPROVE: 'APPROVED', REQUEST_CHANGES: 'CHANGES_REQUESTED', COMMENT: 'COMMENTED' } as const;
      const event = b.event as keyof typeof states | undefined;
      if (!event || !states[event]) throw validationFailed([{ resource: 'PullRequestReview', code: 'invalid', field: 'event' }], DOC.reviews);
      if (event !== 'COMMENT' && issue.user === state.login) {
        throw new GhError(422, 'Unprocessable Entity', DOC.reviews, [`Can not ${event === 'APPROVE' ? 'approve' : 'request changes on'} your own pull request`]);
      }
      if (event !== 'APPROVE' && !b.body) throw new GhError(422, 'Unprocessable Entity', DOC.reviews, [`Review Can not be blank when ${event === 'COMMENT' ? 'commenting' : 'requesting changes'}`]);
      const review = { id: ++state.seq, node_id: 'PRR_kwDO' + Buffer.from(`r${state.seq}`).toString('base64url'), user: state.login, body: String(b.body ?? ''), state: states[event], submitted_at: nowIso(), commit_id: repo.git.branches[p.head] ?? p.head_sha ?? '' };
      p.reviews.push(review);
      p.requested_reviewers = p.requested_reviewers.filter((r) => r !== state.login);
      return { status: 200, body: renderReview(ctxOf(state, req), repo, issue.number, review) };
    },
    'PUT /repos/:owner/:repo/pulls/:number/reviews/:review_id/dismissals': (req) => {
      const { repo } = at(req);
      requireWrite(repo);
      const review = findIssue(repo, req.params.number!, true).pull!.reviews.find((r) => String(r.id) === req.params.review_id);
      if (!review) throw notFound(DOC.reviews);
      if (review.state === 'COMMENTED') throw new GhError(422, 'Can not dismiss a commented pull request review', DOC.reviews);
      // GhReview's union predates dismissals; the wire value is DISMISSED.
      (review as { state: string }).state = 'DISMISSED';
      return { status: 200, body: renderReview(ctxOf(state, req), repo, Number(req.params.number), review) };
    },
  };
}

function renderReview(ctx: Ctx, repo: GhRepo, number: number, r: GhReview) {
  const html = `https://github.com/${repo.owner}/${repo.name}/pull/${number}#pullrequestreview-${r.id}`;
  const pull = `${repoUrl(ctx, repo)}/pulls/${number}`;
  return {
    id: r.id,
    node_id: r.node_id,
    user: simpleUser(ctx, r.user),
    body: r.body,
    state: r.state,
    html_url: html,
    pull_request_url: pull,
    _links: { html: { href: html }, pull_request: { href: pull } },
    author_association: repo.collaborators[r.user] ? 'COLLABORATOR' : 'NONE',
    submitted_at: r.submitted_at,
    commit_id: r.commit_id,
  };
}
