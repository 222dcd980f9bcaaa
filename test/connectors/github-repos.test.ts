import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, parseLink } from '../../src/connectors/github/common.js';
import { blobSha } from '../../src/sandbox/github/git.js';
import { githubExamples } from '../contract/github-examples.js';
import type { Harness } from '../harness.js';
import { OWNER, REPO, REPO_PATH, b64, fileOn, lastRequest, lines, received, resetGithub, startReposHarness } from './github-repos.helpers.js';

let h: Harness;
let listed: Tool[];
beforeAll(async () => {
  h = await startReposHarness();
  listed = (await h.client.listTools()).tools;
});
afterAll(() => h.close());
beforeEach(() => resetGithub(h));

const MINE = [
  'github_create_repository',
  'github_get_repository',
  'github_get_repository_content',
  'github_star_repository',
  'github_create_branch',
  'github_get_commit',
  'github_list_commits',
  'github_create_or_update_file',
  'github_create_gist',
  'github_update_gist',
  'github_list_gists',
  'github_list_releases',
];

describe('tools/list', () => {
  it('lists every repository and gist tool compactly, with annotations from its effect', () => {
    const byName = new Map(listed.map((t) => [t.name, t]));
    const sizes = Object.fromEntries(MINE.map((name) => [name, JSON.stringify(byName.get(name)).length]));
    console.log('tools/list JSON size per tool:', sizes);
    for (const name of MINE) {
      expect(byName.has(name), name).toBe(true);
      expect(sizes[name], name).toBeLessThanOrEqual(1800);
    }
    expect(byName.get('github_get_commit')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('github_star_repository')!.annotations).toEqual({ destructiveHint: false, idempotentHint: true });
    expect(byName.get('github_create_or_update_file')!.annotations).toEqual({ destructiveHint: false });
    expect(byName.get('github_update_gist')!.annotations).toEqual({ destructiveHint: false });
  });
});

describe('common.ts', () => {
  it('parses Link headers and keeps cursors opaque but checked', () => {
    expect(parseLink('<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"')).toEqual({ next: 'https://api.github.com/x?page=2', last: 'https://api.github.com/x?page=5' });
    expect(parseLink('<https://a/x?p=1&q=a,b>; rel="prev first"')).toEqual({ prev: 'https://a/x?p=1&q=a,b', first: 'https://a/x?p=1&q=a,b' });
    expect(parseLink(undefined)).toEqual({});
    const url = 'https://api.github.com/repositories/1/commits?page=2';
    expect(decodeCursor(encodeCursor(url)!)).toBe(url);
    expect(encodeCursor(undefined)).toBeNull();
    expect(() => decodeCursor('gh1.' + Buffer.from('/relative').toString('base64url'))).toThrow(/"cursor" is not a next_cursor/);
  });
});

describe('github_create_repository', () => {
  it('creates a personal repository with POST /user/repos', async () => {
    const r = await h.ok('github_create_repository', { name: 'tool-made', description: 'Made by a tool', private: true, auto_init: true });
    const sent = lastRequest(h, 'POST');
    expect(sent.path).toBe('/user/repos');
    expect(sent.body).toEqual({ name: 'tool-made', description: 'Made by a tool', private: true, auto_init: true });
    expect(r).toMatchObject({ full_name: `${OWNER}/tool-made`, private: true, default_branch: 'main', html_url: `https://github.com/${OWNER}/tool-made`, clone_url: expect.stringMatching(/\.git$/) });
    expect(fileOn(h, 'main', 'README.md', 'tool-made')!.toString()).toContain('Made by a tool');
  });

  it('creates an organization repository with POST /orgs/{org}/repos, without sending "org" in the body', async () => {
    const r = await h.ok('github_create_repository', { name: 'svc', org: 'sbx-org', license_template: 'mit' });
    const sent = lastRequest(h, 'POST');
    expect(sent.path).toBe('/orgs/sbx-org/repos');
    expect(sent.body).toEqual({ name: 'svc', license_template: 'mit' });
    expect(r.full_name).toBe('sbx-org/svc');
  });

  it('reports a taken name (422) and an unknown organization (404)', async () => {
    const taken = await h.fails('github_create_repository', { name: REPO });
    expect(taken).toMatch(/422 to POST \/user\/repos/);
    expect(taken).toMatch(/Repository creation failed/);
    const noOrg = await h.fails('github_create_repository', { name: 'x', org: 'no-such-org' });
    expect(noOrg).toMatch(/404 to POST \/orgs\/no-such-org\/repos/);
  });
});

