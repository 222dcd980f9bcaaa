import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { Tool } from '../../tool.js';
import { cursorField, githubPage, limitField, repoFields, repoPath } from './common.js';
import { github } from './connector.js';

/** GitHub Actions: dispatch, enable and disable a workflow; read its runs. */

const workflowField = z.string().min(1).describe('ci.yml or id');

/** `ci.yml`, `.github/workflows/ci.yml` or `161335` → the path segment GitHub takes. */
function workflowSegment(workflow: string): string {
  const name = workflow.trim().replace(/^\.github\/workflows\//, '');
  if (/^\d+$/.test(name) || /^[^/\\]+\.ya?ml$/i.test(name)) return encodeURIComponent(name);
  throw new InputError(`"workflow" must be a workflow file name such as ci.yml or a numeric workflow id (got ${JSON.stringify(workflow.slice(0, 80))}).`, 'workflow');
}

interface GhRun {
  id: number;
  name?: string | null;
  display_title?: string;
  event: string;
  status: string | null;
  conclusion: string | null;
  head_branch: string | null;
  head_sha: string;
  run_number: number;
  run_attempt?: number;
  html_url: string;
  created_at: string;
  updated_at: string;
  actor?: { login: string } | null;
}

const runShape = z.object({
  id: z.number(),
  name: z.string().nullable(),
  display_title: z.string().optional(),
  event: z.string(),
  status: z.string().nullable(),
  conclusion: z.string().nullable(),
  head_branch: z.string().nullable(),
  head_sha: z.string(),
  run_number: z.number(),
  run_attempt: z.number().optional(),
  html_url: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  actor: z.string().nullable(),
});

const compactRun = (r: GhRun): z.infer<typeof runShape> => ({
  id: r.id,
  name: r.name ?? null,
  display_title: r.display_title,
  event: r.event,
  status: r.status,
  conclusion: r.conclusion,
  head_branch: r.head_branch,
  head_sha: r.head_sha,
  run_number: r.run_number,
  run_attempt: r.run_attempt,
  html_url: r.html_url,
  created_at: r.created_at,
  updated_at: r.updated_at,
  actor: r.actor?.login ?? null,
});

/** A run in a list: enough to choose one; github_get_workflow_run has the rest. */
const listedRun = runShape.pick({ id: true, name: true, display_title: true, event: true, status: true, conclusion: true, head_branch: true, run_number: true, created_at: true, html_url: true, actor: true });
const listed = (r: GhRun): z.infer<typeof listedRun> => {
  const { head_sha: _sha, run_attempt: _attempt, updated_at: _updated, ...rest } = compactRun(r);
  return rest;
};

const createWorkflowDispatch = github.tool({
  name: 'create_workflow_dispatch',
  title: 'Run workflow (dispatch)',
  description:
    'Run a workflow with a workflow_dispatch trigger on a branch or tag; returns workflow_run_id when GitHub gives it. ' +
    'Else see github_list_workflow_runs.',
  input: z
    .object({
      ...repoFields,
      workflow: workflowField,
      ref: z.string().min(1).describe('Branch or tag'),
      inputs: z.record(z.string(), z.string()).optional().describe('By name, at most 25'),
    })
    .strict(),
  output: z.object({
    requested: z.boolean(),
    workflow_run_id: z.number().optional(),
    run_url: z.string().optional(),
    html_url: z.string().optional(),
    note: z.string().optional(),
  }),
  effect: 'write',
  async run({ owner, repo, workflow, ref, inputs }, { api }) {
    if (inputs && Object.keys(inputs).length > 25) throw new InputError(`"inputs" has ${Object.keys(inputs).length} keys; GitHub takes at most 25.`, 'inputs');
    const res = await api.request({
      method: 'POST',
      endpoint: `${repoPath(owner, repo)}/actions/workflows/${workflowSegment(workflow)}/dispatches`,
      body: { ref, ...(inputs ? { inputs } : {}), return_run_details: true },
    });
    const run = res.body as { workflow_run_id?: number; run_url?: string; html_url?: string } | null;
    if (res.status === 200 && run?.workflow_run_id) return { requested: true, workflow_run_id: run.workflow_run_id, run_url: run.run_url, html_url: run.html_url };
    return {
      requested: true,
      note: `GitHub accepted the dispatch without run details; the run appears in github_list_workflow_runs with workflow "${workflow}", event workflow_dispatch, branch "${ref}".`,
    };
  },
});

const setWorkflowState = (enable: boolean) =>
  github.tool({
    name: enable ? 'enable_workflow' : 'disable_workflow',
    title: enable ? 'Enable workflow' : 'Disable workflow',
    description: enable
      ? 'Enable a disabled workflow so events run it again; returns its state. Harmless twice.'
      : 'Disable a workflow so no event runs it; returns its state. Started runs continue.',
    input: z.object({ ...repoFields, workflow: workflowField }).strict(),
    output: z.object({ workflow: z.string(), state: z.enum(['active', 'disabled_manually']) }),
    effect: 'write',
    idempotent: true,
    async run({ owner, repo, workflow }, { api }) {
      await api.put(`${repoPath(owner, repo)}/actions/workflows/${workflowSegment(workflow)}/${enable ? 'enable' : 'disable'}`);
      return { workflow, state: enable ? ('active' as const) : ('disabled_manually' as const) };
    },
  });

const getWorkflowRun = github.tool({
  name: 'get_workflow_run',
  title: 'Get workflow run',
  description:
    'Get one workflow run with its status and conclusion. ' +
    'Ids come from github_list_workflow_runs.',
  input: z.object({ ...repoFields, run_id: z.number().int().min(1).describe('Workflow run id') }).strict(),
  output: runShape,
  effect: 'read',
  async run({ owner, repo, run_id }, { api }) {
    return compactRun(await api.get<GhRun>(`${repoPath(owner, repo)}/actions/runs/${run_id}`));
  },
});

const RUN_STATUSES = ['completed', 'action_required', 'cancelled', 'failure', 'neutral', 'skipped', 'stale', 'success', 'timed_out', 'in_progress', 'queued', 'requested', 'waiting', 'pending'] as const;

const listWorkflowRuns = github.tool({
  name: 'list_workflow_runs',
  title: 'List workflow runs',
  description:
    'List workflow runs of a repo or one workflow, newest first, by actor, branch, event, status or date.',
  input: z
    .object({
      ...repoFields,
      workflow: workflowField.optional(),
      actor: z.string().optional().describe('Login'),
      branch: z.string().optional().describe('Branch'),
      event: z.string().optional().describe('e.g. push, pull_request, workflow_dispatch'),
      status: z.enum(RUN_STATUSES).optional().describe('Status or conclusion'),
      created: z.string().optional().describe('e.g. >=2025-03-01 or 2025-03-01..2025-03-05'),
      head_sha: z.string().optional().describe('Commit sha'),
      limit: limitField(100, 30),
      cursor: cursorField,
    })
    .strict(),
  output: z.object({ total_count: z.number(), workflow_runs: z.array(listedRun), next_cursor: z.string().nullable() }),
  effect: 'read',
  records: 'workflow_runs',
  async run({ owner, repo, workflow, limit, cursor, ...filters }, { api }) {
    const base = repoPath(owner, repo);
    const endpoint = workflow ? `${base}/actions/workflows/${workflowSegment(workflow)}/runs` : `${base}/actions/runs`;
    const page = await githubPage<GhRun>(api, endpoint, { limit: limit ?? 30, cursor, itemsKey: 'workflow_runs', query: filters });
    return { total_count: page.total_count ?? page.items.length, workflow_runs: page.items.map(listed), next_cursor: page.next_cursor };
  },
});

export const workflowsTools: Tool[] = [createWorkflowDispatch, setWorkflowState(true), setWorkflowState(false), getWorkflowRun, listWorkflowRuns];
