import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { projectsOf } from '../../src/sandbox/github/projects.js';
import type { Harness } from '../harness.js';
import { REPO_PATH, checkSizes, helloWorld, lines, sent, startWorkHarness } from './github-work.helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startWorkHarness();
});
afterAll(() => h.close());
beforeEach(() => h.sandbox.servers.github.reset());

const REPO = { owner: 'sbx-octocat', repo: 'hello-world' };
const git = () => helloWorld(h).git;

describe('tools/list', () => {
  it('lists the pull request tools compactly, with annotations from their effect', async () => {
    const listed = await checkSizes(h, ['github_create_pull_request', 'github_get_reviewers', 'github_update_project_item_status'], 2000);
    expect(listed.get('github_get_reviewers')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(listed.get('github_create_pull_request')!.annotations).toEqual({ destructiveHint: false });
    expect(listed.get('github_update_project_item_status')!.annotations).toEqual({ destructiveHint: false, idempotentHint: true });
  });
});

describe('github_create_pull_request', () => {
  it('sends POST /pulls with head, base, title, body and draft, and returns number, url and head sha', async () => {
    const r = await h.ok('github_create_pull_request', { ...REPO, head: 'docs', base: 'main', title: 'Contributing guide', body: 'Adds CONTRIBUTING.md', draft: true });
    expect(sent(h)).toEqual([
      { method: 'POST', path: `${REPO_PATH}/pulls`, query: {}, body: { head: 'docs', base: 'main', title: 'Contributing guide', body: 'Adds CONTRIBUTING.md', draft: true } },
    ]);
    expect(r).toMatchObject({ number: expect.any(Number), state: 'open', draft: true, head_sha: git().branches.docs });
    expect(r.html_url).toBe(`https://github.com/sbx-octocat/hello-world/pull/${r.number}`);
  });

  it('a second one for the same head fails clearly and names the pull request that exists', async () => {
    const existing = helloWorld(h).issues.find((i) => i.pull?.head === 'docs' && i.state === 'open')!;
    const text = await h.fails('github_create_pull_request', { ...REPO, head: 'docs', base: 'main', title: 'Again' });
    expect(text).toMatch(/422 to POST \/repos\/sbx-octocat\/hello-world\/pulls/);
    expect(text).toContain('A pull request already exists for sbx-octocat:docs.');
    expect(text).toContain(`(#${existing.number}: https://github.com/sbx-octocat/hello-world/pull/${existing.number})`);
    expect(sent(h, 'GET')[0]!.query).toEqual({ head: 'sbx-octocat:docs', base: 'main', state: 'open' });
  });

  it('says so when there are no commits between the branches', async () => {
    git().branches['same-as-main'] = git().branches.main!;
    const text = await h.fails('github_create_pull_request', { ...REPO, head: 'same-as-main', base: 'main', title: 'Nothing' });
    expect(text).toMatch(/422 .*Validation Failed: No commits between main and same-as-main/);
  });

  it('turns an issue into a pull request with "issue" instead of a title', async () => {
    git().branches['fix/run-locally'] = git().branches['feature/greeting']!;
    const r = await h.ok('github_create_pull_request', { ...REPO, head: 'fix/run-locally', base: 'main', issue: 5 });
    expect(sent(h)[0]!.body).toEqual({ head: 'fix/run-locally', base: 'main', issue: 5 });
    expect(r.number).toBe(5);
  });

  it('needs exactly one of title and issue, and sends nothing otherwise', async () => {
    expect(await h.fails('github_create_pull_request', { ...REPO, head: 'docs', base: 'main' })).toMatch(/Give "title"/);
    expect(await h.fails('github_create_pull_request', { ...REPO, head: 'docs', base: 'main', title: 't', issue: 4 })).toMatch(/not both/);
    expect(lines(h)).toEqual([]);
  });
});

describe('github_get_reviewers', () => {
  const pull2 = () => helloWorld(h).issues.find((i) => i.number === 2)!.pull!;
  const review = (id: number, user: string, state: string, at: string) => ({ id, node_id: `PRR_${id}`, user, body: '', state, submitted_at: at, commit_id: 'abc' }) as any;

  it('returns pending requests and submitted reviews (not drafts), from both endpoints', async () => {
    pull2().reviews = [
      review(1, 'sbx-monalisa', 'COMMENTED', '2025-03-02T11:00:00Z'),
      review(2, 'sbx-octocat', 'CHANGES_REQUESTED', '2025-03-02T12:00:00Z'),
      review(3, 'sbx-octocat', 'DISMISSED', '2025-03-02T13:00:00Z'),
      review(4, 'sbx-hubot', 'PENDING', '2025-03-02T14:00:00Z'),
    ];
    const r = await h.ok('github_get_reviewers', { ...REPO, pull_number: 2 });
    expect(lines(h).sort()).toEqual([`GET ${REPO_PATH}/pulls/2/requested_reviewers`, `GET ${REPO_PATH}/pulls/2/reviews`]);
    expect(sent(h).find((x) => x.path.endsWith('/reviews'))!.query).toEqual({ per_page: '100' });
    expect(r.requested_users).toEqual(['sbx-hubot']);
    expect(r.requested_teams).toEqual([]);
    expect(r.reviews).toEqual([
      { login: 'sbx-monalisa', state: 'COMMENTED', submitted_at: '2025-03-02T11:00:00Z' },
      { login: 'sbx-octocat', state: 'CHANGES_REQUESTED', submitted_at: '2025-03-02T12:00:00Z' },
      { login: 'sbx-octocat', state: 'DISMISSED', submitted_at: '2025-03-02T13:00:00Z' },
    ]);
  });

  it('shows an approval submitted through the API, and team requests by slug', async () => {
    const approve = await fetch(`${h.sandbox.baseUrls.github}${REPO_PATH}/pulls/2/reviews`, {
      method: 'POST',
      headers: { authorization: 'Bearer sbx-github-token-0001', 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'APPROVE' }),
    });
    expect(approve.status).toBe(200);
    h.sandbox.servers.github.once('GET /repos/:owner/:repo/pulls/:number/requested_reviewers', { body: { users: [], teams: [{ id: 1, slug: 'core', name: 'Core' }] } });
    const r = await h.ok('github_get_reviewers', { ...REPO, pull_number: 2 });
    expect(r.requested_teams).toEqual(['core']);
    expect(r.reviews.at(-1)).toMatchObject({ login: 'sbx-octocat', state: 'APPROVED' });
  });

  it('follows the Link header through more than one page of reviews', async () => {
    pull2().reviews = Array.from({ length: 130 }, (_, n) => review(100 + n, n % 2 ? 'sbx-hubot' : 'sbx-monalisa', 'COMMENTED', `2025-03-03T10:${String(n % 60).padStart(2, '0')}:00Z`));
    const r = await h.ok('github_get_reviewers', { ...REPO, pull_number: 2 });
    expect(r.reviews).toHaveLength(130);
    const pages = sent(h).filter((x) => x.path.endsWith('/reviews'));
    expect(pages.map((p) => p.query)).toEqual([{ per_page: '100' }, { per_page: '100', page: '2' }]);
  });

  it('passes a 404 for an issue that is not a pull request', async () => {
    expect(await h.fails('github_get_reviewers', { ...REPO, pull_number: 3 })).toMatch(/404 to GET \/repos\/sbx-octocat\/hello-world\/pulls\/3/);
  });
});

