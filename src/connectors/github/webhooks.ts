/**
 * GitHub webhook deliveries → Switchboard trigger kinds (provider-facts B4), as a pure table.
 * `detail` carries the specification's sub-condition (which change, which review state, which
 * conclusion); a trigger's config narrows on it.
 */

export type GithubPayload = Record<string, any>;

export interface Classified {
  /** Full kind name, e.g. `github.updated_issue`. */
  kind: string;
  /** The sub-condition: for several at once (an edit of title and body) a comma-joined list. */
  detail?: string;
}

/** Workflow conclusions, as the specification names them (succeeded, failed, cancelled) plus the rest. */
export type Outcome = 'succeeded' | 'failed' | 'cancelled' | 'skipped' | 'action_required' | 'stale' | 'unknown';
export const OUTCOMES: readonly Outcome[] = ['succeeded', 'failed', 'cancelled', 'skipped', 'action_required', 'stale', 'unknown'];

/**
 * success → succeeded; failure, timed_out, startup_failure → failed; cancelled → cancelled;
 * neutral → succeeded (GitHub counts a neutral check as passing); skipped, action_required and
 * stale keep their own name; no conclusion → unknown.
 */
export function outcomeOf(conclusion: unknown): Outcome {
  switch (conclusion) {
    case 'success':
    case 'neutral':
      return 'succeeded';
    case 'failure':
    case 'timed_out':
    case 'startup_failure':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    case 'skipped':
    case 'action_required':
    case 'stale':
      return conclusion;
    default:
      return 'unknown';
  }
}

export const ISSUE_CHANGES = ['title', 'body', 'labels', 'assignees', 'state'] as const;
export const PULL_CHANGES = ['modified', 'draft', 'ready', 'closed'] as const;
export const REVIEW_STATES = ['approved', 'changes_requested', 'commented'] as const;

const k = (name: string, detail?: string): Classified => (detail === undefined ? { kind: `github.${name}` } : { kind: `github.${name}`, detail });

type Rule = (p: GithubPayload) => Classified[];

const issueChange: Record<string, (typeof ISSUE_CHANGES)[number]> = {
  labeled: 'labels',
  unlabeled: 'labels',
  assigned: 'assignees',
  unassigned: 'assignees',
  closed: 'state',
  reopened: 'state',
};

const pullChange: Record<string, (typeof PULL_CHANGES)[number]> = {
  edited: 'modified',
  synchronize: 'modified',
  converted_to_draft: 'draft',
  ready_for_review: 'ready',
  closed: 'closed',
};

/** Which fields an `edited` payload says changed, among those named. */
function edited(p: GithubPayload, fields: string[]): string | undefined {
  const changed = fields.filter((f) => p.changes && typeof p.changes === 'object' && f in p.changes);
  return changed.length ? changed.join(',') : undefined;
}

