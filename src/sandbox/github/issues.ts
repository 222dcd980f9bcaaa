import type { Routes, SandboxRequest } from '../server.js';
import type { GhIssue, GhRepo, GithubState, RepoRole } from './state.js';
import {
  GhError,
  assignable,
  closeIssue,
  ctxOf,
  findIssue,
  findRepo,
  list,
  minimalRepo,
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
import { isObject } from '../util.js';
import { emitWebhook } from './hooks.js';

/** Tells the hooks registered at the sandbox, as GitHub does after a change (delivered in the background). */
export function notify(ctx: Parameters<typeof renderRepo>[0], repo: GhRepo, event: string, payload: Record<string, unknown>): void {
  if (!ctx.state.webhooksOnChange) return;
  void emitWebhook(ctx.state, { owner: repo.owner, repo: repo.name }, event, { ...payload, repository: renderRepo(ctx, repo), sender: simpleUser(ctx, ctx.state.login) });
}

/** Issues, comments, assignees and collaborators (pull requests are in pulls.ts). */

const DOC = {
  issue: 'https://docs.github.com/rest/issues/issues#create-an-issue',
  pull: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request',
  merge: 'https://docs.github.com/rest/pulls/pulls#merge-a-pull-request',
  collab: 'https://docs.github.com/rest/collaborators/collaborators#add-a-repository-collaborator',
  addLabels: 'https://docs.github.com/rest/issues/labels#add-labels-to-an-issue',
  removeLabel: 'https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue',
};

const PERMISSION_TO_ROLE: Record<string, RepoRole> = { pull: 'read', triage: 'triage', push: 'write', maintain: 'maintain', admin: 'admin' };
const LEGACY: Record<RepoRole, string> = { admin: 'admin', maintain: 'write', write: 'write', triage: 'read', read: 'read' };

function renderComment(ctx: Ctx, repo: GhRepo, c: GhRepo['comments'][number]) {
  const issueUrl = `${repoUrl(ctx, repo)}/issues/${c.issue_number}`;
  return {
    url: `${repoUrl(ctx, repo)}/issues/comments/${c.id}`,
    html_url: `https://github.com/${repo.owner}/${repo.name}/issues/${c.issue_number}#issuecomment-${c.id}`,
    issue_url: issueUrl,
    id: c.id,
    node_id: c.node_id,
    user: simpleUser(ctx, c.user),
    created_at: c.created_at,
    updated_at: c.updated_at,
    author_association: repo.collaborators[c.user] ? (c.user === repo.owner ? 'OWNER' : 'COLLABORATOR') : 'NONE',
    body: c.body,
    performed_via_github_app: null,
  };
}

function checkAssignees(state: GithubState, repo: GhRepo, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const logins = Array.isArray(value) ? value.map(String) : [String(value)];
  const bad = logins.filter((l) => !assignable(state, repo, l));
  if (bad.length) throw validationFailed(bad.map((v) => ({ value: v, resource: 'Issue', field: 'assignees', code: 'invalid' })), DOC.issue);
  return logins;
}

/** Label names from strings or {name}, matched without regard to case; unknown labels are created, as GitHub does. */
function labelNames(repo: GhRepo, value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const names = value.map((l) => {
    const name = String(isObject(l) ? l.name : l);
    const known = repo.labels.find((x) => x.name.toLowerCase() === name.toLowerCase());
    if (known) return known.name;
    const id = repo.id * 10 + 100 + repo.labels.length;
    repo.labels.push({ id, node_id: 'LA_kwDO' + Buffer.from(`${repo.id}:${name}`).toString('base64url'), name, color: 'ededed', description: null, default: false });
    return name;
  });
  return [...new Set(names)];
}

/** What the issue-labels endpoints answer: the issue's labels after the change. */
function issueLabels(ctx: Ctx, repo: GhRepo, issue: GhIssue) {
  return renderIssue(ctx, repo, issue).labels;
}

/** `labeled`/`unlabeled` deliveries for an issue (a pull request's labels are not announced here, as in the PATCH). */
function announceLabels(ctx: Ctx, repo: GhRepo, issue: GhIssue, action: 'labeled' | 'unlabeled', names: string[]): void {
  if (issue.pull) return;
  const rendered = renderIssue(ctx, repo, issue);
  for (const name of names) notify(ctx, repo, 'issues', { action, issue: rendered, label: { name } });
}

export function issueRoutes(state: GithubState): Routes {
  const at = (req: SandboxRequest) => {
    const ctx = ctxOf(state, req);
    return { ctx, repo: findRepo(ctx, req.params.owner!, req.params.repo!) };
  };
  const body = (req: SandboxRequest): Record<string, any> => (isObject(req.body) ? req.body : {});
  const requireRole = (repo: GhRepo, min: RepoRole) => {
    if (!permissionsOf(roleOf(state, repo, state.login))[min === 'write' ? 'push' : min === 'read' ? 'pull' : min]) throw notFound();
  };

  return {
    'GET /repos/:owner/:repo/issues': (req) => {
      const { ctx, repo } = at(req);
      const q = req.query;
      const st = q.get('state') ?? 'open';
      const labels = (q.get('labels') ?? '').split(',').map((l) => l.trim()).filter(Boolean);
      const assignee = q.get('assignee');
      const issues = repo.issues.filter(
        (i) =>
          (st === 'all' || i.state === st) &&
          labels.every((l) => i.labels.includes(l)) &&
          (!assignee || (assignee === '*' ? i.assignees.length > 0 : assignee === 'none' ? i.assignees.length === 0 : i.assignees.includes(assignee))) &&
          (!q.get('creator') || i.user === q.get('creator')) &&
          (!q.get('since') || i.updated_at >= q.get('since')!),
      );
      const count = (i: GhIssue) => repo.comments.filter((c) => c.issue_number === i.number).length;
      return list(req, sortIssues(req, issues, count), (i) => renderIssue(ctx, repo, i));
    },
    'POST /repos/:owner/:repo/issues': (req) => {
      const { ctx, repo } = at(req);
      if (!repo.has_issues) throw new GhError(410, 'Issues are disabled for this repo', DOC.issue);
      const b = body(req);
      if (typeof b.title !== 'string' && typeof b.title !== 'number') throw validationFailed([{ resource: 'Issue', code: 'missing_field', field: 'title' }], DOC.issue);
      const assignees = checkAssignees(state, repo, b.assignees ?? b.assignee);
      const number = Math.max(0, ...repo.issues.map((i) => i.number)) + 1;
      const when = nowIso();
      const issue: GhIssue = {
        id: repo.id * 1000 + number,
        node_id: 'I_kwDO' + Buffer.from(`${repo.id}#${number}`).toString('base64url'),
        number,
        title: String(b.title),
        body: typeof b.body === 'string' ? b.body : null,
        user: state.login,
        state: 'open',
        state_reason: null,
        labels: labelNames(repo, b.labels),
        assignees,
        locked: false,
        created_at: when,
        updated_at: when,
        closed_at: null,
        closed_by: null,
      };
      repo.issues.push(issue);
      const rendered = renderIssue(ctx, repo, issue);
      notify(ctx, repo, 'issues', { action: 'opened', issue: rendered });
      return { status: 201, body: rendered, headers: { location: rendered.url } };
    },
    'GET /repos/:owner/:repo/issues/:number': (req) => {
      const { ctx, repo } = at(req);
      return { status: 200, body: renderIssue(ctx, repo, findIssue(repo, req.params.number!)) };
    },
    'PATCH /repos/:owner/:repo/issues/:number': (req) => {
      const { ctx, repo } = at(req);
      const issue = findIssue(repo, req.params.number!);
      const b = body(req);
      const before = { title: issue.title, body: issue.body, labels: [...issue.labels], state: issue.state };
      if (b.state !== undefined && b.state !== 'open' && b.state !== 'closed') throw validationFailed([{ resource: 'Issue', code: 'invalid', field: 'state' }], DOC.issue);
      if (b.state_reason !== undefined && b.state_reason !== null && !['completed', 'not_planned', 'reopened', 'duplicate'].includes(b.state_reason)) {
        throw validationFailed([{ resource: 'Issue', code: 'invalid', field: 'state_reason' }], DOC.issue);
      }
      if ('title' in b) issue.title = String(b.title);
      if ('body' in b) issue.body = b.body === null ? null : String(b.body);
      if ('labels' in b) issue.labels = labelNames(repo, b.labels);
      if ('assignees' in b || 'assignee' in b) issue.assignees = checkAssignees(state, repo, b.assignees ?? b.assignee);
      if (b.state === 'closed' && issue.state === 'open') {
        if (issue.pull) issue.pull.head_sha = repo.git.branches[issue.pull.head] ?? issue.pull.head_sha;
        closeIssue(issue, state.login, b.state_reason ?? 'completed');
      } else if (b.state === 'open' && issue.state === 'closed') {
        if (issue.pull?.merged_at) throw validationFailed([{ resource: 'PullRequest', code: 'custom', field: 'state', message: 'state cannot be changed. The pull request has been merged.' }]);
        Object.assign(issue, { state: 'open', closed_at: null, closed_by: null, state_reason: issue.pull ? null : 'reopened' });
        if (issue.pull) issue.pull.head_sha = null;
      } else if (b.state_reason !== undefined && issue.state === 'closed' && !issue.pull) issue.state_reason = b.state_reason;
      issue.updated_at = nowIso();
      const rendered = renderIssue(ctx, repo, issue);
      if (!issue.pull) {
        const event = (action: string, extra: Record<string, unknown> = {}) => notify(ctx, repo, 'issues', { action, issue: rendered, ...extra });
        if (before.title !== issue.title || before.body !== issue.body) {
          event('edited', { changes: { ...(before.title !== issue.title ? { title: { from: before.title } } : {}), ...(before.body !== issue.body ? { body: { from: before.body } } : {}) } });
        }
        for (const name of issue.labels.filter((l) => !before.labels.includes(l))) event('labeled', { label: { name } });
        for (const name of before.labels.filter((l) => !issue.labels.includes(l))) event('unlabeled', { label: { name } });
        if (before.state !== issue.state) event(issue.state === 'closed' ? 'closed' : 'reopened');
      }
      return { status: 200, body: rendered };
    },
    // Atomic label edits: POST adds to the issue's labels, DELETE removes one; both answer the labels now on the issue.
    'POST /repos/:owner/:repo/issues/:number/labels': (req) => {
      const { ctx, repo } = at(req);
      const issue = findIssue(repo, req.params.number!);
      const given = Array.isArray(req.body) ? req.body : isObject(req.body) ? req.body.labels : undefined;
      if (!Array.isArray(given) || given.length === 0) throw validationFailed([{ resource: 'Label', code: 'missing_field', field: 'labels' }], DOC.addLabels);
      const added = labelNames(repo, given).filter((name) => !issue.labels.includes(name));
      if (added.length) {
        issue.labels.push(...added);
        issue.updated_at = nowIso();
        announceLabels(ctx, repo, issue, 'labeled', added);
      }
      return { status: 200, body: issueLabels(ctx, repo, issue) };
    },
    'DELETE /repos/:owner/:repo/issues/:number/labels/:name': (req) => {
      const { ctx, repo } = at(req);
      const issue = findIssue(repo, req.params.number!);
      const name = issue.labels.find((l) => l.toLowerCase() === req.params.name!.toLowerCase());
      if (!name) throw new GhError(404, 'Label does not exist', DOC.removeLabel);
      issue.labels = issue.labels.filter((l) => l !== name);
      issue.updated_at = nowIso();
      announceLabels(ctx, repo, issue, 'unlabeled', [name]);
      return { status: 200, body: issueLabels(ctx, repo, issue) };
    },
    'GET /repos/:owner/:repo/issues/:number/comments': (req) => {
      const { ctx, repo } = at(req);
      const issue = findIssue(repo, req.params.number!);
      const since = req.query.get('since');
      return list(req, repo.comments.filter((c) => c.issue_number === issue.number && (!since || c.updated_at >= since)), (c) => renderComment(ctx, repo, c));
    },
    'POST /repos/:owner/:repo/issues/:number/comments': (req) => {
      const { ctx, repo } = at(req);
      const issue = findIssue(repo, req.params.number!);
      const b = body(req);
      if (typeof b.body !== 'string' || !b.body) throw validationFailed([{ resource: 'IssueComment', code: 'missing_field', field: 'body' }]);
      const when = nowIso();
      const c = { id: ++state.seq, node_id: 'IC_kwDO' + Buffer.from(`c${state.seq}`).toString('base64url'), issue_number: issue.number, body: b.body, user: state.login, created_at: when, updated_at: when };
      repo.comments.push(c);
      issue.updated_at = when;
      const rendered = renderComment(ctx, repo, c);
      notify(ctx, repo, 'issue_comment', { action: 'created', issue: renderIssue(ctx, repo, issue), comment: rendered });
      return { status: 201, body: rendered, headers: { location: rendered.url } };
    },
    'GET /repos/:owner/:repo/assignees': (req) => {
      const { ctx, repo } = at(req);
      const logins = [...new Set([...Object.keys(repo.collaborators), ...Object.keys(state.orgs[repo.owner]?.members ?? {})])].sort();
      return list(req, logins, (l) => simpleUser(ctx, l));
    },
    'GET /repos/:owner/:repo/assignees/:assignee': (req) => {
      const { repo } = at(req);
      if (!assignable(state, repo, req.params.assignee!)) throw notFound();
      return { status: 204 };
    },
    'GET /repos/:owner/:repo/collaborators': (req) => {
      const { ctx, repo } = at(req);
      return list(req, Object.keys(repo.collaborators).sort(), (login) => ({ ...simpleUser(ctx, login), permissions: permissionsOf(repo.collaborators[login]), role_name: repo.collaborators[login] }));
    },
    'GET /repos/:owner/:repo/collaborators/:username': (req) => {
      const { repo } = at(req);
      if (!repo.collaborators[req.params.username!]) throw notFound();
      return { status: 204 };
    },
    'GET /repos/:owner/:repo/collaborators/:username/permission': (req) => {
      const { ctx, repo } = at(req);
      const login = req.params.username!;
      if (!state.users[login]) throw notFound('https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user');
      const role = roleOf(state, repo, login);
      const permission = role ? LEGACY[role] : 'none';
      return { status: 200, body: { permission, role_name: role ?? 'none', user: { ...simpleUser(ctx, login), permissions: permissionsOf(role), role_name: role ?? 'none' } } };
    },
    'PUT /repos/:owner/:repo/collaborators/:username': (req) => {
      const { ctx, repo } = at(req);
      requireRole(repo, 'admin');
      const login = req.params.username!;
      const permission = body(req).permission ?? 'push';
      const role = PERMISSION_TO_ROLE[permission];
      if (!role) throw validationFailed([{ resource: 'Repository', code: 'invalid', field: 'permission', message: `permission must be one of: ${Object.keys(PERMISSION_TO_ROLE).join(', ')}` }], DOC.collab);
      if (!state.users[login]) throw notFound(DOC.collab);
      // Org members and existing collaborators get the role at once (204); others are invited (201).
      if (repo.collaborators[login] || state.orgs[repo.owner]?.members[login]) {
        repo.collaborators[login] = role;
        return { status: 204 };
      }
      let invitation = repo.invitations.find((i) => i.invitee === login);
      if (invitation) invitation.permissions = role;
      else {
        invitation = { id: ++state.seq, invitee: login, inviter: state.login, permissions: role, created_at: nowIso() };
        repo.invitations.push(invitation);
      }
      return { status: 201, body: renderInvitation(ctx, repo, invitation) };
    },
    'DELETE /repos/:owner/:repo/collaborators/:username': (req) => {
      const { repo } = at(req);
      requireRole(repo, 'admin');
      const login = req.params.username!;
      delete repo.collaborators[login];
      repo.invitations = repo.invitations.filter((i) => i.invitee !== login);
      return { status: 204 };
    },
    'GET /repos/:owner/:repo/invitations': (req) => {
      const { ctx, repo } = at(req);
      return list(req, repo.invitations, (i) => renderInvitation(ctx, repo, i));
    },
  };
}

function renderInvitation(ctx: Ctx, repo: GhRepo, i: GhRepo['invitations'][number]) {
  return {
    id: i.id,
    node_id: 'RI_kwDO' + Buffer.from(`inv${i.id}`).toString('base64url'),
    repository: minimalRepo(ctx, repo),
    invitee: simpleUser(ctx, i.invitee),
    inviter: simpleUser(ctx, i.inviter),
    permissions: i.permissions,
    created_at: i.created_at,
    expired: false,
    url: `${ctx.api}/user/repository_invitations/${i.id}`,
    html_url: `https://github.com/${repo.owner}/${repo.name}/invitations`,
  };
}