describe('github_update_project_item_status', () => {
  const gql = () => sent(h, 'POST').filter((r) => r.path === '/graphql');
  const projects = () => projectsOf(h.sandbox.states.github).projects;

  it('resolves an org project by URL, finds the issue in it and sets the option by its visible name', async () => {
    const roadmap = projects().find((p) => p.owner === 'sbx-org')!;
    const status = roadmap.fields.find((f) => f.name === 'Status')!;
    const r = await h.ok('github_update_project_item_status', {
      project_url: 'https://github.com/orgs/sbx-org/projects/1',
      item_url: 'https://github.com/sbx-octocat/hello-world/issues/3',
      status: 'Done',
    });
    const calls = gql();
    expect(calls).toHaveLength(3);
    expect(calls[0]!.body.variables).toEqual({ owner: 'sbx-org', number: 1, field: 'Status' });
    expect(calls[0]!.body.query).toMatch(/repositoryOwner\(login:\$owner\).*projectV2\(number:\$number\)/);
    expect(calls[1]!.body.variables).toEqual({ owner: 'sbx-octocat', repo: 'hello-world', number: 3, field: 'Status' });
    expect(calls[2]!.body.query).toContain('updateProjectV2ItemFieldValue');
    expect(calls[2]!.body.variables).toEqual({ project: roadmap.id, item: roadmap.items[0]!.id, field: status.id, option: '98236657' });
    expect(r).toMatchObject({ project_id: roadmap.id, item_id: roadmap.items[0]!.id, status: 'Done', previous_status: 'In Progress', added_to_project: false });
    expect(roadmap.items[0]!.values[status.id]).toBe('98236657');
    expect(r.rate_limit).toMatchObject({ limit: 5000 });
  });

  it('adds an issue that is not in a user project yet, matching the status name loosely', async () => {
    const personal = projects().find((p) => p.owner === 'sbx-octocat')!;
    const before = personal.items.length;
    const r = await h.ok('github_update_project_item_status', { owner: 'sbx-octocat', project_number: 1, item_url: 'https://github.com/sbx-octocat/hello-world/issues/1', status: ' in  progress ' });
    const calls = gql();
    expect(calls).toHaveLength(4);
    expect(calls[2]!.body.query).toContain('addProjectV2ItemById');
    expect(calls[2]!.body.variables).toEqual({ project: personal.id, content: helloWorld(h).issues.find((i) => i.number === 1)!.node_id });
    expect(personal.items).toHaveLength(before + 1);
    expect(r).toMatchObject({ status: 'In Progress', previous_status: null, added_to_project: true, item_id: personal.items.at(-1)!.id });
    expect(calls[3]!.body.variables.item).toBe(personal.items.at(-1)!.id);
  });

  it('takes a pull request URL, a project item id, or an issue node id; refuses an item of another project', async () => {
    const personal = projects().find((p) => p.owner === 'sbx-octocat')!;
    const pr = await h.ok('github_update_project_item_status', { project_url: 'https://github.com/users/sbx-octocat/projects/1/views/2', item_url: 'https://github.com/sbx-octocat/hello-world/pull/2/files', status: 'Todo' });
    expect(pr).toMatchObject({ item_id: personal.items[1]!.id, previous_status: null, added_to_project: false, status: 'Todo' });
    h.sandbox.servers.github.reset();
    const byId = await h.ok('github_update_project_item_status', { owner: 'sbx-octocat', project_number: 1, item_id: personal.items[1]!.id, status: 'Done' });
    expect(gql()[1]!.body.variables).toEqual({ id: personal.items[1]!.id, field: 'Status' });
    expect(byId).toMatchObject({ previous_status: 'Todo', status: 'Done' });
    h.sandbox.servers.github.reset();
    const roadmap = projects().find((p) => p.owner === 'sbx-org')!;
    const platformIssue = h.sandbox.states.github.repos.find((r) => r.name === 'platform')!.issues[0]!;
    const byNode = await h.ok('github_update_project_item_status', { owner: 'sbx-org', project_number: 1, item_id: platformIssue.node_id, status: 'In Progress' });
    expect(byNode).toMatchObject({ item_id: roadmap.items[1]!.id, previous_status: 'Todo', added_to_project: false });
    const foreign = await h.fails('github_update_project_item_status', { owner: 'sbx-org', project_number: 1, item_id: personal.items[0]!.id, status: 'Done' });
    expect(foreign).toMatch(/belongs to another project/);
  });

  it('refuses an unknown status with the valid names, before touching the item', async () => {
    const text = await h.fails('github_update_project_item_status', { project_url: 'https://github.com/orgs/sbx-org/projects/1', item_url: 'https://github.com/sbx-org/platform/issues/1', status: 'Blocked' });
    expect(text).toBe('"Blocked" is not a Status option of project "Roadmap". Valid names: Todo, In Progress, Done.');
    expect(gql()).toHaveLength(1);
  });

  it('turns GraphQL errors in a 200 into a clear error: unknown project, unknown issue', async () => {
    const project = await h.fails('github_update_project_item_status', { owner: 'sbx-org', project_number: 99, item_url: 'https://github.com/sbx-org/platform/issues/1', status: 'Done' });
    expect(project).toContain('GitHub GraphQL refused the request (NOT_FOUND at repositoryOwner.projectV2: Could not resolve to a ProjectV2 with the number 99.)');
    expect(project).toMatch(/Check the owner/);
    const issue = await h.fails('github_update_project_item_status', { owner: 'sbx-org', project_number: 1, item_url: 'https://github.com/sbx-org/platform/issues/42', status: 'Done' });
    expect(issue).toContain('NOT_FOUND at repository.issueOrPullRequest: Could not resolve to an issue or pull request with the number of 42.');
  });

  it('explains a missing scope reported by GraphQL', async () => {
    h.sandbox.servers.github.once('POST /graphql', {
      status: 200,
      body: { data: null, errors: [{ type: 'INSUFFICIENT_SCOPES', message: "Your token has not been granted the required scopes to execute this query. The 'projectV2' field requires one of the following scopes: ['read:project']" }] },
    });
    const text = await h.fails('github_update_project_item_status', { owner: 'sbx-org', project_number: 1, item_url: 'https://github.com/sbx-org/platform/issues/1', status: 'Done' });
    expect(text).toMatch(/INSUFFICIENT_SCOPES.*read:project/);
    expect(text).toMatch(/need "project"; reconnect/);
  });

  it('refuses an unknown owner, and malformed or missing project and item inputs', async () => {
    expect(await h.fails('github_update_project_item_status', { owner: 'sbx-nobody', project_number: 1, item_id: 'I_x', status: 'Done' })).toMatch(/No GitHub user or organization "sbx-nobody"/);
    h.sandbox.servers.github.reset();
    const bad = [
      [{ project_url: 'https://github.com/sbx-org/projects/1', item_id: 'I_x', status: 'Done' }, /"project_url" must look like/],
      [{ project_url: 'https://github.com/orgs/sbx-org/projects/1', owner: 'sbx-org', item_id: 'I_x', status: 'Done' }, /not both/],
      [{ owner: 'sbx-org', item_id: 'I_x', status: 'Done' }, /both "owner" and "project_number"/],
      [{ owner: 'sbx-org', project_number: 1, status: 'Done' }, /exactly one of "item_url"/],
    ] as const;
    for (const [args, message] of bad) expect(await h.fails('github_update_project_item_status', args)).toMatch(message);
    expect(lines(h)).toEqual([]);
    const text = await h.fails('github_update_project_item_status', { owner: 'sbx-org', project_number: 1, item_url: 'https://github.com/sbx-org/platform/commit/abc', status: 'Done' });
    expect(text).toMatch(/"item_url" must be an issue or pull request URL/);
  });
});
