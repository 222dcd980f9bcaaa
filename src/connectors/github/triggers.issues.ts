import * as z from 'zod/v4';
import { pollList } from './polled.js';
import { define, hasLabel, inList, names, polledEvent, ref, repoPath, who, type Cfg } from './triggers.define.js';
import { actor, int, issueSchema, pullRequestSchema, text, time, url } from './payloads.js';
import { ISSUE_CHANGES, PULL_CHANGES, REVIEW_STATES, clip, issueShape, line, login, pullShape, type Classified, type GithubPayload } from './webhooks.js';

/** Issue and pull request kinds of the specification (6.2). */

/* ---------- Issues and pull requests ---------- */

const issueRender = (verb: (p: GithubPayload, c: Classified) => string) => (p: GithubPayload, c: Classified) => ({
  summary: `${ref(p, p.issue?.number)} ${verb(p, c)} by ${who(p)}: ${line(p.issue?.title)}`,
  payload: { issue: issueShape(p.issue) },
  at: p.action === 'opened' ? p.issue?.created_at : p.issue?.updated_at,
});

export const newIssue = define({
  name: 'new_issue',
  description: 'Each new issue in a repository (or organization), instantly from a webhook (issues.opened); "mode":"poll" polls the repository instead (no public URL needed).',
  filters: { labels: names('Only issues carrying one of these labels (at opening)') },
  accept: (_c, p, cfg) => hasLabel(cfg, p.issue),
  render: issueRender(() => 'opened'),
  payload: { issue: issueSchema },
  poll: {
    what: (cfg) => `new issues of ${cfg.repo}`,
    run: (ctx, spec) => {
      const cfg = ctx.trigger.config as Cfg;
      return pollList(ctx, {
        endpoint: `${repoPath(cfg)}/issues?state=all&sort=created&direction=desc&per_page=30`,
        items: (b) => (Array.isArray(b) ? b : []),
        key: (i) => `issue:${i.number}`,
        time: (i) => i.created_at,
        keep: (i) => !i.pull_request && hasLabel(cfg, i),
        event: (i) => polledEvent(spec, { action: 'opened', issue: i, repository: { full_name: cfg.repo }, sender: i.user }, `issue:${i.number}`),
      });
    },
  },
});

const ISSUE_VERB: Record<string, (p: GithubPayload, c: Classified) => string> = {
  edited: (_p, c) => (c.detail ? `${c.detail.replace(',', ' and ')} edited` : 'edited'),
  labeled: (p) => `labeled "${p.label?.name}"`,
  unlabeled: (p) => `unlabeled "${p.label?.name}"`,
  assigned: (p) => `assigned to ${login(p.assignee)}`,
  unassigned: (p) => `unassigned from ${login(p.assignee)}`,
  closed: (p) => `closed${p.issue?.state_reason ? ` as ${p.issue.state_reason}` : ''}`,
  reopened: () => 'reopened',
};

export const updatedIssue = define({
  name: 'updated_issue',
  description:
    'Each change to an issue\'s title, body, labels, assignees or state (open/closed), instantly from a webhook (issues.edited/labeled/unlabeled/assigned/unassigned/closed/reopened). ' +
    'payload.change names it; narrow with "changes".',
  filters: {
    changes: z.array(z.enum(ISSUE_CHANGES)).min(1).optional().describe('Only these changes: title, body, labels, assignees, state; default all'),
    labels: names('Only issues carrying one of these labels'),
  },
  accept: (c, p, cfg) => (!cfg.changes || (c.detail ?? '').split(',').some((d) => cfg.changes.includes(d))) && hasLabel(cfg, p.issue),
  render: (p, c) => {
    const base = issueRender(ISSUE_VERB[p.action] ?? (() => String(p.action)))(p, c);
    const changes = p.changes && typeof p.changes === 'object' ? p.changes : {};
    return {
      ...base,
      payload: {
        change: c.detail ?? null,
        ...base.payload,
        ...(p.label ? { label: p.label.name ?? null } : {}),
        ...(p.assignee ? { assignee: login(p.assignee) } : {}),
        ...(changes.title || changes.body ? { changes: { title_from: changes.title?.from ?? undefined, body_from: clip(changes.body?.from, 300) ?? undefined } } : {}),
      },
    };
  },
  payload: {
    change: text('What changed: title, body (both comma-joined when both were edited), labels, assignees or state; null for an edit of neither title nor body'),
    issue: issueSchema,
    label: text('The label added or removed (labels changes)').optional(),
    assignee: actor('Who was assigned or unassigned (assignees changes)').optional(),
    changes: z
      .strictObject({ title_from: z.string().optional().describe('The title before the edit'), body_from: z.string().optional().describe('The body before the edit, cut at 300 characters') })
      .optional()
      .describe('The previous title or body, for edits of either'),
  },
});

