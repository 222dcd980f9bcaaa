import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { actionsOf } from '../../src/sandbox/github/actions.js';
import type { Harness } from '../harness.js';
import { REPO_PATH, checkSizes, helloWorld, lines, sent, startWorkHarness } from './github-work.helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startWorkHarness();
});
afterAll(() => h.close());
beforeEach(() => h.sandbox.servers.github.reset());

const REPO = { owner: 'sbx-octocat', repo: 'hello-world' };
const actions = () => actionsOf(h.sandbox.states.github, helloWorld(h));
const ci = () => actions().workflows.find((w) => w.name === 'CI')!;

describe('tools/list', () => {
  it('lists the workflow tools compactly, with annotations from their effect', async () => {
    const listed = await checkSizes(
      h,
      ['github_create_workflow_dispatch', 'github_enable_workflow', 'github_disable_workflow', 'github_get_workflow_run', 'github_list_workflow_runs'],
      2600,
    );
    for (const name of ['github_enable_workflow', 'github_disable_workflow']) {
      expect(listed.get(name)!.annotations, name).toEqual({ destructiveHint: false, idempotentHint: true });
    }
    expect(listed.get('github_create_workflow_dispatch')!.annotations).toEqual({ destructiveHint: false });
    expect(listed.get('github_get_workflow_run')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(listed.get('github_list_workflow_runs')!.annotations).toMatchObject({ readOnlyHint: true });
  });
});

describe('github_create_workflow_dispatch', () => {
  it('dispatches by file name asking for the run details, and returns the queued run', async () => {
    const r = await h.ok('github_create_workflow_dispatch', { ...REPO, workflow: 'ci.yml', ref: 'main', inputs: { greeting: 'hola' } });
    expect(sent(h)).toEqual([
      { method: 'POST', path: `${REPO_PATH}/actions/workflows/ci.yml/dispatches`, query: {}, body: { ref: 'main', inputs: { greeting: 'hola' }, return_run_details: true } },
    ]);
    const run = actions().runs.at(-1)!;
    expect(run).toMatchObject({ event: 'workflow_dispatch', status: 'queued', head_branch: 'main', inputs: { greeting: 'hola' } });
    expect(r).toEqual({
      requested: true,
      workflow_run_id: run.id,
      run_url: `${h.sandbox.baseUrls.github}${REPO_PATH}/actions/runs/${run.id}`,
      html_url: `https://github.com/sbx-octocat/hello-world/actions/runs/${run.id}`,
      rate_limit: expect.any(Object),
    });
  });

  it('takes a numeric id or the .github/workflows path, and says how to find the run after a bare 204', async () => {
    h.sandbox.servers.github.once('POST /repos/:owner/:repo/actions/workflows/:workflow_id/dispatches', { status: 204 });
    const r = await h.ok('github_create_workflow_dispatch', { ...REPO, workflow: String(ci().id), ref: 'v1.0.0' });
    expect(sent(h)[0]!.path).toBe(`${REPO_PATH}/actions/workflows/${ci().id}/dispatches`);
    expect(sent(h)[0]!.body).toEqual({ ref: 'v1.0.0', return_run_details: true });
    expect(r.workflow_run_id).toBeUndefined();
    expect(r.requested).toBe(true);
    expect(r.note).toMatch(/github_list_workflow_runs with workflow "161335", event workflow_dispatch/);
    await h.ok('github_create_workflow_dispatch', { ...REPO, workflow: '.github/workflows/ci.yml', ref: 'docs' });
    expect(sent(h)[1]!.path).toBe(`${REPO_PATH}/actions/workflows/ci.yml/dispatches`);
  });

  it("passes GitHub's 422s and 404s through with their message", async () => {
    expect(await h.fails('github_create_workflow_dispatch', { ...REPO, workflow: 'nightly.yml', ref: 'main' })).toMatch(/422 .*Workflow does not have 'workflow_dispatch' trigger/);
    expect(await h.fails('github_create_workflow_dispatch', { ...REPO, workflow: 'ci.yml', ref: 'no-such-branch' })).toMatch(/422 .*No ref found for: no-such-branch/);
    expect(await h.fails('github_create_workflow_dispatch', { ...REPO, workflow: 'ci.yml', ref: 'main', inputs: { colour: 'red' } })).toMatch(/Unexpected inputs provided: \["colour"\]/);
    expect(await h.fails('github_create_workflow_dispatch', { ...REPO, workflow: 'deploy.yml', ref: 'main' })).toMatch(/404 to POST .*deploy\.yml\/dispatches \(Not Found\)/);
  });

  it('refuses a workflow that is not a file name or id, and more than 25 inputs, before sending', async () => {
    expect(await h.fails('github_create_workflow_dispatch', { ...REPO, workflow: 'CI', ref: 'main' })).toMatch(/"workflow" must be a workflow file name such as ci\.yml/);
    const inputs = Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`k${i}`, 'v']));
    expect(await h.fails('github_create_workflow_dispatch', { ...REPO, workflow: 'ci.yml', ref: 'main', inputs })).toMatch(/"inputs" has 26 keys; GitHub takes at most 25/);
    expect(lines(h)).toEqual([]);
  });
});

