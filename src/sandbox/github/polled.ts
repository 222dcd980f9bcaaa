import type { Routes, SandboxRequest } from '../server.js';
import type { GhRepo, GithubState } from './state.js';
import { GhError, ctxOf, findRepo, list, notFound, nowIso, renderRepo, simpleUser, validationFailed, type Ctx } from './render.js';
import { hasScope, hookSide, same, type SbxThread } from './hooks.js';
import { isObject } from '../util.js';

/** Endpoints the trigger kinds without a webhook poll: /notifications, /repos/{o}/{r}/subscribers (+ /subscription), /orgs/{org}/repos. */

function subscription(ctx: Ctx, repo: GhRepo) {
  const url = `${ctx.api}/repos/${repo.owner}/${repo.name}`;
  return { subscribed: true, ignored: false, reason: null, created_at: repo.created_at, url: `${url}/subscription`, repository_url: url };
}

/** Participating reasons: the user took part or was named (not plain watching). */
const PARTICIPATING = new Set(['assign', 'author', 'comment', 'manual', 'mention', 'review_requested', 'state_change', 'team_mention']);

/** A notification thread for the sandbox user, as when someone @mentions them. */
export function addNotification(
  state: GithubState,
  input: { repo: string; title: string; type?: 'Issue' | 'PullRequest' | 'Discussion'; number?: number; reason?: string; login?: string; at?: string },
): SbxThread {
  const thread: SbxThread = {
    id: String(++state.seq),
    login: input.login ?? state.login,
    repo: input.repo,
    reason: input.reason ?? 'mention',
    unread: true,
    updated_at: input.at ?? nowIso(),
    subject: { title: input.title, type: input.type ?? 'Issue', number: input.number ?? 1 },
  };
  hookSide(state).threads.push(thread);
  return thread;
}

export function polledRoutes(state: GithubState): Routes {
  const repoAt = (req: SandboxRequest) => {
    const ctx = ctxOf(state, req);
    return { ctx, repo: findRepo(ctx, req.params.owner!, req.params.repo!) };
  };
  return {
    'GET /repos/:owner/:repo/subscribers': (req) => {
      const { ctx, repo } = repoAt(req);
      return list(req, repo.subscribers, (l) => simpleUser(ctx, l));
    },
    'GET /repos/:owner/:repo/subscription': (req) => {
      const { ctx, repo } = repoAt(req);
      if (!repo.subscribers.includes(state.login)) throw notFound('https://docs.github.com/rest/activity/watching#get-a-repository-subscription');
      return { status: 200, body: subscription(ctx, repo) };
    },
    'PUT /repos/:owner/:repo/subscription': (req) => {
      const { ctx, repo } = repoAt(req);
      const b = isObject(req.body) ? req.body : {};
      repo.subscribers = repo.subscribers.filter((l) => l !== state.login);
      if (b.subscribed !== false && b.ignored !== true) repo.subscribers.push(state.login);
      return { status: 200, body: { ...subscription(ctx, repo), subscribed: b.subscribed !== false && b.ignored !== true, ignored: b.ignored === true } };
    },
    'DELETE /repos/:owner/:repo/subscription': (req) => {
      const { repo } = repoAt(req);
      repo.subscribers = repo.subscribers.filter((l) => l !== state.login);
      return { status: 204 };
    },
    'GET /orgs/:org/repos': (req) => {
      const ctx = ctxOf(state, req);
      const org = Object.keys(state.orgs).find((o) => same(o, req.params.org!));
      if (!org) throw notFound('https://docs.github.com/rest/repos/repos#list-organization-repositories');
      const member = !!state.orgs[org]!.members[state.login];
      const sort = req.query.get('sort') ?? 'created';
      const key = (r: GhRepo) => (sort === 'updated' ? r.updated_at : sort === 'pushed' ? r.pushed_at : sort === 'full_name' ? r.name.toLowerCase() : r.created_at);
      const desc = (req.query.get('direction') ?? (sort === 'full_name' ? 'asc' : 'desc')) === 'desc';
      const repos = state.repos.filter((r) => r.owner === org && (member || !r.private)).sort((a, b) => (desc ? -1 : 1) * key(a).localeCompare(key(b)));
      return list(req, repos, (r) => renderRepo(ctx, r));
    },
    'GET /notifications': (req) => {
      if (!hasScope(state, 'notifications', 'repo')) throw new GhError(403, 'Missing the notifications scope.', 'https://docs.github.com/rest/activity/notifications');
      const ctx = ctxOf(state, req);
      const q = req.query;
      for (const f of ['since', 'before'] as const) {
        if (q.get(f) && Number.isNaN(Date.parse(q.get(f)!))) throw validationFailed([{ resource: 'Notification', code: 'invalid', field: f }]);
      }
      const threads = hookSide(state)
        .threads.filter(
          (t) =>
            t.login === state.login &&
            (q.get('all') === 'true' || t.unread) &&
            (q.get('participating') !== 'true' || PARTICIPATING.has(t.reason)) &&
            (!q.get('since') || Date.parse(t.updated_at) >= Date.parse(q.get('since')!)) &&
            (!q.get('before') || Date.parse(t.updated_at) < Date.parse(q.get('before')!)),
        )
        .sort((a, b) => b.updated_at.localeCompare(a.updated_at));
      const newest = threads[0]?.updated_at;
      const page = list(req, threads, (t) => {
        const [owner, name] = t.repo.split('/') as [string, string];
        const repo = state.repos.find((r) => same(r.owner, owner) && same(r.name, name));
        const kind = t.subject.type === 'PullRequest' ? 'pulls' : t.subject.type === 'Discussion' ? 'discussions' : 'issues';
        const subjectUrl = `${ctx.api}/repos/${t.repo}/${kind}/${t.subject.number}`;
        return {
          id: t.id,
          repository: repo ? renderRepo(ctx, repo) : { full_name: t.repo },
          subject: { title: t.subject.title, url: subjectUrl, latest_comment_url: subjectUrl, type: t.subject.type },
          reason: t.reason,
          unread: t.unread,
          updated_at: t.updated_at,
          last_read_at: null,
          url: `${ctx.api}/notifications/threads/${t.id}`,
          subscription_url: `${ctx.api}/notifications/threads/${t.id}/subscription`,
        };
      });
      const headers = { ...page.headers, 'x-poll-interval': String(hookSide(state).pollIntervalSeconds), ...(newest ? { 'last-modified': new Date(newest).toUTCString() } : {}) };
      return { ...page, headers };
    },
  };
}