const pullRender = (verb: (p: GithubPayload, c: Classified) => string) => (p: GithubPayload, c: Classified) => ({
  summary: `${ref(p, p.pull_request?.number)} ${verb(p, c)} by ${who(p)}: ${line(p.pull_request?.title)}`,
  payload: { pull_request: pullShape(p.pull_request) },
  at: p.action === 'opened' ? p.pull_request?.created_at : p.pull_request?.updated_at,
});

export const newPullRequest = define({
  name: 'new_pull_request',
  description: 'Each new pull request, instantly from a webhook (pull_request.opened; reopened too with include_reopened).',
  filters: {
    include_drafts: z.boolean().optional().describe('Fire for draft pull requests too; default true'),
    include_reopened: z.boolean().optional().describe('Also fire when a closed pull request is reopened; default false'),
    base: z.string().min(1).optional().describe('Only pull requests into this base branch'),
  },
  accept: (c, p, cfg) =>
    (c.detail !== 'reopened' || cfg.include_reopened === true) && (cfg.include_drafts !== false || !p.pull_request?.draft) && (!cfg.base || p.pull_request?.base?.ref === cfg.base),
  render: pullRender((p, c) => `${c.detail}${p.pull_request?.draft ? ' as a draft' : ''}`),
  payload: { pull_request: pullRequestSchema },
});

const PULL_VERB: Record<string, (p: GithubPayload) => string> = {
  modified: (p) => (p.action === 'synchronize' ? 'got new commits' : 'edited'),
  draft: () => 'converted to draft',
  ready: () => 'marked ready for review',
  closed: (p) => (p.pull_request?.merged ? 'merged' : 'closed without merging'),
};

export const updatedPullRequest = define({
  name: 'updated_pull_request',
  description:
    'Each change to a pull request: modified (edited title/body/base, or new commits), draft, ready (for review), closed (payload.merged says whether it was merged); ' +
    'instantly from a webhook (pull_request.edited/synchronize/converted_to_draft/ready_for_review/closed). Narrow with "changes" ("merged" = closed by a merge).',
  filters: {
    changes: z.array(z.enum([...PULL_CHANGES, 'merged'])).min(1).optional().describe('Only these: modified, draft, ready, closed, merged; default all'),
    base: z.string().min(1).optional().describe('Only pull requests into this base branch'),
  },
  accept: (c, p, cfg) =>
    (!cfg.changes || cfg.changes.includes(c.detail) || (cfg.changes.includes('merged') && c.detail === 'closed' && !!p.pull_request?.merged)) &&
    (!cfg.base || p.pull_request?.base?.ref === cfg.base),
  render: (p, c) => {
    const base = pullRender(() => PULL_VERB[c.detail ?? '']?.(p) ?? String(p.action))(p, c);
    return {
      ...base,
      payload: { change: c.detail ?? null, merged: !!p.pull_request?.merged, ...base.payload, ...(p.action === 'synchronize' ? { before: p.before ?? null, after: p.after ?? null } : {}) },
    };
  },
  payload: {
    change: z.enum(PULL_CHANGES).describe('modified (edited, or new commits), draft, ready (for review) or closed'),
    merged: z.boolean().describe('Whether the pull request is merged (with change closed: closed by a merge)'),
    pull_request: pullRequestSchema,
    before: text('Head SHA before new commits were pushed (new commits only)').optional(),
    after: text('Head SHA after new commits were pushed (new commits only)').optional(),
  },
});

const commentedSchema = z.strictObject({
  number: int('Issue or pull request number'),
  title: text('Its title'),
  state: z.enum(['open', 'closed']).nullable(),
  html_url: url('Its page'),
  user: actor('Its author'),
});