/** Keyed by X-GitHub-Event; each rule looks at the action and the payload. */
const RULES: Record<string, Rule> = {
  repository: (p) => (p.action === 'created' ? [k('new_repository')] : []),
  fork: () => [k('new_fork')],
  // `watch.started` is also sent for a star (its legacy name); only `star` counts, so a star fires once.
  star: (p) => (p.action === 'created' ? [k('new_star')] : []),
  create: (p) => (p.ref_type === 'tag' ? [k('new_tag')] : p.ref_type === 'branch' ? [k('new_branch')] : []),
  issues: (p) => {
    const out: Classified[] = [];
    if (p.action === 'opened') out.push(k('new_issue'));
    if (p.action === 'edited') out.push(k('updated_issue', edited(p, ['title', 'body'])));
    const change = issueChange[p.action];
    if (change) out.push(k('updated_issue', change));
    if (p.action === 'labeled') out.push(k('new_label_on_issue', p.label?.name));
    return out;
  },
  pull_request: (p) => {
    const out: Classified[] = [];
    if (p.action === 'opened') out.push(k('new_pull_request', 'opened'));
    if (p.action === 'reopened') out.push(k('new_pull_request', 'reopened'));
    const change = pullChange[p.action];
    if (change) out.push(k('updated_pull_request', change));
    if (p.action === 'review_requested') out.push(k('new_review_request', p.requested_reviewer?.login ?? p.requested_team?.slug));
    return out;
  },
  issue_comment: (p) => (p.action === 'created' ? [k('new_comment', p.issue?.pull_request ? 'pull_request' : 'issue')] : []),
  pull_request_review_comment: (p) => (p.action === 'created' ? [k('new_comment', 'review_comment')] : []),
  pull_request_review: (p) => {
    const state = String(p.review?.state ?? '').toLowerCase();
    return p.action === 'submitted' && (REVIEW_STATES as readonly string[]).includes(state) ? [k('new_pull_request_review', state)] : [];
  },
  push: (p) => {
    const out: Classified[] = [k('new_push', p.deleted ? 'deleted' : p.created ? 'created' : p.forced ? 'forced' : 'updated')];
    if (!p.deleted) {
      for (const c of Array.isArray(p.commits) ? p.commits : []) if (c && c.distinct !== false && typeof c.id === 'string') out.push(k('new_commit', c.id));
    }
    return out;
  },
  workflow_run: (p) => (p.action === 'completed' ? [k('workflow_run_completed', outcomeOf(p.workflow_run?.conclusion))] : []),
  workflow_job: (p) => (p.action === 'completed' ? [k('workflow_job_completed', outcomeOf(p.workflow_job?.conclusion))] : []),
  member: (p) => (p.action === 'added' ? [k('new_collaborator', 'repository')] : []),
  organization: (p) => (p.action === 'member_added' ? [k('new_collaborator', 'organization')] : []),
  projects_v2_item: (p) => {
    const fv = p.changes?.field_value;
    if (p.action !== 'edited' || !fv || fv.field_type !== 'single_select') return [];
    const to = fv.to && typeof fv.to === 'object' ? fv.to.name : undefined;
    return [k('project_item_status_changed', typeof to === 'string' ? to : undefined)];
  },
  project_card: (p) => (p.action === 'created' ? [k('new_card_in_column', p.project_card?.column_id !== undefined ? String(p.project_card.column_id) : undefined)] : []),
  release: (p) => (p.action === 'published' ? [k('new_release', p.release?.prerelease ? 'prerelease' : 'release')] : []),
  discussion: (p) => (p.action === 'created' ? [k('new_discussion')] : []),
  discussion_comment: (p) => (p.action === 'created' ? [k('new_discussion_comment')] : []),
};

/** The trigger kinds one delivery belongs to; an event or action no kind watches gives none. */
export function kindsFor(event: string, payload: GithubPayload): Classified[] {
  const rule = Object.hasOwn(RULES, event) ? RULES[event] : undefined;
  if (!rule || !payload || typeof payload !== 'object') return [];
  return rule(payload);
}

/** Events a webhook must be subscribed to for each webhook kind (short names). */
export const HOOK_EVENTS: Record<string, string[]> = {
  new_repository: ['repository'],
  new_fork: ['fork'],
  new_star: ['star'],
  new_tag: ['create'],
  new_issue: ['issues'],
  updated_issue: ['issues'],
  new_pull_request: ['pull_request'],
  updated_pull_request: ['pull_request'],
  new_comment: ['issue_comment'],
  new_label_on_issue: ['issues'],
  new_review_request: ['pull_request'],
  new_pull_request_review: ['pull_request_review'],
  new_commit: ['push'],
  new_push: ['push'],
  new_branch: ['create'],
  workflow_run_completed: ['workflow_run'],
  workflow_job_completed: ['workflow_job'],
  new_collaborator: ['member'],
  project_item_status_changed: ['projects_v2_item'],
  new_card_in_column: ['project_card'],
  new_release: ['release'],
  new_discussion: ['discussion'],
  new_discussion_comment: ['discussion_comment'],
};

