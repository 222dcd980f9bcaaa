import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { githubKinds } from '../../src/connectors/github/triggers.js';
import { HOOK_EVENTS, kindsFor, outcomeOf } from '../../src/connectors/github/webhooks.js';
import type { WebhookDelivery } from '../../src/contracts/triggers.js';

/** The real example payloads of @octokit/webhooks-examples: [{name, actions, examples}]. */
const EXAMPLES = createRequire(import.meta.url)('@octokit/webhooks-examples/api.github.com/index.json') as Array<{
  name: string;
  actions: string[];
  examples: Array<Record<string, any>>;
}>;
const example = (event: string, action?: string) => structuredClone(EXAMPLES.find((e) => e.name === event)!.examples.find((x) => action === undefined || x.action === action)!);

type Expect = string[] | ((p: Record<string, any>) => string[]);

/**
 * What each (event, action) of provider-facts B4 must become, written out independently of the
 * classifier: "kind" or "kind:detail" (kind without the github. prefix). Anything absent → nothing.
 */
const TABLE: Record<string, Expect> = {
  'repository.created': ['new_repository'],
  fork: ['new_fork'],
  'star.created': ['new_star'],
  'watch.started': [], // a star under its legacy name: counted once, as star.created
  create: (p) => [p.ref_type === 'tag' ? 'new_tag' : 'new_branch'],
  'issues.opened': ['new_issue'],
  'issues.edited': (p) => {
    const f = ['title', 'body'].filter((k) => k in (p.changes ?? {}));
    return [f.length ? `updated_issue:${f.join(',')}` : 'updated_issue'];
  },
  'issues.labeled': (p) => ['updated_issue:labels', `new_label_on_issue:${p.label.name}`],
  'issues.unlabeled': ['updated_issue:labels'],
  'issues.assigned': ['updated_issue:assignees'],
  'issues.unassigned': ['updated_issue:assignees'],
  'issues.closed': ['updated_issue:state'],
  'issues.reopened': ['updated_issue:state'],
  'pull_request.opened': ['new_pull_request:opened'],
  'pull_request.reopened': ['new_pull_request:reopened'],
  'pull_request.edited': ['updated_pull_request:modified'],
  'pull_request.synchronize': ['updated_pull_request:modified'],
  'pull_request.converted_to_draft': ['updated_pull_request:draft'],
  'pull_request.ready_for_review': ['updated_pull_request:ready'],
  'pull_request.closed': ['updated_pull_request:closed'],
  'pull_request.review_requested': ['new_review_request:octocat'],
  'issue_comment.created': ['new_comment:issue'],
  'pull_request_review_comment.created': ['new_comment:review_comment'],
  'pull_request_review.submitted': ['new_pull_request_review:commented'],
  push: (p) => [
    `new_push:${p.deleted ? 'deleted' : p.created ? 'created' : p.forced ? 'forced' : 'updated'}`,
    ...(p.deleted ? [] : p.commits.filter((c: any) => c.distinct).map((c: any) => `new_commit:${c.id}`)),
  ],
  'workflow_run.completed': (p) => [`workflow_run_completed:${({ success: 'succeeded', failure: 'failed' } as Record<string, string>)[p.workflow_run.conclusion] ?? 'unknown'}`],
  'workflow_job.completed': (p) => [`workflow_job_completed:${({ success: 'succeeded', failure: 'failed' } as Record<string, string>)[p.workflow_job.conclusion] ?? 'unknown'}`],
  'member.added': ['new_collaborator:repository'],
  'organization.member_added': ['new_collaborator:organization'],
  'projects_v2_item.edited': ['project_item_status_changed'],
  'project_card.created': ['new_card_in_column:5368157'],
  'release.published': ['new_release:release'],
  'discussion.created': ['new_discussion'],
  'discussion_comment.created': ['new_discussion_comment'],
};

/** Rows no example payload reaches: covered by the hand-made payloads below. */
const ROWS_WITHOUT_EXAMPLES = ['issues.closed', 'pull_request.edited'];

const got = (event: string, p: Record<string, any>) => kindsFor(event, p).map((c) => c.kind.replace(/^github\./, '') + (c.detail === undefined ? '' : `:${c.detail}`));