export const newComment = define({
  name: 'new_comment',
  description:
    'Each new comment on an issue or a pull request conversation, instantly from a webhook (issue_comment.created; payload.on says issue or pull_request). ' +
    'Add "review_comment" to "on" for comments on pull request diffs too.',
  filters: {
    on: z.array(z.enum(['issue', 'pull_request', 'review_comment'])).min(1).optional().describe('Which comments: issue, pull_request (conversation), review_comment (diff); default issue and pull_request'),
  },
  events: (cfg) => {
    const on: string[] = cfg.on ?? ['issue', 'pull_request'];
    return [...(on.some((o) => o !== 'review_comment') ? ['issue_comment'] : []), ...(on.includes('review_comment') ? ['pull_request_review_comment'] : [])];
  },
  accept: (c, _p, cfg) => (cfg.on ?? ['issue', 'pull_request']).includes(c.detail),
  render: (p, c) => {
    const target = c.detail === 'review_comment' ? p.pull_request : p.issue;
    return {
      summary: `${who(p)} commented on ${ref(p, target?.number)}: ${line(target?.title)}`,
      payload: {
        on: c.detail ?? null,
        comment: {
          id: p.comment?.id ?? null,
          html_url: p.comment?.html_url ?? null,
          user: login(p.comment?.user),
          body: clip(p.comment?.body),
          created_at: p.comment?.created_at ?? null,
          ...(c.detail === 'review_comment' ? { path: p.comment?.path ?? null, line: p.comment?.line ?? null } : {}),
        },
        [c.detail === 'issue' ? 'issue' : 'pull_request']: {
          number: target?.number ?? null,
          title: target?.title ?? null,
          state: target?.state ?? null,
          html_url: target?.html_url ?? null,
          user: login(target?.user),
        },
      },
      at: p.comment?.created_at,
    };
  },
  payload: {
    on: z.enum(['issue', 'pull_request', 'review_comment']).describe('issue, pull_request (its conversation) or review_comment (on its diff)'),
    comment: z.strictObject({
      id: int('Comment id'),
      html_url: url('Comment page'),
      user: actor('Author'),
      body: text('Comment body, Markdown, cut at 1,000 characters'),
      created_at: time('When it was written'),
      path: text('File commented on (review comments only)').optional(),
      line: int('Line commented on (review comments only)').optional(),
    }),
    issue: commentedSchema.optional().describe('The issue commented on (on: issue)'),
    pull_request: commentedSchema.optional().describe('The pull request commented on (on: pull_request or review_comment)'),
  },
});

export const newLabelOnIssue = define({
  name: 'new_label_on_issue',
  description: 'Each label added to an issue, instantly from a webhook (issues.labeled). Narrow with "labels".',
  filters: { labels: names('Only when one of these labels is added') },
  accept: (_c, p, cfg) => inList(cfg.labels, p.label?.name),
  render: (p) => ({
    summary: `${ref(p, p.issue?.number)} labeled "${p.label?.name}" by ${who(p)}: ${line(p.issue?.title)}`,
    payload: { label: { name: p.label?.name ?? null, color: p.label?.color ?? null, description: p.label?.description ?? null }, issue: issueShape(p.issue) },
    at: p.issue?.updated_at,
  }),
  payload: {
    label: z.strictObject({ name: text('Label name'), color: text('Hex colour without #'), description: text('Label description') }),
    issue: issueSchema,
  },
});

export const newReviewRequest = define({
  name: 'new_review_request',
  description: 'Each review requested on a pull request, from a person or a team, instantly from a webhook (pull_request.review_requested).',
  filters: { reviewers: names('Only requests to one of these logins or team slugs') },
  accept: (c, _p, cfg) => inList(cfg.reviewers, c.detail),
  render: (p, c) => ({
    summary: `${ref(p, p.pull_request?.number)}: review requested from ${c.detail ?? 'someone'} by ${who(p)}: ${line(p.pull_request?.title)}`,
    payload: { requested_reviewer: login(p.requested_reviewer), requested_team: p.requested_team?.slug ?? null, pull_request: pullShape(p.pull_request) },
    at: p.pull_request?.updated_at,
  }),
  payload: {
    requested_reviewer: actor('The person asked to review; null when a team was asked'),
    requested_team: text('Slug of the team asked to review; null when a person was asked'),
    pull_request: pullRequestSchema,
  },
});

const REVIEW_VERB: Record<string, string> = { approved: 'approved', changes_requested: 'changes requested', commented: 'reviewed with comments' };

export const newPullRequestReview = define({
  name: 'new_pull_request_review',
  description: 'Each submitted pull request review: approved, changes_requested or commented (payload.review.state), instantly from a webhook (pull_request_review.submitted).',
  filters: { review_states: z.array(z.enum(REVIEW_STATES)).min(1).optional().describe('Only these states: approved, changes_requested, commented; default all') },
  accept: (c, _p, cfg) => !cfg.review_states || cfg.review_states.includes(c.detail),
  render: (p, c) => ({
    summary: `${ref(p, p.pull_request?.number)} ${REVIEW_VERB[c.detail ?? ''] ?? 'reviewed'} by ${login(p.review?.user) ?? who(p)}: ${line(p.pull_request?.title)}`,
    payload: {
      review: {
        id: p.review?.id ?? null,
        state: c.detail ?? null,
        user: login(p.review?.user),
        body: clip(p.review?.body),
        html_url: p.review?.html_url ?? null,
        commit_id: p.review?.commit_id ?? null,
        submitted_at: p.review?.submitted_at ?? null,
      },
      pull_request: pullShape(p.pull_request),
    },
    at: p.review?.submitted_at,
  }),
  payload: {
    review: z.strictObject({
      id: int('Review id'),
      state: z.enum(REVIEW_STATES),
      user: actor('Reviewer'),
      body: text('Review comment, Markdown, cut at 1,000 characters'),
      html_url: url('Review page'),
      commit_id: text('Commit SHA the review is on'),
      submitted_at: time('When it was submitted'),
    }),
    pull_request: pullRequestSchema,
  },
});
