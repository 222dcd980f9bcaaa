import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { commit, history } from '../../src/sandbox/github/git.js';
import type { Harness } from '../harness.js';
import { OWNER, REPO, REPO_PATH, headOf, lastRequest, lines, received, resetGithub, startReposHarness } from './github-repos.helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startReposHarness();
});
afterAll(() => h.close());
beforeEach(() => resetGithub(h));

const repoState = () => h.sandbox.states.github.repos.find((r) => r.name === REPO)!;

describe('github_create_branch', () => {
  it('starts from the default branch when "from" is omitted, looking both up', async () => {
    const main = headOf(h, 'main')!;
    const r = await h.ok('github_create_branch', { owner: OWNER, repo: REPO, branch: 'topic/one' });
    expect(lines(h)).toEqual([`GET ${REPO_PATH}`, `GET ${REPO_PATH}/commits/main`, `POST ${REPO_PATH}/git/refs`]);
    expect(received(h)[1]!.headers.accept).toBe('application/vnd.github.sha');
    expect(lastRequest(h, 'POST').body).toEqual({ ref: 'refs/heads/topic/one', sha: main });
    expect(r).toMatchObject({ ref: 'refs/heads/topic/one', sha: main, from: 'main' });
    expect(headOf(h, 'topic/one')).toBe(main);
  });

  it('starts from another branch or a short sha, resolving it to the full sha', async () => {
    const feature = headOf(h, 'feature/greeting')!;
    const a = await h.ok('github_create_branch', { owner: OWNER, repo: REPO, branch: 'topic/two', from: 'feature/greeting' });
    expect(lines(h)[0]).toBe(`GET ${REPO_PATH}/commits/feature/greeting`);
    expect(a.sha).toBe(feature);
    const b = await h.ok('github_create_branch', { owner: OWNER, repo: REPO, branch: 'refs/heads/topic/three', from: feature.slice(0, 7) });
    expect(lastRequest(h, 'POST').body).toEqual({ ref: 'refs/heads/topic/three', sha: feature });
    expect(b.ref).toBe('refs/heads/topic/three');
  });

  it('takes a full sha as it is, with no lookup', async () => {
    const docs = headOf(h, 'docs')!;
    await h.ok('github_create_branch', { owner: OWNER, repo: REPO, branch: 'from-sha', from: docs });
    expect(lines(h)).toEqual([`POST ${REPO_PATH}/git/refs`]);
    expect(lastRequest(h, 'POST').body.sha).toBe(docs);
  });

  it('reports an existing branch (422 Reference already exists) and an unknown start (422)', async () => {
    const exists = await h.fails('github_create_branch', { owner: OWNER, repo: REPO, branch: 'docs', from: 'main' });
    expect(exists).toMatch(/422 to POST \/repos\/sbx-octocat\/hello-world\/git\/refs \(Reference already exists\)/);
    const unknown = await h.fails('github_create_branch', { owner: OWNER, repo: REPO, branch: 'x', from: 'no-such-branch' });
    expect(unknown).toMatch(/422 .*No commit found for SHA: no-such-branch/);
    expect(received(h).filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});

describe('github_get_commit', () => {
  it('returns message, author, parents, line counts and files with patches, asking for at most 30 files', async () => {
    const sha = headOf(h, 'feature/greeting')!;
    const r = await h.ok('github_get_commit', { owner: OWNER, repo: REPO, ref: sha });
    expect(received(h)[0]).toMatchObject({ path: `${REPO_PATH}/commits/${sha}`, query: { per_page: '30' } });
    expect(r).toMatchObject({ sha, message: 'Let the greeting take a name', author: 'sbx-monalisa', date: '2025-03-02T10:00:00Z', parents: [repoState().git.commits[sha]!.parents[0]], more_files: false });
    expect(r.files).toEqual([{ filename: 'src/index.js', status: 'modified', additions: expect.any(Number), deletions: expect.any(Number), patch: expect.stringMatching(/^@@ /) }]);
    expect(r.additions).toBe(r.files[0].additions);
    expect(r.html_url).toContain(`/commit/${sha}`);
  });

  it('caps the files at 30 and long patches at 2,000 characters, keeping the full line counts', async () => {
    const git = repoState().git;
    const changes: Record<string, string> = { 'big/a-long.txt': 'y'.repeat(3000) };
    for (let i = 0; i < 34; i++) changes[`big/f${String(i).padStart(2, '0')}.txt`] = `line ${i}\n`;
    const c = commit(git, { parents: [git.branches.main!], changes, message: 'Many files\n\nBody text', author: { name: 'Someone Else', email: 'else@example.com', date: '2025-04-01T00:00:00Z' }, authorLogin: null });
    git.branches['many-files'] = c.sha;
    const r = await h.ok('github_get_commit', { owner: OWNER, repo: REPO, ref: 'many-files' });
    expect(r.files).toHaveLength(30);
    expect(r.more_files).toBe(true);
    expect(r.additions).toBe(35);
    expect(r.author).toBe('Someone Else');
    expect(r.message).toBe('Many files\n\nBody text');
    const long = r.files.find((f: any) => f.filename === 'big/a-long.txt');
    expect(long.patch).toHaveLength(2001);
    expect(long.patch.endsWith('…')).toBe(true);
  });

  it('reports an unknown commit (422)', async () => {
    expect(await h.fails('github_get_commit', { owner: OWNER, repo: REPO, ref: 'deadbeefdeadbeef' })).toMatch(/422 to GET .*No commit found for SHA: deadbeefdeadbeef/);
  });
});

describe('github_list_commits', () => {
  it('sends every filter GitHub takes and returns compact commits', async () => {
    const r = await h.ok('github_list_commits', { owner: OWNER, repo: REPO, sha: 'main', path: 'README.md', author: 'sbx-octocat', since: '2025-01-01T00:00:00Z', until: '2025-12-31T00:00:00Z', limit: 5 });
    expect(received(h)[0]).toMatchObject({
      path: `${REPO_PATH}/commits`,
      query: { sha: 'main', path: 'README.md', author: 'sbx-octocat', since: '2025-01-01T00:00:00Z', until: '2025-12-31T00:00:00Z', per_page: '5' },
    });
    expect(r.commits.map((c: any) => c.message)).toEqual(['Document usage', 'Initial commit']);
    expect(r.commits[0]).toEqual({ sha: expect.stringMatching(/^[0-9a-f]{40}$/), message: 'Document usage', author: 'sbx-octocat', date: '2025-03-01T08:45:00Z' });
    expect(r.next_cursor).toBeNull();
  });

  it('pages through every commit of a branch with the cursor', async () => {
    const all = history(repoState().git, headOf(h, 'feature/greeting')!).map((c) => c.sha);
    expect(all.length).toBeGreaterThan(4);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await h.ok('github_list_commits', { owner: OWNER, repo: REPO, sha: 'feature/greeting', limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.commits.map((c: any) => c.sha));
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 2));
    expect(received(h)[1]!.query).toMatchObject({ sha: 'feature/greeting', per_page: '2', page: '2' });
  });

  it('refuses a forged or foreign cursor and a bad time, sending nothing', async () => {
    const evil = 'gh1.' + Buffer.from('https://evil.example/repos/x/y/commits?page=2').toString('base64url');
    expect(await h.fails('github_list_commits', { owner: OWNER, repo: REPO, cursor: evil })).toMatch(/"cursor" points to https:\/\/evil\.example/);
    expect(await h.fails('github_list_commits', { owner: OWNER, repo: REPO, cursor: 'page=2' })).toMatch(/"cursor" is not a next_cursor/);
    expect(await h.fails('github_list_commits', { owner: OWNER, repo: REPO, since: 'yesterday' })).toMatch(/"since" must be an ISO 8601 timestamp/);
    expect(lines(h)).toEqual([]);
  });

  it('reports an unknown branch (404) and an empty repository (409)', async () => {
    expect(await h.fails('github_list_commits', { owner: OWNER, repo: REPO, sha: 'no-such-branch' })).toMatch(/404 to GET .*No commit found for SHA: no-such-branch/);
    await h.ok('github_create_repository', { name: 'empty-one' });
    expect(await h.fails('github_list_commits', { owner: OWNER, repo: 'empty-one' })).toMatch(/409 to GET .*Git Repository is empty/);
  });
});