describe('github_get_repository', () => {
  it('returns the compact repository with the permission level', async () => {
    const r = await h.ok('github_get_repository', { owner: OWNER, repo: REPO });
    expect(lines(h)).toEqual([`GET ${REPO_PATH}`]);
    expect(r).toMatchObject({ full_name: `${OWNER}/${REPO}`, default_branch: 'main', private: false, permission: 'admin', archived: false });
    expect(r.topics).toEqual(expect.any(Array));
    expect(r.open_issues_count).toBeGreaterThan(0);
    expect(r).not.toHaveProperty('owner');
    expect(r.rate_limit).toMatchObject({ limit: 5000 });
  });

  it('follows a 301 for a renamed repository, on the API origin only', async () => {
    const moved = `${h.sandbox.baseUrls.github}${REPO_PATH}`;
    h.sandbox.servers.github.once('GET /repos/:owner/:repo', { status: 301, headers: { location: moved }, body: { message: 'Moved Permanently', url: moved } });
    const r = await h.ok('github_get_repository', { owner: OWNER, repo: 'old-name' });
    expect(lines(h)).toEqual([`GET /repos/${OWNER}/old-name`, `GET ${REPO_PATH}`]);
    expect(r.full_name).toBe(`${OWNER}/${REPO}`);

    h.sandbox.servers.github.once('GET /repos/:owner/:repo', { status: 301, headers: { location: 'https://evil.example/repos/x/y' }, body: {} });
    const text = await h.fails('github_get_repository', { owner: OWNER, repo: 'older-name' });
    expect(text).toMatch(/"repo" points to https:\/\/evil\.example.*only reaches/);
    expect(lines(h)).toHaveLength(3);

    resetGithub(h);
    h.sandbox.servers.github.once('GET /repos/:owner/:repo', { status: 301, headers: { location: `${h.sandbox.baseUrls.github}/repos/${OWNER}/loop` }, body: {} }, 5);
    expect(await h.fails('github_get_repository', { owner: OWNER, repo: 'loop' })).toMatch(/GitHub answered 301/);
    expect(lines(h)).toHaveLength(4);
  });

  it("takes GitHub's own documented answer, which lacks the language its schema requires, and its 304 revalidation", async () => {
    const documented = githubExamples().named('full-repository-default-response') as Record<string, unknown>;
    expect(documented).not.toHaveProperty('language');
    h.sandbox.servers.github.once('GET /repos/:owner/:repo', { status: 200, headers: { etag: 'W/"documented"' }, body: documented });
    // The harness's client holds structuredContent to the advertised output schema with a strict validator.
    const first = await h.ok('github_get_repository', { owner: 'octocat', repo: 'Hello-World' });
    expect(first).toMatchObject({ full_name: 'octocat/Hello-World', language: null, description: 'This your first repo!' });
    h.sandbox.servers.github.once('GET /repos/:owner/:repo', { status: 304, headers: { etag: 'W/"documented"' } });
    const again = await h.ok('github_get_repository', { owner: 'octocat', repo: 'Hello-World' });
    expect(received(h).at(-1)!.headers['if-none-match']).toBe('W/"documented"');
    expect(h.sandbox.servers.github.exchanges.at(-1)!.status).toBe(304);
    expect({ ...again, rate_limit: undefined }).toEqual({ ...first, rate_limit: undefined });
  });

  it('reports a missing repository (404) and refuses a path-like name before sending', async () => {
    expect(await h.fails('github_get_repository', { owner: OWNER, repo: 'no-such-repo' })).toMatch(/404 to GET \/repos\/sbx-octocat\/no-such-repo.*Not Found/);
    resetGithub(h);
    expect(await h.fails('github_get_repository', { owner: OWNER, repo: '..' })).toMatch(/"repo" must be a single name/);
    expect(await h.fails('github_get_repository', { owner: 'a/b', repo: REPO })).toMatch(/"owner"/);
    expect(lines(h)).toEqual([]);
  });
});