function expected(event: string, p: Record<string, any>): string[] {
  const rule = TABLE[p.action !== undefined ? `${event}.${p.action}` : event] ?? (p.action === undefined ? undefined : TABLE[event]);
  return rule === undefined ? [] : typeof rule === 'function' ? rule(p) : rule;
}

const cases = EXAMPLES.flatMap((e) => e.examples.map((p, i) => ({ event: e.name, action: p.action ?? '-', i, p })));

describe('kindsFor: every @octokit/webhooks-examples payload', () => {
  it('has the payloads the table was written for', () => {
    expect(cases.length).toBe(329);
    expect(EXAMPLES.length).toBe(58);
  });

  it.each(cases)('$event.$action #$i', ({ event, p }) => {
    expect(got(event, p)).toEqual(expected(event, p));
  });

  it('uses every table row; the rows without an example payload are the ones tested by hand below', () => {
    expect(cases.filter((c) => got(c.event, c.p).length > 0).length).toBeGreaterThanOrEqual(60);
    const hit = new Set(cases.map((c) => (c.p.action !== undefined && `${c.event}.${c.p.action}` in TABLE ? `${c.event}.${c.p.action}` : c.event)));
    expect(Object.keys(TABLE).filter((row) => !hit.has(row))).toEqual(ROWS_WITHOUT_EXAMPLES);
  });

  it('maps unknown events and nonsense to nothing', () => {
    expect(kindsFor('gist', { action: 'created' })).toEqual([]);
    expect(kindsFor('constructor', { action: 'created' })).toEqual([]);
    expect(kindsFor('issues', null as never)).toEqual([]);
    expect(kindsFor('issues', { action: 'deleted' })).toEqual([]);
  });
});

