import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gistsOf } from '../../src/sandbox/github/gists.js';
import type { Harness } from '../harness.js';
import { lastRequest, lines, received, resetGithub, startReposHarness } from './github-repos.helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startReposHarness();
});
afterAll(() => h.close());
beforeEach(() => resetGithub(h));

const gists = () => gistsOf(h.sandbox.states.github);

describe('github_create_gist', () => {
  it('POSTs each file as {content}, secret by default, and returns a compact gist', async () => {
    const r = await h.ok('github_create_gist', { files: { 'notes.md': '# Notes\n', 'run.sh': 'echo hi\n' }, description: 'Scratch' });
    const sent = lastRequest(h, 'POST');
    expect(sent.path).toBe('/gists');
    expect(sent.body).toEqual({ files: { 'notes.md': { content: '# Notes\n' }, 'run.sh': { content: 'echo hi\n' } }, description: 'Scratch', public: false });
    expect(r).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      html_url: expect.stringContaining(`/sbx-octocat/${r.id}`),
      public: false,
      description: 'Scratch',
      files: ['notes.md', 'run.sh'],
      updated_at: expect.any(String),
      rate_limit: expect.any(Object),
    });
    expect(gists().find((g) => g.id === r.id)!.files['run.sh']).toBe('echo hi\n');
  });

  it('refuses no files or an empty file before sending, and reports a provider refusal (422)', async () => {
    expect(await h.fails('github_create_gist', { files: {} })).toMatch(/"files" needs at least one file/);
    expect(await h.fails('github_create_gist', { files: { 'a.txt': '  ' } })).toMatch(/"files\.a\.txt" is empty/);
    expect(lines(h)).toEqual([]);
    h.sandbox.servers.github.once('POST /gists', { status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'Gist', code: 'missing_field', field: 'files' }], documentation_url: 'https://docs.github.com/rest' } });
    expect(await h.fails('github_create_gist', { files: { 'a.txt': 'a' } })).toMatch(/422 to POST \/gists \(Validation Failed: "files" missing field\)/);
  });
});

describe('github_update_gist', () => {
  it('edits, adds, renames and deletes files in one PATCH', async () => {
    const created = await h.ok('github_create_gist', { files: { 'a.md': 'A', 'old.txt': 'old', 'gone.txt': 'bye' }, public: true });
    resetGithub(h);
    const r = await h.ok('github_update_gist', {
      gist_id: created.id,
      description: 'Edited',
      files: { 'a.md': 'A2', 'b.md': 'B' },
      rename: { 'old.txt': 'new.txt' },
      delete_files: ['gone.txt'],
    });
    const sent = lastRequest(h, 'PATCH');
    expect(sent.path).toBe(`/gists/${created.id}`);
    expect(sent.body).toEqual({ description: 'Edited', files: { 'a.md': { content: 'A2' }, 'b.md': { content: 'B' }, 'old.txt': { filename: 'new.txt' }, 'gone.txt': null } });
    expect(r).toMatchObject({ id: created.id, description: 'Edited', public: true, files: ['a.md', 'b.md', 'new.txt'] });
    expect(gists().find((g) => g.id === created.id)!.files).toEqual({ 'a.md': 'A2', 'b.md': 'B', 'new.txt': 'old' });
  });

  it('renames and rewrites one file in the same entry', async () => {
    const created = await h.ok('github_create_gist', { files: { 'x.js': '1' } });
    await h.ok('github_update_gist', { gist_id: created.id, files: { 'x.js': '2' }, rename: { 'x.js': 'y.ts' } });
    expect(lastRequest(h, 'PATCH').body).toEqual({ files: { 'x.js': { content: '2', filename: 'y.ts' } } });
    expect(gists().find((g) => g.id === created.id)!.files).toEqual({ 'y.ts': '2' });
  });

  it('refuses an empty or contradictory change before sending', async () => {
    expect(await h.fails('github_update_gist', { gist_id: 'abc' })).toMatch(/Nothing to change/);
    expect(await h.fails('github_update_gist', { gist_id: 'abc', files: { 'a.md': 'x' }, delete_files: ['a.md'] })).toMatch(/"delete_files" names "a\.md"/);
    expect(await h.fails('github_update_gist', { gist_id: '../x', description: 'd' })).toMatch(/"gist_id"/);
    expect(lines(h)).toEqual([]);
  });

  it("reports an unknown gist and someone else's gist (404), and a file that is not there (422)", async () => {
    expect(await h.fails('github_update_gist', { gist_id: 'f'.repeat(32), description: 'x' })).toMatch(/404 to PATCH \/gists\/f{32}/);
    const hubots = gists().find((g) => g.owner === 'sbx-hubot')!;
    expect(await h.fails('github_update_gist', { gist_id: hubots.id, description: 'mine now' })).toMatch(/404 to PATCH/);
    const mine = gists().find((g) => g.owner === 'sbx-octocat')!;
    expect(await h.fails('github_update_gist', { gist_id: mine.id, delete_files: ['not-there.txt'] })).toMatch(/422 to PATCH .*not-there\.txt/);
  });
});

describe('github_list_gists', () => {
  it("lists your gists, secret ones included, with GET /gists and a since filter", async () => {
    const r = await h.ok('github_list_gists', { since: '2025-02-01T00:00:00Z' });
    expect(received(h)[0]).toMatchObject({ path: '/gists', query: { since: '2025-02-01T00:00:00Z', per_page: '30' } });
    const mine = gists().filter((g) => g.owner === 'sbx-octocat' && g.updated_at >= '2025-02-01T00:00:00Z');
    expect(r.gists.map((g: any) => g.id).sort()).toEqual(mine.map((g) => g.id).sort());
    expect(r.gists.some((g: any) => g.public === false)).toBe(true);
    expect(r.gists.find((g: any) => g.description === 'Deploy checklist')).toMatchObject({ files: ['checklist.md'], html_url: expect.stringContaining('gist.github.com') });
  });

  it("lists another user's public gists with GET /users/{username}/gists", async () => {
    const r = await h.ok('github_list_gists', { username: 'sbx-hubot' });
    expect(lines(h)).toEqual(['GET /users/sbx-hubot/gists']);
    expect(r.gists).toEqual([expect.objectContaining({ description: 'Robot haiku', public: true, files: ['haiku.txt'] })]);
  });

  it('pages through every gist with the cursor', async () => {
    const total = gists().filter((g) => g.owner === 'sbx-octocat').length;
    expect(total).toBeGreaterThan(2);
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await h.ok('github_list_gists', { limit: 2, ...(cursor ? { cursor } : {}) });
      ids.push(...page.gists.map((g: any) => g.id));
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 20);
    expect(new Set(ids).size).toBe(total);
    expect(pages).toBe(Math.ceil(total / 2));
    expect(received(h).at(-1)!.query).toMatchObject({ per_page: '2', page: String(pages) });
  });

  it('reports an unknown user (404) and refuses a bad since before sending', async () => {
    expect(await h.fails('github_list_gists', { username: 'nobody-here' })).toMatch(/404 to GET \/users\/nobody-here\/gists/);
    resetGithub(h);
    expect(await h.fails('github_list_gists', { since: '2025/01/01' })).toMatch(/"since" must be an ISO 8601/);
    expect(lines(h)).toEqual([]);
  });
});