describe('github_disable_workflow / github_enable_workflow', () => {
  it('PUTs disable and enable (204), repeatable, and a disabled workflow refuses dispatches', async () => {
    expect(await h.ok('github_disable_workflow', { ...REPO, workflow: 'ci.yml' })).toMatchObject({ workflow: 'ci.yml', state: 'disabled_manually' });
    await h.ok('github_disable_workflow', { ...REPO, workflow: 'ci.yml' });
    expect(ci().state).toBe('disabled_manually');
    expect(await h.fails('github_create_workflow_dispatch', { ...REPO, workflow: 'ci.yml', ref: 'main' })).toMatch(/disabled workflow/);
    expect(await h.ok('github_enable_workflow', { ...REPO, workflow: '161335' })).toMatchObject({ state: 'active' });
    expect(ci().state).toBe('active');
    expect(sent(h).filter((r) => r.method === 'PUT').map((r) => [r.path, r.body])).toEqual([
      [`${REPO_PATH}/actions/workflows/ci.yml/disable`, undefined],
      [`${REPO_PATH}/actions/workflows/ci.yml/disable`, undefined],
      [`${REPO_PATH}/actions/workflows/161335/enable`, undefined],
    ]);
  });

  it('passes a 404 for an unknown workflow', async () => {
    expect(await h.fails('github_enable_workflow', { ...REPO, workflow: 'gone.yml' })).toMatch(/404 to PUT .*gone\.yml\/enable/);
    expect(await h.fails('github_disable_workflow', { owner: 'sbx-octocat', repo: 'nope', workflow: 'ci.yml' })).toMatch(/404 to PUT/);
  });
});

describe('github_get_workflow_run', () => {
  it('returns the compact run', async () => {
    const seeded = actions().runs.find((r) => r.conclusion === 'failure')!;
    const r = await h.ok('github_get_workflow_run', { ...REPO, run_id: seeded.id });
    expect(lines(h)).toEqual([`GET ${REPO_PATH}/actions/runs/${seeded.id}`]);
    const { rate_limit, ...run } = r;
    expect(rate_limit).toBeDefined();
    expect(run).toEqual({
      id: seeded.id,
      name: 'CI',
      display_title: 'Let the greeting take a name',
      event: 'pull_request',
      status: 'completed',
      conclusion: 'failure',
      head_branch: 'feature/greeting',
      head_sha: helloWorld(h).git.branches['feature/greeting'],
      run_number: 3,
      run_attempt: 1,
      html_url: `https://github.com/sbx-octocat/hello-world/actions/runs/${seeded.id}`,
      created_at: '2025-03-02T10:06:00Z',
      updated_at: '2025-03-02T10:06:42Z',
      actor: 'sbx-monalisa',
    });
  });

  it('passes a 404 for an unknown run', async () => {
    expect(await h.fails('github_get_workflow_run', { ...REPO, run_id: 1 })).toMatch(/404 to GET .*\/actions\/runs\/1 \(Not Found\)/);
  });
});

describe('github_list_workflow_runs', () => {
  it('pages through every run of the repository, newest first, with total_count', async () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    let total = 0;
    for (let pages = 0; pages < 10; pages++) {
      const r = await h.ok('github_list_workflow_runs', { ...REPO, limit: 2, ...(cursor ? { cursor } : {}) });
      total = r.total_count;
      seen.push(...r.workflow_runs.map((x: any) => x.id));
      if (!r.next_cursor) break;
      cursor = r.next_cursor;
    }
    expect(total).toBe(actions().runs.length);
    expect(total).toBeGreaterThan(4);
    expect(new Set(seen).size).toBe(total);
    const byDate = [...actions().runs].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id).map((r) => r.id);
    expect(seen).toEqual(byDate);
    expect(sent(h).map((r) => r.query)).toEqual(Array.from({ length: Math.ceil(total / 2) }, (_, i) => (i === 0 ? { per_page: '2' } : { per_page: '2', page: String(i + 1) })));
    expect(sent(h)[0]!.path).toBe(`${REPO_PATH}/actions/runs`);
  });

  it("sends the filters for one workflow's runs and returns the compact matches", async () => {
    const r = await h.ok('github_list_workflow_runs', { ...REPO, workflow: 'ci.yml', event: 'pull_request', status: 'failure', branch: 'feature/greeting', actor: 'sbx-monalisa', created: '>=2025-03-01' });
    expect(sent(h)).toEqual([
      {
        method: 'GET',
        path: `${REPO_PATH}/actions/workflows/ci.yml/runs`,
        query: { event: 'pull_request', status: 'failure', branch: 'feature/greeting', actor: 'sbx-monalisa', created: '>=2025-03-01', per_page: '30' },
        body: undefined,
      },
    ]);
    expect(r.total_count).toBe(1);
    expect(r.workflow_runs).toEqual([
      expect.objectContaining({ name: 'CI', run_number: 3, conclusion: 'failure', event: 'pull_request', head_branch: 'feature/greeting', actor: 'sbx-monalisa' }),
    ]);
    expect(r.next_cursor).toBeNull();
  });

  it('passes provider errors through', async () => {
    expect(await h.fails('github_list_workflow_runs', { ...REPO, workflow: 'gone.yml' })).toMatch(/404 to GET .*gone\.yml\/runs/);
    expect(await h.fails('github_list_workflow_runs', { owner: 'sbx-octocat', repo: 'nope' })).toMatch(/404 to GET \/repos\/sbx-octocat\/nope\/actions\/runs/);
  });
});