describe('kindsFor: hand-made payloads for the gaps of the examples (provider-facts D)', () => {
  it('reviews approved and changes_requested (either case), not dismissed or edited', () => {
    for (const [state, detail] of [
      ['approved', 'approved'],
      ['changes_requested', 'changes_requested'],
      ['APPROVED', 'approved'],
    ] as const) {
      const p = example('pull_request_review', 'submitted');
      p.review.state = state;
      expect(got('pull_request_review', p)).toEqual([`new_pull_request_review:${detail}`]);
    }
    const edited = example('pull_request_review', 'submitted');
    edited.action = 'edited';
    expect(got('pull_request_review', edited)).toEqual([]);
  });

  it('create for a branch is new_branch; for a tag new_tag', () => {
    const p = example('create');
    expect(got('create', p)).toEqual(['new_tag']);
    p.ref_type = 'branch';
    p.ref = 'feature/login';
    expect(got('create', p)).toEqual(['new_branch']);
    p.ref_type = 'repository';
    expect(got('create', p)).toEqual([]);
  });

  it('issue_comment on a pull request is a new_comment on the pull request', () => {
    const p = example('issue_comment', 'created');
    p.issue.pull_request = { url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/1' };
    expect(got('issue_comment', p)).toEqual(['new_comment:pull_request']);
    p.action = 'edited';
    expect(got('issue_comment', p)).toEqual([]);
  });

  it('issues.closed and pull_request.edited (no example payloads for them)', () => {
    const closed = example('issues', 'reopened');
    closed.action = 'closed';
    closed.issue.state = 'closed';
    expect(got('issues', closed)).toEqual(['updated_issue:state']);
    const edited = example('pull_request', 'opened');
    edited.action = 'edited';
    edited.changes = { title: { from: 'WIP' } };
    expect(got('pull_request', edited)).toEqual(['updated_pull_request:modified']);
  });

  it('an issue edit names the fields it changed', () => {
    const p = example('issues', 'edited');
    p.changes = { title: { from: 'Old' }, body: { from: 'Old body' } };
    expect(got('issues', p)).toEqual(['updated_issue:title,body']);
    p.changes = { body: { from: 'x' } };
    expect(got('issues', p)).toEqual(['updated_issue:body']);
  });

  it('one new_commit per distinct commit; none for a deleted ref; a merged close stays "closed"', () => {
    const p = example('push');
    Object.assign(p, { deleted: false, created: false, forced: true, ref: 'refs/heads/main' });
    p.commits = [
      { id: 'a'.repeat(40), distinct: true, message: 'one' },
      { id: 'b'.repeat(40), distinct: false, message: 'already pushed elsewhere' },
      { id: 'c'.repeat(40), distinct: true, message: 'two' },
    ];
    expect(got('push', p)).toEqual(['new_push:forced', `new_commit:${'a'.repeat(40)}`, `new_commit:${'c'.repeat(40)}`]);
    p.deleted = true;
    expect(got('push', p)).toEqual(['new_push:deleted']);

    const closed = example('pull_request', 'closed');
    closed.pull_request.merged = true;
    expect(got('pull_request', closed)).toEqual(['updated_pull_request:closed']);
  });

  it('maps every workflow conclusion GitHub documents', () => {
    const table: Record<string, string> = {
      success: 'succeeded',
      neutral: 'succeeded',
      failure: 'failed',
      timed_out: 'failed',
      startup_failure: 'failed',
      cancelled: 'cancelled',
      skipped: 'skipped',
      action_required: 'action_required',
      stale: 'stale',
    };
    for (const [conclusion, outcome] of Object.entries(table)) {
      expect(outcomeOf(conclusion)).toBe(outcome);
      const run = example('workflow_run', 'completed');
      run.workflow_run.conclusion = conclusion;
      expect(got('workflow_run', run)).toEqual([`workflow_run_completed:${outcome}`]);
      const job = example('workflow_job', 'completed');
      job.workflow_job.conclusion = conclusion;
      expect(got('workflow_job', job)).toEqual([`workflow_job_completed:${outcome}`]);
    }
    expect(outcomeOf(null)).toBe('unknown');
  });

  it('a Projects v2 single-select change carries the new option name; other field types are not a status', () => {
    const p = example('projects_v2_item', 'edited');
    p.changes.field_value = { ...p.changes.field_value, field_name: 'Status', from: { id: '1', name: 'Todo' }, to: { id: '2', name: 'Done' } };
    expect(got('projects_v2_item', p)).toEqual(['project_item_status_changed:Done']);
    p.changes.field_value.field_type = 'text';
    expect(got('projects_v2_item', p)).toEqual([]);
  });
});

/* ---------- The kinds' match(): filters, dedupe keys, summaries, compact payloads ---------- */

const kind = (name: string) => githubKinds.find((k) => k.kind === `github.${name}`)!;
const cfg = (name: string, config: Record<string, unknown>) => kind(name).config.parse(config) as Record<string, unknown>;
const deliver = (name: string, event: string, payload: Record<string, any>, config: Record<string, unknown>, id = 'd-1') =>
  kind(name).webhook!.match({ id, event, payload } as WebhookDelivery, cfg(name, config));

describe('github trigger kinds', () => {
  it('offers every kind of the specification, each with a description, a strict config and a way to get events', () => {
    const names = githubKinds.map((k) => k.kind.replace('github.', ''));
    expect(names).toEqual([
      'new_repository', 'new_fork', 'new_star', 'new_watcher', 'new_tag', 'new_issue', 'updated_issue', 'new_pull_request', 'updated_pull_request',
      'new_comment', 'new_label_on_issue', 'new_review_request', 'new_pull_request_review', 'new_commit', 'new_push', 'new_branch',
      'workflow_run_completed', 'workflow_job_completed', 'new_collaborator', 'new_mention', 'project_item_status_changed', 'new_card_in_column',
      'new_release', 'new_gist', 'new_discussion', 'new_discussion_comment',
    ]);
    for (const k of githubKinds) {
      expect(k.description.length, k.kind).toBeGreaterThan(40);
      expect(k.webhook || k.poll, k.kind).toBeTruthy();
      if (k.webhook) expect(HOOK_EVENTS[k.kind.slice(7)], k.kind).toBeDefined();
      expect(k.config.safeParse({ repo: 'octo/hello', nonsense: 1 }).success, k.kind).toBe(false);
    }
    for (const polled of ['new_watcher', 'new_mention', 'new_gist']) expect(kind(polled).webhook).toBeUndefined();
    expect(kind('new_card_in_column').description).toMatch(/classic.*sunset/i);
  });

  it('needs exactly one target, org where GitHub only has org hooks', () => {
    expect(kind('new_issue').config.safeParse({}).success).toBe(false);
    expect(kind('new_issue').config.safeParse({ repo: 'octo/hello', org: 'octo' }).success).toBe(false);
    expect(kind('new_issue').config.safeParse({ repo: 'not a repo' }).success).toBe(false);
    expect(kind('new_issue').config.safeParse({ org: 'octo' }).success).toBe(true);
    expect(kind('new_issue').config.safeParse({ org: 'octo', mode: 'poll' }).success).toBe(false);
    expect(kind('project_item_status_changed').config.safeParse({ repo: 'octo/hello' }).success).toBe(false);
    expect(kind('project_item_status_changed').config.safeParse({ org: 'octo' }).success).toBe(true);
    expect(kind('new_repository').config.safeParse({}).success).toBe(true);
    expect(kind('new_repository').config.safeParse({ mode: 'webhook' }).success).toBe(false);
    expect(kind('new_gist').config.safeParse({ poll_interval_seconds: 10 }).success).toBe(false);
    expect(kind('new_star').config.safeParse({ repo: 'octo/hello', mode: 'poll' }).success).toBe(false);
  });

  it('an opened issue: one event keyed by the delivery id, a one-line summary, a compact payload with the payload time', () => {
    const p = example('issues', 'opened');
    const [e, ...rest] = deliver('new_issue', 'issues', p, { repo: 'Codertocat/Hello-World' }, 'guid-1');
    expect(rest).toEqual([]);
    expect(e!.dedupeKey).toContain('guid-1');
    expect(e!.summary).toBe(`Codertocat/Hello-World#${p.issue.number} opened by ${p.sender.login}: ${p.issue.title}`);
    expect(e!.occurredAt).toBe(new Date(p.issue.created_at).toISOString());
    expect(e!.payload).toMatchObject({
      delivery_id: 'guid-1',
      event: 'issues',
      action: 'opened',
      repository: 'Codertocat/Hello-World',
      sender: p.sender.login,
      issue: { number: p.issue.number, title: p.issue.title, state: 'open', html_url: p.issue.html_url, user: p.issue.user.login },
    });
    expect(JSON.stringify(e!.payload).length).toBeLessThan(JSON.stringify(p).length / 3);
    expect(deliver('new_issue', 'issues', p, { repo: 'other/repo' })).toEqual([]);
    expect(deliver('new_issue', 'issues', p, { repo: 'Codertocat/Hello-World', labels: ['wontfix'] })).toEqual([]);
    expect(deliver('new_issue', 'issues', p, { repo: 'Codertocat/Hello-World', labels: ['BUG'] })).toHaveLength(1);
  });

  it('narrows updated_issue by change, reviews by state, runs by outcome', () => {
    const labeled = example('issues', 'labeled');
    const repo = labeled.repository.full_name;
    expect(deliver('updated_issue', 'issues', labeled, { repo })[0]!.payload).toMatchObject({ change: 'labels', label: labeled.label.name });
    expect(deliver('updated_issue', 'issues', labeled, { repo, changes: ['state'] })).toEqual([]);
    expect(deliver('new_label_on_issue', 'issues', labeled, { repo, labels: ['BUG'] })).toHaveLength(1);
    expect(deliver('new_label_on_issue', 'issues', labeled, { repo, labels: ['wontfix'] })).toEqual([]);

    const review = example('pull_request_review', 'submitted');
    review.review.state = 'approved';
    const [approved] = deliver('new_pull_request_review', 'pull_request_review', review, { repo: review.repository.full_name, review_states: ['approved'] });
    expect(approved!.summary).toMatch(/ approved by /);
    expect(deliver('new_pull_request_review', 'pull_request_review', review, { repo: review.repository.full_name, review_states: ['commented'] })).toEqual([]);

    const run = example('workflow_run', 'completed');
    run.workflow_run.conclusion = 'timed_out';
    const r = run.repository.full_name;
    const [failed] = deliver('workflow_run_completed', 'workflow_run', run, { repo: r, conclusions: ['failed'] });
    expect(failed!.payload).toMatchObject({ workflow_run: { conclusion: 'timed_out', outcome: 'failed' } });
    expect(failed!.summary).toMatch(/failed \(timed_out\)/);
    expect(deliver('workflow_run_completed', 'workflow_run', run, { repo: r, conclusions: ['succeeded', 'cancelled'] })).toEqual([]);
  });

  it('updated_pull_request: "merged" only matches a merged close', () => {
    const closed = example('pull_request', 'closed');
    const repo = closed.repository.full_name;
    expect(deliver('updated_pull_request', 'pull_request', closed, { repo, changes: ['merged'] })).toEqual([]);
    closed.pull_request.merged = true;
    const [merged] = deliver('updated_pull_request', 'pull_request', closed, { repo, changes: ['merged'] });
    expect(merged!.payload).toMatchObject({ change: 'closed', merged: true });
    expect(merged!.summary).toMatch(/#\d+ merged by /);
  });

  it('new_commit: one event per distinct commit, keyed by delivery and sha; branch filter', () => {
    const p = example('push');
    Object.assign(p, { ref: 'refs/heads/main', deleted: false });
    p.commits = [
      { id: '1'.repeat(40), distinct: true, message: 'Fix login\n\nLonger text', timestamp: '2025-03-01T10:00:00+01:00', author: { name: 'Alice', email: 'a@x', username: 'alice' }, added: ['a'], removed: [], modified: ['b', 'c'] },
      { id: '2'.repeat(40), distinct: true, message: 'Docs', timestamp: '2025-03-01T10:05:00Z', author: { name: 'Bob' } },
    ];
    const events = deliver('new_commit', 'push', p, { repo: p.repository.full_name }, 'guid-9');
    expect(events.map((e) => e.dedupeKey)).toEqual([`guid-9:${'1'.repeat(40)}`, `guid-9:${'2'.repeat(40)}`]);
    expect(events[0]!.summary).toBe(`${p.repository.full_name}@1111111 on main by alice: Fix login`);
    expect(events[0]!.occurredAt).toBe('2025-03-01T09:00:00.000Z');
    expect(events[0]!.payload).toMatchObject({ branch: 'main', commit: { sha: '1'.repeat(40), added: 1, modified: 2 } });
    expect(deliver('new_commit', 'push', p, { repo: p.repository.full_name, branch: 'dev' })).toEqual([]);
    expect(deliver('new_push', 'push', { ...p, deleted: true, commits: [] }, { repo: p.repository.full_name })).toEqual([]);
    expect(deliver('new_push', 'push', { ...p, deleted: true, commits: [] }, { repo: p.repository.full_name, include_deletions: true })).toHaveLength(1);
  });

  it('new_comment on pull requests, and diff comments only when asked', () => {
    const p = example('issue_comment', 'created');
    const repo = p.repository.full_name;
    p.issue.pull_request = { url: 'x' };
    expect(deliver('new_comment', 'issue_comment', p, { repo })[0]!.payload).toMatchObject({ on: 'pull_request', pull_request: { number: p.issue.number } });
    expect(deliver('new_comment', 'issue_comment', p, { repo, on: ['issue'] })).toEqual([]);
    const diff = example('pull_request_review_comment', 'created');
    expect(deliver('new_comment', 'pull_request_review_comment', diff, { repo: diff.repository.full_name })).toEqual([]);
    expect(deliver('new_comment', 'pull_request_review_comment', diff, { repo: diff.repository.full_name, on: ['review_comment'] })).toHaveLength(1);
  });

  it('org targets accept deliveries of their repositories; projects_v2 status filters', () => {
    const p = example('projects_v2_item', 'edited');
    const org = p.organization.login;
    p.changes.field_value = { ...p.changes.field_value, field_name: 'Status', to: { name: 'Done' }, from: { name: 'Todo' } };
    const [e] = deliver('project_item_status_changed', 'projects_v2_item', p, { org });
    expect(e!.payload).toMatchObject({ from: 'Todo', to: 'Done', field: { name: 'Status', type: 'single_select' } });
    expect(deliver('project_item_status_changed', 'projects_v2_item', p, { org, to: ['In progress'] })).toEqual([]);
    expect(deliver('project_item_status_changed', 'projects_v2_item', p, { org, field_name: 'Priority' })).toEqual([]);
    expect(deliver('project_item_status_changed', 'projects_v2_item', p, { org: 'someone-else' })).toEqual([]);
  });
});
