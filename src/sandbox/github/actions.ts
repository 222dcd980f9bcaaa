import type { Routes, SandboxRequest } from '../server.js';
import type { GhRepo, GithubState } from './state.js';
import { treeSha } from './git.js';
import { GhError, ctxOf, findRepo, minimalRepo, missingField, notFound, nowIso, paginate, permissionsOf, repoUrl, roleOf, simpleUser, type Ctx } from './render.js';
import { dateMatches } from './search.js';
import { header, isObject } from '../util.js';

/** GitHub Actions: workflows (by id or file name), enable/disable, workflow_dispatch, runs with filters and Link paging. */

const DOC = {
  dispatch: 'https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event',
  runs: 'https://docs.github.com/rest/actions/workflow-runs#list-workflow-runs-for-a-repository',
};

export interface Workflow {
  id: number;
  name: string;
  path: string;
  state: 'active' | 'disabled_manually' | 'disabled_inactivity';
  /** Inputs of `on: workflow_dispatch`, or null when the workflow has no such trigger. */
  dispatch: Record<string, { required: boolean; default?: string }> | null;
  created_at: string;
  updated_at: string;
}
export interface WorkflowRun {
  id: number;
  workflow_id: number;
  run_number: number;
  run_attempt: number;
  event: string;
  status: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
  conclusion: string | null;
  head_branch: string;
  head_sha: string;
  display_title: string;
  actor: string;
  inputs?: Record<string, string>;
  created_at: string;
  updated_at: string;
  run_started_at: string;
}
export interface RepoActions {
  workflows: Workflow[];
  runs: WorkflowRun[];
}

const stores = new WeakMap<GithubState, Map<string, RepoActions>>();

function seed(repo: GhRepo): RepoActions {
  if (repo.owner !== 'sbx-octocat' || repo.name !== 'hello-world') return { workflows: [], runs: [] };
  const sha = (message: string) => Object.values(repo.git.commits).find((c) => c.message === message)?.sha ?? '0'.repeat(40);
  const run = (n: number, workflow_id: number, fields: Partial<WorkflowRun> & Pick<WorkflowRun, 'event' | 'head_branch' | 'head_sha' | 'display_title' | 'actor' | 'created_at'>): WorkflowRun => ({
    id: 30433600 + n,
    workflow_id,
    run_number: n,
    run_attempt: 1,
    status: 'completed',
    conclusion: 'success',
    updated_at: fields.created_at.replace(/:00Z$/, ':42Z'),
    run_started_at: fields.created_at,
    ...fields,
  });
  const runs = [
    run(1, 161335, { event: 'push', head_branch: 'main', head_sha: sha('Add CI workflow'), display_title: 'Add CI workflow', actor: 'sbx-hubot', created_at: '2025-02-03T11:01:00Z' }),
    run(2, 161336, { event: 'schedule', head_branch: 'main', head_sha: sha('Add CI workflow'), display_title: 'Nightly', actor: 'sbx-octocat', created_at: '2025-02-05T02:00:00Z' }),
    run(3, 161335, { event: 'push', head_branch: 'main', head_sha: sha('Document usage'), display_title: 'Document usage', actor: 'sbx-octocat', created_at: '2025-03-01T08:46:00Z' }),
    run(4, 161335, { event: 'pull_request', head_branch: 'feature/greeting', head_sha: sha('Let the greeting take a name'), display_title: 'Let the greeting take a name', actor: 'sbx-monalisa', created_at: '2025-03-02T10:06:00Z', conclusion: 'failure' }),
    run(5, 161335, { event: 'pull_request', head_branch: 'feature/greeting', head_sha: sha('Let the greeting take a name'), display_title: 'Let the greeting take a name', actor: 'sbx-monalisa', created_at: '2025-03-02T10:30:00Z', run_attempt: 2 }),
    run(6, 161335, { event: 'workflow_dispatch', head_branch: 'main', head_sha: sha('Document usage'), display_title: 'CI', actor: 'sbx-octocat', created_at: '2025-03-03T09:00:00Z', conclusion: 'cancelled' }),
  ];
  // Run numbers count per workflow.
  for (const r of runs) r.run_number = runs.filter((x) => x.workflow_id === r.workflow_id && x.id <= r.id).length;
  return {
    workflows: [
      { id: 161335, name: 'CI', path: '.github/workflows/ci.yml', state: 'active', dispatch: { greeting: { required: false, default: 'world' }, debug: { required: false } }, created_at: '2025-02-03T11:00:00Z', updated_at: '2025-02-03T11:00:00Z' },
      { id: 161336, name: 'Nightly', path: '.github/workflows/nightly.yml', state: 'disabled_manually', dispatch: null, created_at: '2025-02-04T11:00:00Z', updated_at: '2025-02-10T11:00:00Z' },
    ],
    runs,
  };
}