describe('github_star_repository', () => {
  it('PUTs an empty body, returns starred: true, and is idempotent', async () => {
    const platform = () => h.sandbox.states.github.repos.find((r) => r.name === 'platform')!;
    expect(platform().stargazers).not.toContain(OWNER);
    const r = await h.ok('github_star_repository', { owner: 'sbx-org', repo: 'platform' });
    expect(r).toMatchObject({ starred: true, full_name: 'sbx-org/platform' });
    const sent = lastRequest(h, 'PUT');
    expect(sent.path).toBe('/user/starred/sbx-org/platform');
    expect(sent.headers['content-length']).toBe('0');
    await h.ok('github_star_repository', { owner: 'sbx-org', repo: 'platform' });
    expect(platform().stargazers.filter((l) => l === OWNER)).toHaveLength(1);
  });

  it('reports a repository it cannot see (404)', async () => {
    expect(await h.fails('github_star_repository', { owner: 'sbx-org', repo: 'secret' })).toMatch(/404 to PUT \/user\/starred\/sbx-org\/secret/);
  });
});

describe('github_list_releases', () => {
  it('pages through releases with the cursor and clips long notes', async () => {
    const state = h.sandbox.states.github.repos.find((r) => r.name === REPO)!;
    state.releases[0]!.body = 'x'.repeat(800);
    const first = await h.ok('github_list_releases', { owner: OWNER, repo: REPO, limit: 1 });
    expect(lastRequest(h, 'GET')).toMatchObject({ path: `${REPO_PATH}/releases`, query: { per_page: '1' } });
    expect(first.releases).toEqual([expect.objectContaining({ tag_name: 'v1.1.0-beta.1', prerelease: true, draft: false, html_url: expect.stringContaining('/releases/tag/') })]);
    expect(first.releases[0].body).toHaveLength(501);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await h.ok('github_list_releases', { owner: OWNER, repo: REPO, cursor: first.next_cursor });
    expect(lastRequest(h, 'GET').query).toMatchObject({ per_page: '1', page: '2' });
    expect(second.releases.map((r: any) => r.tag_name)).toEqual(['v1.0.0']);
    expect(second.next_cursor).toBeNull();
  });

  it('reports a missing repository (404)', async () => {
    expect(await h.fails('github_list_releases', { owner: OWNER, repo: 'nope' })).toMatch(/404 to GET \/repos\/sbx-octocat\/nope\/releases/);
  });
});

