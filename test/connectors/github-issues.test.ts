import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { githubRoutes } from '../../src/sandbox/index.js';
import type { Harness } from '../harness.js';
import { REPO_PATH, checkSizes, helloWorld, lines, sent, startWorkHarness } from './github-work.helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startWorkHarness();
});
afterAll(() => h.close());
beforeEach(() => h.sandbox.servers.github.reset());

const REPO = { owner: 'sbx-octocat', repo: 'hello-world' };

describe('tools/list', () => {
  it('lists the issue tools compactly, with annotations from their effect', async () => {
    const listed = await checkSizes(
      h,
      ['github_create_issue', 'github_create_issue_comment', 'github_update_issue', 'github_get_issue_assignees', 'github_search_issues_and_pull_requests'],
      2300,
    );
    expect(listed.get('github_search_issues_and_pull_requests')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(listed.get('github_get_issue_assignees')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(listed.get('github_update_issue')!.annotations).toEqual({ destructiveHint: false, idempotentHint: true });
    expect(listed.get('github_create_issue')!.annotations).toEqual({ destructiveHint: false });
  });
});

describe('github_create_issue', () => {
  it('sends POST /repos/{o}/{r}/issues with only the given fields and returns the compact issue', async () => {
    const r = await h.ok('github_create_issue', { ...REPO, title: 'Add tests', body: 'We need some.', labels: ['bug'], assignees: ['sbx-hubot'] });
    expect(lines(h)).toEqual([`POST ${REPO_PATH}/issues`]);
    expect(sent(h)[0]!.body).toEqual({ title: 'Add tests', body: 'We need some.', labels: ['bug'], assignees: ['sbx-hubot'] });
    expect(r).toMatchObject({ number: expect.any(Number), state: 'open', labels: ['bug'], assignees: ['sbx-hubot'], rate_limit: { limit: 5000 } });
    expect(r.html_url).toBe(`https://github.com/sbx-octocat/hello-world/issues/${r.number}`);
    expect(helloWorld(h).issues.find((i) => i.number === r.number)!.title).toBe('Add tests');
  });

  it("brings the 422 detail into the message: which assignee GitHub refused", async () => {
    const text = await h.fails('github_create_issue', { ...REPO, title: 'x', assignees: ['sbx-stranger'] });
    expect(text).toMatch(/GitHub answered 422 to POST \/repos\/sbx-octocat\/hello-world\/issues/);
    expect(text).toContain('Validation Failed: "assignees" invalid ("sbx-stranger")');
  });

  it('reports disabled issues (410) and refuses an empty title before sending', async () => {
    expect(await h.fails('github_create_issue', { owner: 'sbx-octocat', repo: 'private-notes', title: 'x' })).toMatch(/410.*Issues are disabled/);
    expect(await h.fails('github_create_issue', { ...REPO, title: '' })).toMatch(/title/);
    expect(lines(h)).toEqual(['POST /repos/sbx-octocat/private-notes/issues']);
  });
});

describe('github_create_issue_comment', () => {
  it('comments on a pull request through the issues endpoint', async () => {
    const r = await h.ok('github_create_issue_comment', { ...REPO, issue_number: 2, body: 'Looks good to me.' });
    expect(sent(h)).toEqual([{ method: 'POST', path: `${REPO_PATH}/issues/2/comments`, query: {}, body: { body: 'Looks good to me.' } }]);
    expect(r).toMatchObject({ id: expect.any(Number), created_at: expect.stringMatching(/^\d{4}-/) });
    expect(r.html_url).toMatch(/\/issues\/2#issuecomment-\d+$/);
    expect(helloWorld(h).comments.at(-1)).toMatchObject({ issue_number: 2, body: 'Looks good to me.' });
  });

  it('passes a 404 for an unknown number through', async () => {
    expect(await h.fails('github_create_issue_comment', { ...REPO, issue_number: 999, body: 'hi' })).toMatch(/404 to POST .*\/issues\/999\/comments \(Not Found\)/);
  });
});

describe('github_update_issue', () => {
  it('replaces labels and assignees and closes with a reason in one PATCH', async () => {
    const r = await h.ok('github_update_issue', { ...REPO, issue_number: 4, labels: ['bug', 'question'], assignees: [], state: 'closed', state_reason: 'not_planned' });
    expect(sent(h)).toEqual([
      { method: 'PATCH', path: `${REPO_PATH}/issues/4`, query: {}, body: { labels: ['bug', 'question'], assignees: [], state: 'closed', state_reason: 'not_planned' } },
    ]);
    expect(r).toMatchObject({ number: 4, state: 'closed', state_reason: 'not_planned', labels: ['bug', 'question'], assignees: [] });
  });

  it("add_labels/remove_labels use GitHub's add and remove endpoints, never a PATCH of the list", async () => {
    expect(helloWorld(h).issues.find((i) => i.number === 3)!.labels).toEqual(['enhancement', 'good first issue']);
    const r = await h.ok('github_update_issue', { ...REPO, issue_number: 3, add_labels: ['bug', 'Enhancement'], remove_labels: ['good first issue'] });
    expect(lines(h)).toEqual([`POST ${REPO_PATH}/issues/3/labels`, `DELETE ${REPO_PATH}/issues/3/labels/good%20first%20issue`, `GET ${REPO_PATH}/issues/3`]);
    expect(sent(h, 'POST')[0]!.body).toEqual({ labels: ['bug', 'Enhancement'] });
    expect(sent(h, 'PATCH')).toEqual([]);
    expect(r.labels).toEqual(['enhancement', 'bug']);
    expect(r.assignees).toEqual(['sbx-octocat']);
  });

  it('keeps a label another client sets while the tool runs', async () => {
    const issue = helloWorld(h).issues.find((i) => i.number === 5)!;
    expect(issue.labels).toEqual(['question']);
    // Whatever the tool's first request to the issue is, another client adds "documentation" right after it is answered.
    let raced = false;
    for (const key of ['GET /repos/:owner/:repo/issues/:number', 'POST /repos/:owner/:repo/issues/:number/labels', 'DELETE /repos/:owner/:repo/issues/:number/labels/:name']) {
      const original = githubRoutes(h.sandbox.states.github)[key]!;
      h.sandbox.servers.github.use(key, async (req) => {
        const res = await original(req);
        if (!raced) issue.labels.push('documentation');
        raced = true;
        return res;
      });
    }
    const r = await h.ok('github_update_issue', { ...REPO, issue_number: 5, add_labels: ['help wanted'], remove_labels: ['question'], title: 'How do I run it?' });
    expect(raced).toBe(true);
    expect(issue.labels.sort()).toEqual(['documentation', 'help wanted']);
    expect(r.labels.sort()).toEqual(['documentation', 'help wanted']);
    expect(sent(h, 'PATCH').map((p) => p.body)).toEqual([{ title: 'How do I run it?' }]);
  });

  it('skips a label that is not on the issue, but passes a missing issue through', async () => {
    const before = [...helloWorld(h).issues.find((i) => i.number === 4)!.labels];
    expect(before).not.toContain('wontfix');
    const r = await h.ok('github_update_issue', { ...REPO, issue_number: 4, remove_labels: ['wontfix', 'area/ui'] });
    expect(lines(h)).toEqual([`DELETE ${REPO_PATH}/issues/4/labels/wontfix`, `DELETE ${REPO_PATH}/issues/4/labels/area%2Fui`, `GET ${REPO_PATH}/issues/4`]);
    expect(r.labels).toEqual(before);
    expect(await h.fails('github_update_issue', { ...REPO, issue_number: 999, remove_labels: ['bug'] })).toMatch(/404 to DELETE .*\/issues\/999\/labels\/bug \(Not Found\)/);
    expect(await h.fails('github_update_issue', { ...REPO, issue_number: 999, add_labels: ['bug'] })).toMatch(/404 to POST .*\/issues\/999\/labels/);
  });

  it('clears the milestone with null and reopens', async () => {
    await h.ok('github_update_issue', { ...REPO, issue_number: 1, milestone: null, state: 'open' });
    expect(sent(h)[0]!.body).toEqual({ milestone: null, state: 'open' });
  });

  it('refuses labels together with add_labels, and an empty update, sending nothing', async () => {
    expect(await h.fails('github_update_issue', { ...REPO, issue_number: 3, labels: ['a'], add_labels: ['b'] })).toMatch(/either "labels".*not both/);
    expect(await h.fails('github_update_issue', { ...REPO, issue_number: 3 })).toMatch(/Nothing to update/);
    expect(lines(h)).toEqual([]);
  });

  it('passes provider errors through: unknown issue, invalid assignee', async () => {
    expect(await h.fails('github_update_issue', { ...REPO, issue_number: 999, title: 'x' })).toMatch(/404 to PATCH/);
    expect(await h.fails('github_update_issue', { ...REPO, issue_number: 5, assignees: ['sbx-stranger'] })).toMatch(/422.*"assignees" invalid/);
  });
});

describe('github_get_issue_assignees', () => {
  it("with issue_number returns the issue's assignees", async () => {
    const r = await h.ok('github_get_issue_assignees', { ...REPO, issue_number: 3 });
    expect(lines(h)).toEqual([`GET ${REPO_PATH}/issues/3`]);
    expect(r.assignees).toEqual(['sbx-octocat']);
    expect(r.assignable_users).toBeUndefined();
  });

  it('with username answers from 204 or 404, checking the repository exists before saying false', async () => {
    expect((await h.ok('github_get_issue_assignees', { ...REPO, username: 'sbx-hubot' })).assignable).toBe(true);
    expect(lines(h)).toEqual([`GET ${REPO_PATH}/assignees/sbx-hubot`]);
    h.sandbox.servers.github.reset();
    expect((await h.ok('github_get_issue_assignees', { ...REPO, username: 'sbx-monalisa' })).assignable).toBe(false);
    expect(lines(h)).toEqual([`GET ${REPO_PATH}/assignees/sbx-monalisa`, `GET ${REPO_PATH}`]);
    h.sandbox.servers.github.reset();
    const text = await h.fails('github_get_issue_assignees', { owner: 'sbx-octocat', repo: 'no-such-repo', username: 'sbx-hubot' });
    expect(text).toMatch(/404 to GET \/repos\/sbx-octocat\/no-such-repo/);
  });

  it('without either pages through the assignable users', async () => {
    const first = await h.ok('github_get_issue_assignees', { owner: 'sbx-org', repo: 'platform', limit: 1 });
    expect(first.assignable_users).toEqual(['sbx-monalisa']);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await h.ok('github_get_issue_assignees', { owner: 'sbx-org', repo: 'platform', limit: 1, cursor: first.next_cursor });
    expect(second.assignable_users).toEqual(['sbx-octocat']);
    expect(second.next_cursor).toBeNull();
    expect(sent(h).map((r) => [r.path, r.query])).toEqual([
      ['/repos/sbx-org/platform/assignees', { per_page: '1' }],
      ['/repos/sbx-org/platform/assignees', { per_page: '1', page: '2' }],
    ]);
  });
});

describe('github_search_issues_and_pull_requests', () => {
  it('sends q, sort and order to /search/issues and returns compact items with is_pull_request', async () => {
    const r = await h.ok('github_search_issues_and_pull_requests', { q: 'repo:sbx-octocat/hello-world label:enhancement', sort: 'created', order: 'asc' });
    expect(sent(h)).toEqual([
      { method: 'GET', path: '/search/issues', query: { q: 'repo:sbx-octocat/hello-world label:enhancement', sort: 'created', order: 'asc', per_page: '30' }, body: undefined },
    ]);
    expect(r.items.map((i: any) => [i.number, i.is_pull_request])).toEqual([
      [3, false],
      [2, true],
    ]);
    expect(r.items[1]).toMatchObject({ repository: 'sbx-octocat/hello-world', html_url: 'https://github.com/sbx-octocat/hello-world/pull/2', user: 'sbx-monalisa', labels: ['enhancement'] });
    expect(r.total_count).toBe(2);
    expect(r.rate_limit).toMatchObject({ limit: 30 });
  });

  it('pages through every result with the cursor', async () => {
    const q = 'repo:sbx-octocat/hello-world';
    const seen: number[] = [];
    let cursor: string | undefined;
    let total = 0;
    for (let pages = 0; pages < 10; pages++) {
      const r = await h.ok('github_search_issues_and_pull_requests', { q, limit: 2, ...(cursor ? { cursor } : {}) });
      total = r.total_count;
      seen.push(...r.items.map((i: any) => i.number));
      if (!r.next_cursor) break;
      cursor = r.next_cursor;
    }
    expect(total).toBeGreaterThanOrEqual(5);
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect(sent(h).length).toBe(Math.ceil(total / 2));
    expect(sent(h)[1]!.query).toEqual({ q, per_page: '2', page: '2' });
  });

  it('reports an unknown repository in q with GitHub\'s 422 detail', async () => {
    const text = await h.fails('github_search_issues_and_pull_requests', { q: 'repo:nobody/nothing is:issue' });
    expect(text).toMatch(/422 to GET \/search\/issues/);
    expect(text).toMatch(/cannot be searched/);
  });

  it('says when to retry once the 30-a-minute search quota is used up', async () => {
    const search = h.sandbox.states.github.rateLimits.search;
    const saved = search.used;
    search.used = search.limit;
    try {
      const text = await h.fails('github_search_issues_and_pull_requests', { q: 'is:open' });
      expect(text).toMatch(/403 to GET \/search\/issues/);
      expect(text).toMatch(/Rate limited: retry after \d+ s/);
    } finally {
      search.used = saved;
    }
  });
});