/** The Actions data of one repository, seeded on first use. */
export function actionsOf(state: GithubState, repo: GhRepo): RepoActions {
  let byRepo = stores.get(state);
  if (!byRepo) stores.set(state, (byRepo = new Map()));
  let a = byRepo.get(String(repo.id));
  if (!a) byRepo.set(String(repo.id), (a = seed(repo)));
  return a;
}

function renderWorkflow(ctx: Ctx, repo: GhRepo, w: Workflow) {
  const full = `${repo.owner}/${repo.name}`;
  return {
    id: w.id,
    node_id: 'W_kwDO' + Buffer.from(`${repo.id}:${w.id}`).toString('base64url'),
    name: w.name,
    path: w.path,
    state: w.state,
    created_at: w.created_at,
    updated_at: w.updated_at,
    url: `${repoUrl(ctx, repo)}/actions/workflows/${w.id}`,
    html_url: `https://github.com/${full}/blob/${repo.default_branch}/${w.path}`,
    badge_url: `https://github.com/${full}/workflows/${encodeURIComponent(w.name)}/badge.svg`,
  };
}

function renderRun(ctx: Ctx, repo: GhRepo, w: Workflow | undefined, r: WorkflowRun) {
  const url = `${repoUrl(ctx, repo)}/actions/runs/${r.id}`;
  const commit = repo.git.commits[r.head_sha];
  const mini = minimalRepo(ctx, repo);
  return {
    id: r.id,
    name: w?.name ?? null,
    node_id: 'WFR_kwLO' + Buffer.from(String(r.id)).toString('base64url'),
    head_branch: r.head_branch,
    head_sha: r.head_sha,
    path: w?.path ?? null,
    display_title: r.display_title,
    run_number: r.run_number,
    event: r.event,
    status: r.status,
    conclusion: r.conclusion,
    workflow_id: r.workflow_id,
    check_suite_id: r.id + 1_000_000,
    url,
    html_url: `https://github.com/${repo.owner}/${repo.name}/actions/runs/${r.id}`,
    pull_requests: [],
    created_at: r.created_at,
    updated_at: r.updated_at,
    actor: simpleUser(ctx, r.actor),
    triggering_actor: simpleUser(ctx, r.actor),
    run_attempt: r.run_attempt,
    referenced_workflows: [],
    run_started_at: r.run_started_at,
    jobs_url: `${url}/jobs`,
    logs_url: `${url}/logs`,
    check_suite_url: `${repoUrl(ctx, repo)}/check-suites/${r.id + 1_000_000}`,
    artifacts_url: `${url}/artifacts`,
    cancel_url: `${url}/cancel`,
    rerun_url: `${url}/rerun`,
    previous_attempt_url: r.run_attempt > 1 ? `${url}/attempts/${r.run_attempt - 1}` : null,
    workflow_url: `${repoUrl(ctx, repo)}/actions/workflows/${r.workflow_id}`,
    head_commit: commit
      ? { id: commit.sha, tree_id: treeSha(commit.tree), message: commit.message, timestamp: commit.author.date, author: { name: commit.author.name, email: commit.author.email }, committer: { name: commit.committer.name, email: commit.committer.email } }
      : null,
    repository: mini,
    head_repository: mini,
  };
}

const CONCLUSIONS = ['success', 'failure', 'neutral', 'cancelled', 'skipped', 'timed_out', 'action_required', 'stale', 'startup_failure'];