describe('github_get_repository_content', () => {
  it('decodes a text file from base64', async () => {
    const r = await h.ok('github_get_repository_content', { owner: OWNER, repo: REPO, path: 'README.md' });
    expect(lines(h)).toEqual([`GET ${REPO_PATH}/contents/README.md`]);
    expect(received(h)[0]!.query).toEqual({});
    expect(r).toMatchObject({ type: 'file', path: 'README.md', encoding: 'utf-8', content: fileOn(h, 'main', 'README.md')!.toString('utf8') });
    expect(r.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(r.truncated).toBeUndefined();
  });

  it('reads at a ref', async () => {
    const r = await h.ok('github_get_repository_content', { owner: OWNER, repo: REPO, path: 'src/index.js', ref: 'feature/greeting' });
    expect(received(h)[0]).toMatchObject({ path: `${REPO_PATH}/contents/src/index.js`, query: { ref: 'feature/greeting' } });
    expect(r.content).toContain("name = 'world'");
  });

  it('lists a directory and the root', async () => {
    const dir = await h.ok('github_get_repository_content', { owner: OWNER, repo: REPO, path: '.github/' });
    expect(dir).toEqual({ type: 'dir', path: '.github', entries: [{ name: 'workflows', path: '.github/workflows', type: 'dir', size: 0, sha: expect.any(String) }], rate_limit: expect.any(Object) });
    const root = await h.ok('github_get_repository_content', { owner: OWNER, repo: REPO });
    expect(lines(h)[1]).toBe(`GET ${REPO_PATH}/contents`);
    expect(root.entries.map((e: any) => `${e.type}:${e.name}`)).toEqual(expect.arrayContaining(['file:README.md', 'dir:src', 'dir:.github']));
    expect(root.entries.find((e: any) => e.name === 'README.md').size).toBeGreaterThan(0);
  });

  it('keeps a binary file as base64', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0xff, 0xfe]);
    await h.ok('github_create_or_update_file', { owner: OWNER, repo: REPO, path: 'img/logo.png', message: 'Add logo', branch: 'main', content_base64: png.toString('base64') });
    const r = await h.ok('github_get_repository_content', { owner: OWNER, repo: REPO, path: 'img/logo.png' });
    expect(r).toMatchObject({ type: 'file', encoding: 'base64', content: png.toString('base64'), size: png.length });
  });

  it('fetches a file over 1 MB raw and cuts it at 1 MB', async () => {
    const big = 'é'.repeat(600_000); // 1.2 MB of two-byte characters
    await h.ok('github_create_or_update_file', { owner: OWNER, repo: REPO, path: 'data/big.txt', message: 'Add big file', branch: 'main', content: big });
    resetGithub(h);
    const r = await h.ok('github_get_repository_content', { owner: OWNER, repo: REPO, path: 'data/big.txt' });
    const sent = received(h);
    expect(sent.map((s) => s.headers.accept)).toEqual(['application/vnd.github+json', 'application/vnd.github.raw+json']);
    expect(r).toMatchObject({ type: 'file', encoding: 'utf-8', truncated: true, size: 1_200_000 });
    // The first 1 MB is more than one result may hold: it comes in pieces, joined through next_cursor.
    let content = r.content;
    for (let page = r; page.next_cursor; ) {
      page = await h.ok('github_get_repository_content', { owner: OWNER, repo: REPO, cursor: page.next_cursor });
      content += page.content;
    }
    expect(content).toBe('é'.repeat(500_000));
    expect(received(h)).toHaveLength(2);
  });

  it('does not download a file beyond the response cap, and says it is truncated', async () => {
    h.sandbox.servers.github.once('GET /repos/:owner/:repo/contents/*path', { status: 200, body: { type: 'file', name: 'huge.bin', path: 'huge.bin', sha: 'a'.repeat(40), size: 50_000_000, encoding: 'none', content: '' } });
    const r = await h.ok('github_get_repository_content', { owner: OWNER, repo: REPO, path: 'huge.bin' });
    expect(r).toEqual({ type: 'file', path: 'huge.bin', sha: 'a'.repeat(40), size: 50_000_000, truncated: true });
    expect(lines(h)).toHaveLength(1);
  });

  it('reports a missing path (404) and refuses dot segments before sending', async () => {
    expect(await h.fails('github_get_repository_content', { owner: OWNER, repo: REPO, path: 'no/such/file.txt' })).toMatch(/404 to GET \/repos\/sbx-octocat\/hello-world\/contents\/no\/such\/file\.txt/);
    expect(await h.fails('github_get_repository_content', { owner: OWNER, repo: REPO, path: 'README.md', ref: 'no-such-branch' })).toMatch(/No commit found for the ref no-such-branch/);
    resetGithub(h);
    expect(await h.fails('github_get_repository_content', { owner: OWNER, repo: REPO, path: 'src/../../x' })).toMatch(/"path" must be a plain path/);
    expect(lines(h)).toEqual([]);
  });
});

