import * as z from 'zod/v4';
import { define, inList, lower, names, repoOf, who } from './triggers.define.js';
import { actor, int, text, time, url } from './payloads.js';
import { OUTCOMES, clip, line, login } from './webhooks.js';

/** Workflow, collaboration and project kinds of the specification (6.2). */

/* ---------- Workflows ---------- */

const conclusionFilters = {
  conclusions: z
    .array(z.enum(OUTCOMES as [string, ...string[]]))
    .min(1)
    .optional()
    .describe('Only these outcomes: succeeded (success, neutral), failed (failure, timed_out, startup_failure), cancelled, skipped, action_required, stale; default all'),
  workflow: z.string().min(1).optional().describe('Only this workflow (its name)'),
  branch: z.string().min(1).optional().describe('Only runs on this branch'),
};

const outcomeSchema = z.enum(OUTCOMES as [string, ...string[]]).describe('The outcome: succeeded, failed, cancelled, skipped, action_required, stale or unknown');

export const newWorkflowRun = define({
  name: 'workflow_run_completed',
  description:
    'Each completed workflow run with its outcome: succeeded, failed or cancelled (also skipped, action_required, stale), instantly from a webhook (workflow_run.completed). ' +
    'payload.workflow_run.outcome is the outcome, .conclusion GitHub\'s own value.',
  filters: conclusionFilters,
  accept: (c, p, cfg) =>
    (!cfg.conclusions || cfg.conclusions.includes(c.detail)) && inList(cfg.workflow && [cfg.workflow], p.workflow_run?.name) && (!cfg.branch || p.workflow_run?.head_branch === cfg.branch),
  render: (p, c) => {
    const r = p.workflow_run ?? {};
    return {
      summary: `${repoOf(p)} workflow "${r.name}" #${r.run_number} ${c.detail}${r.conclusion && r.conclusion !== 'success' && r.conclusion !== c.detail ? ` (${r.conclusion})` : ''}${r.head_branch ? ` on ${r.head_branch}` : ''}`,
      payload: {
        workflow_run: {
          id: r.id ?? null,
          name: r.name ?? null,
          display_title: r.display_title ?? null,
          run_number: r.run_number ?? null,
          run_attempt: r.run_attempt ?? null,
          event: r.event ?? null,
          status: r.status ?? null,
          conclusion: r.conclusion ?? null,
          outcome: c.detail ?? null,
          head_branch: r.head_branch ?? null,
          head_sha: r.head_sha ?? null,
          html_url: r.html_url ?? null,
          actor: login(r.actor),
          created_at: r.created_at ?? null,
          updated_at: r.updated_at ?? null,
        },
      },
      at: r.updated_at,
    };
  },
  payload: {
    workflow_run: z.strictObject({
      id: int('Run id'),
      name: text('Workflow name'),
      display_title: text('Title GitHub shows for the run (commit message or pull request title)'),
      run_number: int('Run number within the workflow'),
      run_attempt: int('Attempt, from 1'),
      event: text('What started the run, e.g. push or pull_request'),
      status: text('GitHub status; completed'),
      conclusion: text("GitHub's conclusion: success, failure, neutral, cancelled, skipped, timed_out, action_required, stale or startup_failure"),
      outcome: outcomeSchema,
      head_branch: text('Branch the run was on'),
      head_sha: text('Commit the run was on'),
      html_url: url('Run page'),
      actor: actor('Who started the run'),
      created_at: time('When the run was created'),
      updated_at: time('When the run last changed'),
    }),
  },
});

export const newWorkflowJob = define({
  name: 'workflow_job_completed',
  description: 'Each completed workflow job with its outcome (as for workflow_run_completed), instantly from a webhook (workflow_job.completed).',
  filters: { ...conclusionFilters, job: z.string().min(1).optional().describe('Only this job (its name)') },
  accept: (c, p, cfg) =>
    (!cfg.conclusions || cfg.conclusions.includes(c.detail)) &&
    inList(cfg.workflow && [cfg.workflow], p.workflow_job?.workflow_name) &&
    inList(cfg.job && [cfg.job], p.workflow_job?.name) &&
    (!cfg.branch || p.workflow_job?.head_branch === cfg.branch),
  render: (p, c) => {
    const j = p.workflow_job ?? {};
    return {
      summary: `${repoOf(p)} job "${j.name}"${j.workflow_name ? ` of "${j.workflow_name}"` : ''} ${c.detail}${j.head_branch ? ` on ${j.head_branch}` : ''}`,
      payload: {
        workflow_job: {
          id: j.id ?? null,
          run_id: j.run_id ?? null,
          run_attempt: j.run_attempt ?? null,
          name: j.name ?? null,
          workflow_name: j.workflow_name ?? null,
          status: j.status ?? null,
          conclusion: j.conclusion ?? null,
          outcome: c.detail ?? null,
          head_branch: j.head_branch ?? null,
          head_sha: j.head_sha ?? null,
          html_url: j.html_url ?? null,
          runner_name: j.runner_name ?? null,
          started_at: j.started_at ?? null,
          completed_at: j.completed_at ?? null,
        },
      },
      at: j.completed_at,
    };
  },
  payload: {
    workflow_job: z.strictObject({
      id: int('Job id'),
      run_id: int('Id of the run the job belongs to'),
      run_attempt: int('Attempt of that run, from 1'),
      name: text('Job name'),
      workflow_name: text('Workflow name'),
      status: text('GitHub status; completed'),
      conclusion: text("GitHub's conclusion: success, failure, neutral, cancelled, skipped, timed_out, action_required, stale or startup_failure"),
      outcome: outcomeSchema,
      head_branch: text('Branch the job ran on'),
      head_sha: text('Commit the job ran on'),
      html_url: url('Job page'),
      runner_name: text('Runner that ran it'),
      started_at: time('When it started'),
      completed_at: time('When it completed'),
    }),
  },
});