/* Compact event payloads: the fields a consumer acts on, never GitHub's whole payload. REST list
   items and webhook payloads share these shapes, so polled and webhook events look alike. */

/** Long text is cut here; the html_url leads to the rest. */
export const MAX_TEXT = 1000;

export function clip(value: unknown, max = MAX_TEXT): string | null {
  if (typeof value !== 'string') return null;
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/** One line for summaries: the first line, at most `max` characters. */
export function line(value: unknown, max = 120): string {
  const first = typeof value === 'string' ? (value.split('\n', 1)[0] ?? '').trim() : '';
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

export const login = (user: any): string | null => (user && typeof user.login === 'string' ? user.login : null);

/** ISO-8601 from an ISO string or epoch seconds (push payloads carry both), else now. */
export function isoTime(value: unknown, fallback = Date.now()): string {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value < 1e12 ? value * 1000 : value).toISOString();
  if (typeof value === 'string') {
    const t = Date.parse(value);
    if (!Number.isNaN(t)) return new Date(t).toISOString();
  }
  return new Date(fallback).toISOString();
}

export function repoShape(r: any) {
  return {
    id: r?.id ?? null,
    full_name: r?.full_name ?? null,
    html_url: r?.html_url ?? null,
    private: r?.private ?? null,
    fork: r?.fork ?? null,
    description: clip(r?.description, 300),
    owner: login(r?.owner),
    default_branch: r?.default_branch ?? null,
    created_at: r?.created_at === undefined || r?.created_at === null ? null : isoTime(r.created_at),
  };
}

export function issueShape(i: any) {
  return {
    number: i?.number ?? null,
    title: i?.title ?? null,
    state: i?.state ?? null,
    state_reason: i?.state_reason ?? null,
    html_url: i?.html_url ?? null,
    user: login(i?.user),
    labels: Array.isArray(i?.labels) ? i.labels.map((l: any) => (typeof l === 'string' ? l : l?.name)).filter(Boolean) : [],
    assignees: Array.isArray(i?.assignees) ? i.assignees.map(login).filter(Boolean) : [],
    is_pull_request: !!i?.pull_request,
    created_at: i?.created_at ?? null,
    updated_at: i?.updated_at ?? null,
    closed_at: i?.closed_at ?? null,
    body: clip(i?.body),
  };
}

export function pullShape(pr: any) {
  return {
    number: pr?.number ?? null,
    title: pr?.title ?? null,
    state: pr?.state ?? null,
    draft: pr?.draft ?? false,
    merged: pr?.merged ?? !!pr?.merged_at,
    html_url: pr?.html_url ?? null,
    user: login(pr?.user),
    head: { ref: pr?.head?.ref ?? null, sha: pr?.head?.sha ?? null },
    base: { ref: pr?.base?.ref ?? null },
    labels: Array.isArray(pr?.labels) ? pr.labels.map((l: any) => l?.name).filter(Boolean) : [],
    requested_reviewers: Array.isArray(pr?.requested_reviewers) ? pr.requested_reviewers.map(login).filter(Boolean) : [],
    created_at: pr?.created_at ?? null,
    updated_at: pr?.updated_at ?? null,
    closed_at: pr?.closed_at ?? null,
    merged_at: pr?.merged_at ?? null,
    body: clip(pr?.body),
  };
}

export function releaseShape(r: any) {
  return {
    id: r?.id ?? null,
    tag_name: r?.tag_name ?? null,
    name: r?.name ?? null,
    html_url: r?.html_url ?? null,
    draft: r?.draft ?? false,
    prerelease: r?.prerelease ?? false,
    author: login(r?.author),
    created_at: r?.created_at ?? null,
    published_at: r?.published_at ?? null,
    body: clip(r?.body),
  };
}