export function actionsRoutes(state: GithubState): Routes {
  const at = (req: SandboxRequest) => {
    const ctx = ctxOf(state, req);
    const repo = findRepo(ctx, req.params.owner!, req.params.repo!);
    return { ctx, repo, a: actionsOf(state, repo) };
  };
  /** `:workflow_id` is the numeric id or the file name (`ci.yml`). */
  const workflowOf = (a: RepoActions, idOrFile: string) => {
    const w = a.workflows.find((x) => String(x.id) === idOrFile || x.path.split('/').pop() === idOrFile);
    if (!w) throw notFound('https://docs.github.com/rest/actions/workflows#get-a-workflow');
    return w;
  };
  const requireWrite = (repo: GhRepo) => {
    if (!permissionsOf(roleOf(state, repo, state.login)).push) throw new GhError(403, 'Must have admin rights to Repository.', DOC.dispatch);
  };
  const listRuns = (req: SandboxRequest, workflow?: Workflow) => {
    const { ctx, repo, a } = at(req);
    const q = req.query;
    const status = q.get('status');
    const created = q.get('created');
    if (status && !CONCLUSIONS.includes(status) && !['completed', 'action_required', 'in_progress', 'queued', 'requested', 'waiting', 'pending'].includes(status)) {
      throw new GhError(422, `Invalid status: ${status}`, DOC.runs);
    }
    const runs = a.runs
      .filter(
        (r) =>
          (!workflow || r.workflow_id === workflow.id) &&
          (!q.get('actor') || r.actor === q.get('actor')) &&
          (!q.get('branch') || r.head_branch === q.get('branch')) &&
          (!q.get('event') || r.event === q.get('event')) &&
          (!q.get('head_sha') || r.head_sha === q.get('head_sha')) &&
          (!status || (CONCLUSIONS.includes(status) ? r.conclusion === status : r.status === status)) &&
          (!created || dateMatches(created, r.created_at)),
      )
      .sort((x, y) => y.created_at.localeCompare(x.created_at) || y.id - x.id);
    const page = paginate(req, runs);
    return {
      status: 200,
      headers: page.headers,
      body: { total_count: runs.length, workflow_runs: page.items.map((r) => renderRun(ctx, repo, a.workflows.find((w) => w.id === r.workflow_id), r)) },
    };
  };
  const setState = (value: Workflow['state']) => (req: SandboxRequest) => {
    const { repo, a } = at(req);
    requireWrite(repo);
    const w = workflowOf(a, req.params.workflow_id!);
    w.state = value;
    w.updated_at = nowIso();
    return { status: 204 };
  };

  return {
    'GET /repos/:owner/:repo/actions/workflows': (req) => {
      const { ctx, repo, a } = at(req);
      const page = paginate(req, a.workflows);
      return { status: 200, headers: page.headers, body: { total_count: a.workflows.length, workflows: page.items.map((w) => renderWorkflow(ctx, repo, w)) } };
    },
    'GET /repos/:owner/:repo/actions/workflows/:workflow_id': (req) => {
      const { ctx, repo, a } = at(req);
      return { status: 200, body: renderWorkflow(ctx, repo, workflowOf(a, req.params.workflow_id!)) };
    },
    'PUT /repos/:owner/:repo/actions/workflows/:workflow_id/enable': setState('active'),
    'PUT /repos/:owner/:repo/actions/workflows/:workflow_id/disable': setState('disabled_manually'),
    'GET /repos/:owner/:repo/actions/workflows/:workflow_id/runs': (req) => listRuns(req, workflowOf(at(req).a, req.params.workflow_id!)),
    'GET /repos/:owner/:repo/actions/runs': (req) => listRuns(req),
    'GET /repos/:owner/:repo/actions/runs/:run_id': (req) => {
      const { ctx, repo, a } = at(req);
      const r = a.runs.find((x) => String(x.id) === req.params.run_id);
      if (!r) throw notFound('https://docs.github.com/rest/actions/workflow-runs#get-a-workflow-run');
      return { status: 200, body: renderRun(ctx, repo, a.workflows.find((w) => w.id === r.workflow_id), r) };
    },
    'POST /repos/:owner/:repo/actions/workflows/:workflow_id/dispatches': (req) => {
      const { ctx, repo, a } = at(req);
      requireWrite(repo);
      const w = workflowOf(a, req.params.workflow_id!);
      const b: Record<string, any> = isObject(req.body) ? req.body : {};
      if (typeof b.ref !== 'string' || !b.ref) throw missingField('ref', DOC.dispatch);
      const name = b.ref.replace(/^refs\/(heads|tags)\//, '');
      const sha = repo.git.branches[name] ?? repo.git.tags[name];
      if (!sha) throw new GhError(422, `No ref found for: ${b.ref}`, DOC.dispatch);
      if (!w.dispatch) throw new GhError(422, "Workflow does not have 'workflow_dispatch' trigger", DOC.dispatch);
      if (w.state !== 'active') throw new GhError(422, "Cannot trigger a 'workflow_dispatch' on a disabled workflow", DOC.dispatch);
      const inputs: Record<string, unknown> = isObject(b.inputs) ? b.inputs : {};
      if (Object.keys(inputs).length > 25) throw new GhError(422, 'inputs are too large. The maximum number of properties is 25.', DOC.dispatch);
      const unexpected = Object.keys(inputs).filter((k) => !(k in w.dispatch!));
      if (unexpected.length) throw new GhError(422, `Unexpected inputs provided: ${JSON.stringify(unexpected)}`, DOC.dispatch);
      const missing = Object.entries(w.dispatch).find(([k, d]) => d.required && inputs[k] === undefined && d.default === undefined);
      if (missing) throw new GhError(422, `Required input '${missing[0]}' not provided`, DOC.dispatch);
      const when = nowIso();
      const run: WorkflowRun = {
        id: ++state.seq,
        workflow_id: w.id,
        run_number: Math.max(0, ...a.runs.filter((r) => r.workflow_id === w.id).map((r) => r.run_number)) + 1,
        run_attempt: 1,
        event: 'workflow_dispatch',
        status: 'queued',
        conclusion: null,
        head_branch: name,
        head_sha: sha,
        display_title: w.name,
        actor: state.login,
        inputs: Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, String(v)])),
        created_at: when,
        updated_at: when,
        run_started_at: when,
      };
      a.runs.push(run);
      if (b.return_run_details === true || header(req, 'x-github-api-version') === '2026-03-10') {
        const r = renderRun(ctx, repo, w, run);
        return { status: 200, body: { workflow_run_id: run.id, run_url: r.url, html_url: r.html_url } };
      }
      return { status: 204 };
    },
  };
}