/* ---------- Collaboration ---------- */

export const newCollaborator = define({
  name: 'new_collaborator',
  description:
    'Each collaborator added to a repository (member.added), instantly from a webhook; on an organization also each new member of it (organization.member_added). payload.scope says which.',
  events: (cfg) => (cfg.org ? ['member', 'organization'] : ['member']),
  render: (p, c) => {
    const member = c.detail === 'organization' ? login(p.membership?.user) : login(p.member);
    return {
      summary: c.detail === 'organization' ? `${member} joined organization ${p.organization?.login}` : `${member} added as a collaborator to ${repoOf(p)} by ${who(p)}`,
      payload: { scope: c.detail ?? null, member, permission: p.changes?.permission?.to ?? null, role: p.membership?.role ?? null },
    };
  },
  payload: {
    scope: z.enum(['repository', 'organization']).describe('repository: added as a collaborator; organization: joined the organization'),
    member: actor('Who was added'),
    permission: text('Repository permission given, e.g. write (repository scope, when GitHub says)'),
    role: text('Organization role, e.g. member or admin (organization scope)'),
  },
});

/* ---------- Projects ---------- */

export const projectItemStatusChanged = define({
  name: 'project_item_status_changed',
  target: 'org',
  description:
    "Each change of a Projects (v2) item's Status field, instantly from an organization webhook (projects_v2_item.edited on a single-select field). " +
    'GitHub sends these to organization hooks only (public preview); user-owned projects have no webhook.',
  filters: {
    field_name: z.string().min(1).optional().describe('The single-select field to watch; default "Status" (when GitHub names the field in the payload)'),
    project_number: z.number().int().positive().optional().describe('Only this project (its number), when GitHub names it in the payload'),
    to: names('Only changes to one of these option names, e.g. ["Done"]'),
  },
  accept: (c, p, cfg) => {
    const fv = p.changes?.field_value ?? {};
    return (
      (fv.field_name === undefined || lower(fv.field_name) === lower(cfg.field_name ?? 'Status')) &&
      (cfg.project_number === undefined || fv.project_number === undefined || fv.project_number === cfg.project_number) &&
      (!cfg.to || (c.detail !== undefined && inList(cfg.to, c.detail)))
    );
  },
  render: (p, c) => {
    const item = p.projects_v2_item ?? {};
    const fv = p.changes?.field_value ?? {};
    const from = fv.from && typeof fv.from === 'object' ? (fv.from.name ?? null) : null;
    return {
      summary: `Project item ${item.content_type ?? ''} ${item.node_id} ${fv.field_name ?? 'status'} changed${from ? ` from ${from}` : ''}${c.detail ? ` to ${c.detail}` : ''} by ${who(p)}`,
      payload: {
        item: { id: item.id ?? null, node_id: item.node_id ?? null, content_type: item.content_type ?? null, content_node_id: item.content_node_id ?? null, project_node_id: item.project_node_id ?? null },
        field: { node_id: fv.field_node_id ?? null, name: fv.field_name ?? null, type: fv.field_type ?? null },
        project_number: fv.project_number ?? null,
        from,
        to: c.detail ?? null,
      },
      at: item.updated_at,
    };
  },
  payload: {
    item: z.strictObject({
      id: int('Project item id'),
      node_id: text('Project item node id (GraphQL)'),
      content_type: text('Issue, PullRequest or DraftIssue'),
      content_node_id: text('Node id of the issue, pull request or draft'),
      project_node_id: text('Node id of the project'),
    }),
    field: z.strictObject({ node_id: text('Field node id'), name: text('Field name, when GitHub names it'), type: text('Field type: single_select') }),
    project_number: int('Project number, when GitHub names it'),
    from: text('Option before the change'),
    to: text('Option after the change'),
  },
});

export const newCardInColumn = define({
  name: 'new_card_in_column',
  description:
    'Each card added to a column of a classic project board, from a webhook (project_card.created). Projects (classic) is sunset by GitHub: this fires only where GitHub still sends ' +
    'project_card events; for Projects (v2) use github.project_item_status_changed.',
  filters: { column_id: z.number().int().positive().optional().describe('Only cards added to this column id') },
  accept: (_c, p, cfg) => cfg.column_id === undefined || p.project_card?.column_id === cfg.column_id,
  render: (p) => {
    const card = p.project_card ?? {};
    return {
      summary: `Card added to column ${card.column_id}${p.repository ? ` in ${p.repository.full_name}` : ''} by ${who(p)}: ${line(card.note) || card.content_url || card.id}`,
      payload: { card: { id: card.id ?? null, note: clip(card.note), column_id: card.column_id ?? null, content_url: card.content_url ?? null, project_url: card.project_url ?? null, creator: login(card.creator), created_at: card.created_at ?? null } },
      at: card.created_at,
    };
  },
  payload: {
    card: z.strictObject({
      id: int('Card id'),
      note: text('Card note, cut at 1,000 characters; null for a card of an issue or pull request'),
      column_id: int('Column id'),
      content_url: url('API URL of the issue or pull request on the card'),
      project_url: url('API URL of the project'),
      creator: actor('Who added the card'),
      created_at: time('When it was added'),
    }),
  },
});