describe('github_create_or_update_file', () => {
  const path = 'docs/notes.md';

  it('creates a file: looks for it on the branch, then PUTs base64 without a sha', async () => {
    const r = await h.ok('github_create_or_update_file', { owner: OWNER, repo: REPO, path, message: 'Add notes', branch: 'main', content: 'Hello, notes ✓\n' });
    expect(lines(h)).toEqual([`GET ${REPO_PATH}/contents/${path}`, `PUT ${REPO_PATH}/contents/${path}`]);
    expect(received(h)[0]!.query).toEqual({ ref: 'main' });
    expect(lastRequest(h, 'PUT').body).toEqual({ message: 'Add notes', content: b64('Hello, notes ✓\n'), branch: 'main' });
    expect(r).toMatchObject({ path, sha: blobSha(Buffer.from('Hello, notes ✓\n')), created: true, commit: { sha: expect.stringMatching(/^[0-9a-f]{40}$/), html_url: expect.stringContaining('/commit/') } });
    expect(fileOn(h, 'main', path)!.toString()).toBe('Hello, notes ✓\n');
  });

  it('updates a file, finding the current sha itself', async () => {
    const before = blobSha(fileOn(h, 'main', path)!);
    const r = await h.ok('github_create_or_update_file', { owner: OWNER, repo: REPO, path, message: 'Edit notes', branch: 'main', content: 'Second version\n' });
    expect(lastRequest(h, 'PUT').body).toEqual({ message: 'Edit notes', content: b64('Second version\n'), branch: 'main', sha: before });
    expect(r.created).toBe(false);
    expect(r.sha).toBe(blobSha(Buffer.from('Second version\n')));
  });

  it('uses a given sha without looking it up, and reports a stale one (409)', async () => {
    const current = blobSha(fileOn(h, 'main', path)!);
    await h.ok('github_create_or_update_file', { owner: OWNER, repo: REPO, path, message: 'Third', branch: 'main', content: 'Third\n', sha: current });
    expect(lines(h)).toEqual([`PUT ${REPO_PATH}/contents/${path}`]);
    const text = await h.fails('github_create_or_update_file', { owner: OWNER, repo: REPO, path, message: 'Stale', branch: 'main', content: 'x', sha: current });
    expect(text).toMatch(/409 to PUT/);
  });

  it('reports a missing branch (404)', async () => {
    expect(await h.fails('github_create_or_update_file', { owner: OWNER, repo: REPO, path, message: 'm', branch: 'no-such-branch', content: 'x' })).toMatch(/404 to PUT .*Branch no-such-branch not found/);
  });

  it('refuses bad content and directory paths with the field to fix', async () => {
    const base = { owner: OWNER, repo: REPO, path: 'x.txt', message: 'm', branch: 'main' };
    expect(await h.fails('github_create_or_update_file', base)).toMatch(/exactly one of "content".*"content_base64"/);
    expect(await h.fails('github_create_or_update_file', { ...base, content: 'a', content_base64: 'YQ==' })).toMatch(/exactly one of/);
    expect(await h.fails('github_create_or_update_file', { ...base, content_base64: 'not base64!' })).toMatch(/"content_base64" is not valid base64/);
    expect(lines(h)).toEqual([]);
    expect(await h.fails('github_create_or_update_file', { ...base, path: 'src', content: 'a' })).toMatch(/"path" src is a directory/);
    expect(lines(h)).toEqual([`GET ${REPO_PATH}/contents/src`]);
  });
});
