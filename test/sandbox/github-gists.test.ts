import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { emptyRepo } from '../../src/sandbox/github/data.js';
import { client } from './http.js';

/** The GitHub sandbox routes behind the repository and gist tools: gists, org repositories, raw and sha media types, paging. */

let sandbox: Sandbox;
let api: ReturnType<typeof client>;
const REPO = '/repos/sbx-octocat/hello-world';

beforeAll(async () => {
  sandbox = await startSandbox();
  api = client(sandbox.baseUrls.github, { authorization: `Bearer ${SANDBOX_TOKENS.github}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' });
});
afterAll(() => sandbox.close());

const state = () => sandbox.states.github;
const nextLink = (link: string | undefined) => /<([^>]+)>; rel="next"/.exec(link ?? '')?.[1];

describe('gists', () => {
  it('creates, reads, edits and deletes a gist with GitHub shapes', async () => {
    const created = await api('POST', '/gists', { body: { description: 'demo', public: false, files: { 'a.md': { content: '# A' }, 'b.js': { content: 'x()' } } } });
    expect(created.status).toBe(201);
    expect(created.headers.location).toMatch(new RegExp(`/gists/${created.body.id}$`));
    expect(created.body).toMatchObject({ public: false, description: 'demo', owner: { login: 'sbx-octocat' }, files: { 'a.md': { filename: 'a.md', language: 'Markdown', content: '# A', size: 3, truncated: false }, 'b.js': { language: 'JavaScript' } } });
    const id = created.body.id as string;

    const got = await api('GET', `/gists/${id}`);
    expect(got.body.files['b.js'].content).toBe('x()');

    const patched = await api('PATCH', `/gists/${id}`, { body: { description: 'renamed', files: { 'a.md': { filename: 'c.md', content: '# C' }, 'b.js': null } } });
    expect(patched.status).toBe(200);
    expect(Object.keys(patched.body.files)).toEqual(['c.md']);
    expect(patched.body).toMatchObject({ description: 'renamed', files: { 'c.md': { content: '# C' } } });

    expect((await api('DELETE', `/gists/${id}`)).status).toBe(204);
    expect((await api('GET', `/gists/${id}`)).status).toBe(404);
  });

  it('refuses missing or blank files and deleting the last file with 422 Validation Failed', async () => {
    for (const body of [{}, { files: {} }, { files: { 'a.txt': { content: '' } } }]) {
      const res = await api('POST', '/gists', { body });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ message: 'Validation Failed', errors: [{ resource: 'Gist', field: 'files', code: 'missing_field' }], documentation_url: expect.any(String) });
    }
    const one = await api('POST', '/gists', { body: { files: { 'only.txt': { content: 'x' } } } });
    expect(one.body.public).toBe(false);
    expect((await api('PATCH', `/gists/${one.body.id}`, { body: { files: { 'only.txt': null } } })).status).toBe(422);
    expect((await api('PATCH', `/gists/${one.body.id}`, { body: { files: { 'missing.txt': null } } })).status).toBe(422);
  });

  it("lists with Link paging; another user's list holds only public gists; someone else's gist cannot be edited", async () => {
    const first = await api('GET', '/gists?per_page=1');
    expect(first.body).toHaveLength(1);
    expect(first.body[0].files[Object.keys(first.body[0].files)[0]!]).not.toHaveProperty('content');
    const second = await api('GET', nextLink(first.headers.link)!);
    expect(second.body[0].id).not.toBe(first.body[0].id);
    const hubot = await api('GET', '/users/sbx-hubot/gists');
    expect(hubot.body.every((g: any) => g.public && g.owner.login === 'sbx-hubot')).toBe(true);
    expect((await api('PATCH', `/gists/${hubot.body[0].id}`, { body: { description: 'x' } })).status).toBe(404);
    expect((await api('GET', '/users/nobody-here/gists')).status).toBe(404);
    const since = await api('GET', '/gists?since=2099-01-01T00:00:00Z');
    expect(since.body).toEqual([]);
  });
});

describe('repositories, contents and commits', () => {
  it('creates an organization repository for a member; 404 for an unknown org, 403 for an outsider', async () => {
    const created = await api('POST', '/orgs/sbx-org/repos', { body: { name: 'org-made', private: true, license_template: 'mit' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ full_name: 'sbx-org/org-made', private: true, owner: { login: 'sbx-org', type: 'Organization' }, license: { spdx_id: 'MIT' } });
    expect((await api('GET', '/repos/sbx-org/org-made/contents/LICENSE')).status).toBe(200);
    expect((await api('POST', '/orgs/nope/repos', { body: { name: 'x' } })).status).toBe(404);
    state().orgs['sbx-org']!.members = {};
    const outsider = await api('POST', '/orgs/sbx-org/repos', { body: { name: 'y' } });
    state().orgs['sbx-org']!.members = { 'sbx-octocat': 'admin', 'sbx-monalisa': 'member' };
    expect(outsider.status).toBe(403);
    const dup = await api('POST', '/orgs/sbx-org/repos', { body: { name: 'org-made' } });
    expect(dup.body).toMatchObject({ message: 'Repository creation failed.', errors: [{ field: 'name', code: 'custom' }] });
  });

  it('inlines no content over 1 MB (encoding "none") and answers raw bytes with the raw media type', async () => {
    const big = Buffer.alloc(1024 * 1024 + 10, 0x61);
    await api('PUT', `${REPO}/contents/big.bin`, { body: { message: 'big', content: big.toString('base64') } });
    const meta = await api('GET', `${REPO}/contents/big.bin`);
    expect(meta.body).toMatchObject({ type: 'file', encoding: 'none', content: '', size: big.length });
    const raw = await api('GET', `${REPO}/contents/big.bin`, { headers: { accept: 'application/vnd.github.raw+json' } });
    expect(raw.headers['content-type']).toBe('application/vnd.github.raw');
    expect(raw.raw.equals(big)).toBe(true);
  });

  it('answers a commit as its bare sha with the sha media type, and pages its files', async () => {
    const main = state().repos[0]!.git.branches.main!;
    const sha = await api('GET', `${REPO}/commits/main`, { headers: { accept: 'application/vnd.github.sha' } });
    expect(sha.raw.toString()).toBe(main);
    const c = await api('GET', `${REPO}/commits/${state().repos[0]!.git.tags['v1.0.0']}?per_page=1`);
    expect(c.body.files).toHaveLength(1);
    expect(c.body.stats.additions).toBeGreaterThan(0);
    const twoFiles = Object.values(state().repos[0]!.git.commits).find((x) => x.message === 'Add greeting script')!;
    const first = await api('GET', `${REPO}/commits/${twoFiles.sha}?per_page=1`);
    expect(first.headers.link).toContain('rel="next"');
    const second = await api('GET', nextLink(first.headers.link)!);
    expect(second.body.files[0].filename).not.toBe(first.body.files[0].filename);
    expect(first.body.stats.additions).toBeGreaterThan(first.body.files[0].additions);
  });

  it('shows draft releases only to accounts with push access', async () => {
    const draft = { id: 7100001, node_id: 'RE_draft', tag_name: 'v9', target_commitish: 'main', name: 'draft', body: '', draft: true, prerelease: false, author: 'sbx-octocat', created_at: '2025-04-01T00:00:00Z', published_at: null };
    state().repos[0]!.releases.unshift({ ...draft });
    const theirs = emptyRepo(590001, 'sbx-hubot', 'robot', { releases: [{ ...draft, id: 7100002, author: 'sbx-hubot' }] });
    state().repos.push(theirs);
    expect((await api('GET', `${REPO}/releases`)).body.map((r: any) => r.tag_name)).toContain('v9');
    expect((await api('GET', '/repos/sbx-hubot/robot/releases')).body).toEqual([]);
  });
});
