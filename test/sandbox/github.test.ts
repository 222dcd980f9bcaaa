import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { client, http } from './http.js';

let sandbox: Sandbox;
let api: ReturnType<typeof client>;
let base: string;
const REPO = '/repos/sbx-octocat/hello-world';

beforeAll(async () => {
  sandbox = await startSandbox();
  base = sandbox.baseUrls.github;
  api = client(base, { authorization: `Bearer ${SANDBOX_TOKENS.github}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' });
});
afterAll(() => sandbox.close());

const state = () => sandbox.states.github;
const remaining = (h: Record<string, string>) => Number(h['x-ratelimit-remaining']);

describe('auth and identity', () => {
  it('refuses missing and unknown tokens with GitHub error bodies', async () => {
    const none = await http('GET', `${base}/user`);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ message: 'Requires authentication', documentation_url: expect.stringContaining('docs.github.com') });
    const bad = await http('GET', `${base}${REPO}`, { headers: { authorization: 'Bearer ghp_unknown' } });
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ message: 'Bad credentials', documentation_url: expect.any(String) });
    expect(bad.headers['x-ratelimit-limit']).toBe('60');
  });

  it('GET /user returns the login and the token scopes', async () => {
    const res = await api('GET', '/user');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ login: 'sbx-octocat', id: 1001, name: 'Sandbox Octocat', email: expect.stringContaining('@') });
    expect(res.headers['x-oauth-scopes']).toBe('gist, project, read:org, repo, workflow');
  });

  it('accepts `token` as the scheme too, and tokens added to the state', async () => {
    state().tokens.add('ghp_added');
    expect((await http('GET', `${base}/user`, { headers: { authorization: 'token ghp_added' } })).status).toBe(200);
  });
});

describe('every path of the spec answers with the right shape', () => {
  const ctx: Record<string, string> = {};
  beforeAll(async () => {
    const put = await api('PUT', `${REPO}/contents/tmp/delete-me.txt`, { body: { message: 'Add file to delete', content: Buffer.from('bye').toString('base64') } });
    ctx.deleteSha = put.body.content.sha;
    ctx.mainSha = state().repos[0]!.git.branches.main!;
  });
  const rows: Array<{ method: string; path: string; body?: () => unknown; status: number; check?: (b: any) => void }> = [
    { method: 'GET', path: `${REPO}/collaborators/sbx-hubot/permission`, status: 200, check: (b) => expect(b).toMatchObject({ permission: 'write', role_name: 'write', user: { login: 'sbx-hubot' } }) },
    { method: 'PUT', path: `${REPO}/collaborators/sbx-monalisa`, body: () => ({ permission: 'triage' }), status: 201, check: (b) => expect(b).toMatchObject({ invitee: { login: 'sbx-monalisa' }, permissions: 'triage' }) },
    { method: 'DELETE', path: `${REPO}/collaborators/sbx-monalisa`, status: 204 },
    { method: 'GET', path: `${REPO}/contents/README.md`, status: 200, check: (b) => expect(b).toMatchObject({ type: 'file', encoding: 'base64', path: 'README.md', sha: expect.stringMatching(/^[0-9a-f]{40}$/) }) },
    { method: 'PUT', path: `${REPO}/contents/docs/guide.md`, body: () => ({ message: 'Add guide', content: Buffer.from('# Guide\n').toString('base64') }), status: 201, check: (b) => expect(b).toMatchObject({ content: { path: 'docs/guide.md' }, commit: { message: 'Add guide' } }) },
    { method: 'DELETE', path: `${REPO}/contents/tmp/delete-me.txt`, body: () => ({ message: 'Remove file', sha: ctx.deleteSha }), status: 200, check: (b) => expect(b.content).toBeNull() },
    { method: 'GET', path: `${REPO}/issues`, status: 200, check: (b) => expect(b[0]).toMatchObject({ number: expect.any(Number), title: expect.any(String), state: 'open', user: { login: expect.any(String) } }) },
    { method: 'POST', path: `${REPO}/issues`, body: () => ({ title: 'Add tests', labels: ['enhancement'], assignees: ['sbx-hubot'] }), status: 201, check: (b) => expect(b).toMatchObject({ number: 6, state: 'open', labels: [{ name: 'enhancement' }], assignees: [{ login: 'sbx-hubot' }] }) },
    { method: 'GET', path: `${REPO}/issues/3`, status: 200, check: (b) => expect(b).toMatchObject({ number: 3, title: 'Greeting is not localized', comments: 2 }) },
    { method: 'PATCH', path: `${REPO}/issues/4`, body: () => ({ state: 'closed', state_reason: 'not_planned' }), status: 200, check: (b) => expect(b).toMatchObject({ state: 'closed', state_reason: 'not_planned', closed_by: { login: 'sbx-octocat' } }) },
    { method: 'GET', path: `${REPO}/pulls`, status: 200, check: (b) => expect(b[0]).toMatchObject({ number: 2, head: { ref: 'feature/greeting' }, base: { ref: 'main' } }) },
    { method: 'POST', path: `${REPO}/pulls`, body: () => ({ title: 'Contributing guide', head: 'docs', base: 'main' }), status: 201, check: (b) => expect(b).toMatchObject({ number: 7, state: 'open', commits: 1, changed_files: 1, mergeable: true }) },
    { method: 'GET', path: `${REPO}/pulls/2`, status: 200, check: (b) => expect(b).toMatchObject({ number: 2, merged: false, requested_reviewers: [{ login: 'sbx-hubot' }], additions: expect.any(Number) }) },
    { method: 'PATCH', path: `${REPO}/pulls/2`, body: () => ({ title: 'Greeting takes a name' }), status: 200, check: (b) => expect(b.title).toBe('Greeting takes a name') },
    { method: 'PUT', path: `${REPO}/pulls/2/merge`, body: () => ({ merge_method: 'merge' }), status: 200, check: (b) => expect(b).toMatchObject({ merged: true, sha: expect.stringMatching(/^[0-9a-f]{40}$/), message: 'Pull Request successfully merged' }) },
    { method: 'GET', path: `${REPO}/branches`, status: 200, check: (b) => expect(b.map((x: any) => x.name)).toEqual(['docs', 'feature/greeting', 'main']) },
    { method: 'GET', path: `${REPO}/branches/feature/greeting`, status: 200, check: (b) => expect(b).toMatchObject({ name: 'feature/greeting', commit: { sha: expect.any(String), commit: { message: 'Let the greeting take a name' } } }) },
    { method: 'POST', path: `${REPO}/git/refs`, body: () => ({ ref: 'refs/heads/release', sha: ctx.mainSha }), status: 201, check: (b) => expect(b).toMatchObject({ ref: 'refs/heads/release', object: { sha: ctx.mainSha, type: 'commit' } }) },
    { method: 'GET', path: '/rate_limit', status: 200, check: (b) => expect(b.resources.core).toMatchObject({ limit: 5000, remaining: expect.any(Number), used: expect.any(Number), reset: expect.any(Number) }) },
  ];
  it.each(rows)('$method $path', async ({ method, path, body, status, check }) => {
    const res = await api(method, path, { body: body?.() });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.headers['x-ratelimit-resource']).toBe('core');
    check?.(res.body);
  });
});

describe('rate limits, conditional requests, pagination', () => {
  it('sends the rate-limit headers and decrements remaining per request', async () => {
    const a = await api('GET', REPO);
    const b = await api('GET', '/user');
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-used', 'x-ratelimit-reset', 'x-ratelimit-resource']) expect(a.headers[h]).toBeDefined();
    expect(remaining(b.headers)).toBe(remaining(a.headers) - 1);
    expect(Number(b.headers['x-ratelimit-used'])).toBe(Number(a.headers['x-ratelimit-used']) + 1);
  });

  it('GET /rate_limit is not counted', async () => {
    const before = await api('GET', '/rate_limit');
    const after = await api('GET', '/rate_limit');
    expect(after.body.resources.core.remaining).toBe(before.body.resources.core.remaining);
  });

  it('answers 304 to a matching If-None-Match without counting it', async () => {
    const first = await api('GET', REPO);
    expect(first.headers.etag).toMatch(/^W\/".+"$/);
    const cached = await api('GET', REPO, { headers: { 'if-none-match': first.headers.etag! } });
    expect(cached.status).toBe(304);
    expect(cached.raw.length).toBe(0);
    expect(remaining(cached.headers)).toBe(remaining(first.headers));
    const again = await api('GET', REPO);
    expect(again.status).toBe(200);
    expect(remaining(again.headers)).toBe(remaining(first.headers) - 1);
    const stale = await api('GET', REPO, { headers: { 'if-none-match': 'W/"something-else"' } });
    expect(stale.status).toBe(200);
  });

  it('the ETag changes when the resource does', async () => {
    const before = await api('GET', `${REPO}/issues/5`);
    await api('PATCH', `${REPO}/issues/5`, { body: { body: 'Run npm start.' } });
    const after = await api('GET', `${REPO}/issues/5`, { headers: { 'if-none-match': before.headers.etag! } });
    expect(after.status).toBe(200);
    expect(after.body.body).toBe('Run npm start.');
  });

  it('paginates lists with per_page, page and a Link header', async () => {
    const first = await api('GET', `${REPO}/issues?state=all&per_page=2`);
    expect(first.body).toHaveLength(2);
    const link = first.headers.link!;
    expect(link).toMatch(/<http:\/\/127\.0\.0\.1:\d+\/repos\/sbx-octocat\/hello-world\/issues\?state=all&per_page=2&page=2>; rel="next"/);
    expect(link).toContain('rel="last"');
    const next = /<([^>]+)>; rel="next"/.exec(link)![1]!;
    const second = await api('GET', next);
    expect(second.body).toHaveLength(2);
    expect(second.headers.link).toContain('rel="prev"');
    expect(second.headers.link).toContain('rel="first"');
    expect(second.body[0].number).not.toBe(first.body[0].number);
    const lastUrl = /<([^>]+)>; rel="last"/.exec(link)![1]!;
    const last = await api('GET', lastUrl);
    expect(last.headers.link).not.toContain('rel="next"');
    const one = await api('GET', `${REPO}/branches`);
    expect(one.headers.link).toBeUndefined();
  });

  it('refuses requests once the quota is used up', async () => {
    const core = state().rateLimits.core;
    const saved = core.used;
    core.used = core.limit;
    const res = await api('GET', REPO);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/rate limit exceeded/i);
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    core.used = saved;
  });
});

describe('errors and writes', () => {
  it('Not Found and Validation Failed have GitHub shapes', async () => {
    const missing = await api('GET', '/repos/sbx-octocat/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ message: 'Not Found', documentation_url: expect.any(String), status: '404' });
    const invalid = await api('POST', `${REPO}/issues`, { body: { body: 'no title' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ message: 'Validation Failed', errors: [{ resource: 'Issue', field: 'title', code: 'missing_field' }] });
    const badAssignee = await api('POST', `${REPO}/issues`, { body: { title: 'x', assignees: ['somebody-else'] } });
    expect(badAssignee.body.errors[0]).toMatchObject({ field: 'assignees', code: 'invalid', value: 'somebody-else' });
  });

  it('contents: base64 with sha; updating needs the current sha', async () => {
    const got = await api('GET', `${REPO}/contents/src/index.js?ref=main`);
    const text = Buffer.from(got.body.content, 'base64').toString();
    expect(text).toContain('greet');
    const noSha = await api('PUT', `${REPO}/contents/src/index.js`, { body: { message: 'Edit', content: Buffer.from('x').toString('base64') } });
    expect(noSha.status).toBe(422);
    expect(noSha.body.message).toContain('"sha" wasn\'t supplied');
    const wrongSha = await api('PUT', `${REPO}/contents/src/index.js`, { body: { message: 'Edit', content: Buffer.from('x').toString('base64'), sha: '0'.repeat(40) } });
    expect(wrongSha.status).toBe(409);
    const updated = await api('PUT', `${REPO}/contents/src/index.js`, { body: { message: 'Say hi', content: Buffer.from("console.log('hi');\n").toString('base64'), sha: got.body.sha } });
    expect(updated.status).toBe(200);
    expect(updated.body.content.sha).not.toBe(got.body.sha);
    const raw = await api('GET', `${REPO}/contents/src/index.js`, { headers: { accept: 'application/vnd.github.raw+json' } });
    expect(raw.body).toBe("console.log('hi');\n");
    const commits = await api('GET', `${REPO}/commits?path=src/index.js&per_page=1`);
    expect(commits.body[0].commit.message).toBe('Say hi');
    const detail = await api('GET', `${REPO}/commits/${commits.body[0].sha}`);
    expect(detail.body.files).toEqual([expect.objectContaining({ filename: 'src/index.js', status: 'modified' })]);
  });

  it('lists a directory as an array', async () => {
    const res = await api('GET', `${REPO}/contents/.github`);
    expect(res.body).toEqual([expect.objectContaining({ name: 'workflows', type: 'dir' })]);
  });

  it('a new issue and a comment show up in later reads', async () => {
    const created = await api('POST', `${REPO}/issues`, { body: { title: 'Logo request' } });
    const comment = await api('POST', `${REPO}/issues/${created.body.number}/comments`, { body: { body: 'A cat, please.' } });
    expect(comment.status).toBe(201);
    const got = await api('GET', `${REPO}/issues/${created.body.number}`);
    expect(got.body).toMatchObject({ title: 'Logo request', comments: 1 });
    const comments = await api('GET', `${REPO}/issues/${created.body.number}/comments`);
    expect(comments.body[0].body).toBe('A cat, please.');
  });

  it("issue labels: POST adds to the issue's labels, DELETE removes one, both answer the labels now on it", async () => {
    const labels = (body: Array<{ name: string }>) => body.map((l) => l.name);
    const added = await api('POST', `${REPO}/issues/5/labels`, { body: { labels: ['Bug', 'needs triage/ui'] } });
    expect(added.status).toBe(200);
    expect(labels(added.body)).toEqual(['question', 'bug', 'needs triage/ui']);
    expect(added.body[2]).toMatchObject({ id: expect.any(Number), node_id: expect.any(String), color: 'ededed', default: false });
    const bare = await api('POST', `${REPO}/issues/5/labels`, { body: [{ name: 'documentation' }, 'question'] });
    expect(labels(bare.body)).toEqual(['question', 'bug', 'needs triage/ui', 'documentation']);
    const removed = await api('DELETE', `${REPO}/issues/5/labels/${encodeURIComponent('Needs Triage/UI')}`);
    expect(removed.status).toBe(200);
    expect(labels(removed.body)).toEqual(['question', 'bug', 'documentation']);
    expect(labels((await api('GET', `${REPO}/issues/5`)).body.labels)).toEqual(['question', 'bug', 'documentation']);

    const absent = await api('DELETE', `${REPO}/issues/5/labels/wontfix`);
    expect(absent.status).toBe(404);
    expect(absent.body).toMatchObject({ message: 'Label does not exist', status: '404' });
    expect((await api('DELETE', `${REPO}/issues/999/labels/bug`)).body.message).toBe('Not Found');
    const empty = await api('POST', `${REPO}/issues/5/labels`, { body: { labels: [] } });
    expect(empty.status).toBe(422);
    expect(empty.body.errors[0]).toMatchObject({ field: 'labels', code: 'missing_field' });
  });

  it('merging closes the pull request and the issue it fixes, and moves the base branch', async () => {
    const pr = await api('GET', `${REPO}/pulls/2`);
    expect(pr.body).toMatchObject({ state: 'closed', merged: true, merged_by: { login: 'sbx-octocat' } });
    expect((await api('GET', `${REPO}/issues/3`)).body.state).toBe('closed');
    const merge = await api('GET', `${REPO}/commits/${pr.body.merge_commit_sha}`);
    expect(merge.body.parents).toHaveLength(2);
    expect(merge.body.commit.message).toMatch(/^Merge pull request #2 from sbx-octocat\/feature\/greeting/);
    const onMain = await api('GET', `${REPO}/commits?sha=main&per_page=100`);
    expect(onMain.body.map((c: any) => c.sha)).toContain(pr.body.merge_commit_sha);
    const merged = await api('GET', `${REPO}/contents/src/index.js?ref=${pr.body.merge_commit_sha}`);
    expect(Buffer.from(merged.body.content, 'base64').toString()).toContain("name = 'world'");
    const again = await api('PUT', `${REPO}/pulls/2/merge`, { body: {} });
    expect(again.status).toBe(405);
  });

  it('refuses a pull request with no commits, a duplicate one, and an existing ref', async () => {
    const none = await api('POST', `${REPO}/pulls`, { body: { title: 'x', head: 'release', base: 'main' } });
    expect(none.status).toBe(422);
    const dup = await api('POST', `${REPO}/pulls`, { body: { title: 'x', head: 'docs', base: 'main' } });
    expect(dup.body.errors[0].message).toContain('already exists');
    const ref = await api('POST', `${REPO}/git/refs`, { body: { ref: 'refs/heads/docs', sha: state().repos[0]!.git.branches.main } });
    expect(ref.status).toBe(422);
    expect(ref.body.message).toBe('Reference already exists');
  });

  it('collaborator permission follows PUT and DELETE', async () => {
    const platform = '/repos/sbx-org/platform';
    expect((await api('PUT', `${platform}/collaborators/sbx-monalisa`, { body: { permission: 'maintain' } })).status).toBe(204);
    expect((await api('GET', `${platform}/collaborators/sbx-monalisa/permission`)).body).toMatchObject({ permission: 'write', role_name: 'maintain' });
    expect((await api('PUT', `${REPO}/collaborators/sbx-monalisa`, { body: { permission: 'owner' } })).status).toBe(422);
    expect((await api('DELETE', `${REPO}/collaborators/sbx-hubot`)).status).toBe(204);
    expect((await api('GET', `${REPO}/collaborators/sbx-hubot/permission`)).body.permission).toBe('read');
  });

  it('creates a repository and stars one', async () => {
    const created = await api('POST', '/user/repos', { body: { name: 'new-thing', auto_init: true, private: true } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ full_name: 'sbx-octocat/new-thing', private: true, default_branch: 'main' });
    expect((await api('GET', '/repos/sbx-octocat/new-thing/contents/README.md')).status).toBe(200);
    expect((await api('PUT', '/user/starred/sbx-org/platform')).status).toBe(204);
    expect((await api('GET', '/repos/sbx-org/platform')).body.stargazers_count).toBe(1);
  });
});
