import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_TOKENS } from '../../src/sandbox/index.js';
import type { SandboxRequest } from '../../src/sandbox/server.js';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
const HELLO = 'prj_sbxHelloWorld0000000001';
const TEAM_PROJECT = 'prj_sbxPlatformWeb00000001';
const SHA = '0123456789abcdef0123456789abcdef01234567';

beforeAll(async () => {
  // Until src/connectors/index.ts lists them, the tools are added to the harness here.
  h = await startHarness();
  const token = { kind: 'token' as const, token: SANDBOX_TOKENS.vercel };
  await h.store.accounts.add({ provider: 'vercel', label: 'team', identity: 'sbx-vercel', meta: { teamId: 'team_sbx' }, secret: token });
  await h.store.accounts.add({ provider: 'vercel', label: 'stranger', identity: 'sbx-vercel', meta: { teamId: 'team_other' }, secret: token });
});
afterAll(() => h.close());
beforeEach(() => h.sandbox.servers.vercel.reset());

const state = () => h.sandbox.states.vercel;
const requests = () => h.sandbox.servers.vercel.requests;
const route = (r: SandboxRequest) => `${r.method} ${r.path}`;
const query = (r: SandboxRequest) => Object.fromEntries(r.query);
const byState = (s: string, projectId = HELLO) => state().deployments.find((d) => d.readyState === s && d.projectId === projectId)!;

describe('tools/list', () => {
  it('lists the three tools with annotations from their effect and compact schemas', async () => {
    const { tools } = await h.client.listTools();
    const mine = new Map(tools.filter((t) => /^vercel_(create|list|cancel)_deployments?$/.test(t.name)).map((t) => [t.name, t]));
    expect([...mine.keys()].sort()).toEqual(['vercel_cancel_deployment', 'vercel_create_deployment', 'vercel_list_deployments']);
    expect(mine.get('vercel_list_deployments')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(mine.get('vercel_create_deployment')!.annotations).toEqual({ destructiveHint: false });
    expect(mine.get('vercel_cancel_deployment')!.annotations).toEqual({ destructiveHint: true, idempotentHint: true });
    for (const t of mine.values()) {
      // What a model is handed (name, description, input schema) within 300 tokens (o200k_base), the typed output schema within 400.
      const visible = JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema });
      expect(countTokens(visible), t.name).toBeLessThanOrEqual(300);
      expect(countTokens(JSON.stringify(t.outputSchema)), t.name).toBeLessThanOrEqual(400);
      expect(t.inputSchema.properties, t.name).toHaveProperty('account');
      expect(t.outputSchema!.properties, t.name).toHaveProperty('rate_limit');
    }
  });
});

describe('vercel_create_deployment', () => {
  it('deploys the branch of the project\'s linked repository to production', async () => {
    const r = await h.ok('vercel_create_deployment', { project: 'hello-world', branch: 'main', environment: 'production' });
    expect(requests().map(route)).toEqual(['GET /v9/projects/hello-world', 'POST /v13/deployments']);
    const post = requests()[1]!;
    expect(post.body).toEqual({ name: 'hello-world', project: HELLO, target: 'production', gitSource: { type: 'github', repoId: 500001, ref: 'main' } });
    expect(query(post)).toEqual({});
    const created = state().deployments.find((d) => d.uid === r.id)!;
    expect(created).toMatchObject({ projectId: HELLO, target: 'production', readyState: 'QUEUED' });
    expect(r).toEqual({
      id: created.uid,
      url: `https://${created.url}`,
      status: 'QUEUED',
      target: 'production',
      inspectorUrl: expect.stringMatching(/^https:\/\/vercel\.com\/sbx-vercel\/hello-world\//),
      rate_limit: { remaining: state().rateLimit.remaining, limit: 1000, reset: state().rateLimit.reset },
    });
  });

  it('maps preview to no target, and sends repo and commit as the gitSource', async () => {
    const r = await h.ok('vercel_create_deployment', { project: HELLO, branch: 'feature/greeting', environment: 'preview', repo: 'sbx-octocat/hello-world', commit: SHA });
    const post = requests().find((x) => x.method === 'POST')!;
    expect(post.body).toEqual({ name: 'hello-world', project: HELLO, gitSource: { type: 'github', org: 'sbx-octocat', repo: 'hello-world', ref: 'feature/greeting', sha: SHA } });
    expect(post.body).not.toHaveProperty('target');
    expect(r).toMatchObject({ status: 'QUEUED', target: null });
    expect(state().deployments.find((d) => d.uid === r.id)!.meta).toMatchObject({ githubCommitRef: 'feature/greeting', githubCommitSha: SHA });
  });

  it('sends teamId on every request of a team account, and repo_id as repoId', async () => {
    const r = await h.ok('vercel_create_deployment', { account: 'team', project: 'platform-web', branch: 'staging', repo_id: 500003 });
    expect(requests().map((x) => [route(x), x.query.get('teamId')])).toEqual([
      ['GET /v9/projects/platform-web', 'team_sbx'],
      ['POST /v13/deployments', 'team_sbx'],
    ]);
    expect(requests()[1]!.body).toEqual({ name: 'platform-web', project: TEAM_PROJECT, gitSource: { type: 'github', repoId: 500003, ref: 'staging' } });
    expect(state().deployments.find((d) => d.uid === r.id)!.ownerId).toBe('team_sbx');
  });

  it('refuses development with what to use instead, and sends nothing', async () => {
    const text = await h.fails('vercel_create_deployment', { project: 'hello-world', branch: 'main', environment: 'development' });
    expect(text).toMatch(/cannot create a "development" deployment/);
    expect(text).toMatch(/vercel dev/);
    expect(text).toMatch(/"preview"/);
    expect(requests()).toEqual([]);
  });

  it('refuses repo with repo_id, a malformed repo and a short commit before sending anything', async () => {
    expect(await h.fails('vercel_create_deployment', { project: 'hello-world', branch: 'main', repo: 'a/b', repo_id: 1 })).toMatch(/"repo" or "repo_id", not both/);
    expect(await h.fails('vercel_create_deployment', { project: 'hello-world', branch: 'main', repo: 'hello-world' })).toMatch(/"repo" must be owner\/name/);
    expect(await h.fails('vercel_create_deployment', { project: 'hello-world', branch: 'main', commit: 'abc1234' })).toMatch(/"commit" must be a full 40-character commit SHA/);
    expect(requests()).toEqual([]);
  });

  it('refuses an unknown project instead of letting Vercel create one by that name', async () => {
    const before = state().projects.length;
    const text = await h.fails('vercel_create_deployment', { project: 'helo-world', branch: 'main' });
    expect(text).toMatch(/No Vercel project "helo-world"/);
    expect(requests().map(route)).toEqual(['GET /v9/projects/helo-world']);
    expect(state().projects.length).toBe(before);
  });

  it('passes a provider error through with status, code and message', async () => {
    h.sandbox.servers.vercel.once('POST /v13/deployments', { status: 402, body: { error: { code: 'payment_required', message: 'Upgrade to deploy more' } } });
    const text = await h.fails('vercel_create_deployment', { project: 'hello-world', branch: 'main' });
    expect(text).toMatch(/Vercel answered 402 to POST \/v13\/deployments \(payment_required: Upgrade to deploy more\)/);
    expect(requests().filter((x) => x.method === 'POST')).toHaveLength(1);
  });
});

describe('vercel_list_deployments', () => {
  it('maps every filter onto GET /v6/deployments and answers compact rows', async () => {
    const since = '2000-01-01T00:00:00Z';
    const until = String(Date.now() + 60_000);
    const r = await h.ok('vercel_list_deployments', { project: 'hello-world', environment: 'production', state: ['READY', 'BUILDING'], since, until, limit: 5 });
    expect(requests().map(route)).toEqual(['GET /v6/deployments']);
    expect(query(requests()[0]!)).toEqual({ projectId: 'hello-world', target: 'production', state: 'READY,BUILDING', since: String(Date.parse(since)), until, limit: '5' });
    const expected = state().deployments
      .filter((d) => d.projectId === HELLO && d.target === 'production' && ['READY', 'BUILDING'].includes(d.readyState))
      .sort((a, b) => b.createdAt - a.createdAt);
    expect(expected.length).toBeGreaterThanOrEqual(2);
    expect(r.deployments.map((d: { uid: string }) => d.uid)).toEqual(expected.map((d) => d.uid));
    expect(r.deployments[0]).toEqual({
      uid: expected[0]!.uid,
      name: 'hello-world',
      url: `https://${expected[0]!.url}`,
      state: expected[0]!.readyState,
      target: 'production',
      created: new Date(expected[0]!.createdAt).toISOString(),
      creator: 'sbx-vercel',
      ref: 'main',
      sha: expected[0]!.meta.githubCommitSha,
    });
    expect(r.next_cursor).toBeNull();
    expect(r.rate_limit).toEqual({ remaining: state().rateLimit.remaining, limit: 1000, reset: state().rateLimit.reset });
  });

  it('lists a team account\'s deployments with teamId, preview ones with target=preview', async () => {
    const r = await h.ok('vercel_list_deployments', { account: 'team', environment: 'preview' });
    expect(query(requests()[0]!)).toMatchObject({ teamId: 'team_sbx', target: 'preview' });
    expect(r.deployments.length).toBeGreaterThan(0);
    expect(r.deployments.every((d: { name: string; target: string | null }) => d.name === 'platform-web' && d.target === null)).toBe(true);
  });

  it('pages with the cursor: until = pagination.next, the filters kept, no row twice', async () => {
    const all = state().deployments.filter((d) => d.projectId === HELLO).sort((a, b) => b.createdAt - a.createdAt);
    const size = Math.ceil(all.length / 2);
    const first = await h.ok('vercel_list_deployments', { project: HELLO, limit: size });
    expect(first.deployments).toHaveLength(size);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await h.ok('vercel_list_deployments', { cursor: first.next_cursor });
    expect(query(requests()[1]!)).toEqual({ projectId: HELLO, limit: String(size), until: String(all[size - 1]!.createdAt) });
    expect(second.next_cursor).toBeNull();
    expect([...first.deployments, ...second.deployments].map((d: { uid: string }) => d.uid)).toEqual(all.map((d) => d.uid));
  });

  it('refuses a foreign cursor, a bad time and development by name, sending nothing', async () => {
    expect(await h.fails('vercel_list_deployments', { cursor: 'gh1.abc' })).toMatch(/"cursor" is not a next_cursor/);
    expect(await h.fails('vercel_list_deployments', { since: 'yesterday' })).toMatch(/"since" must be an ISO 8601 time/);
    expect(await h.fails('vercel_list_deployments', { environment: 'development' })).toMatch(/Vercel has no "development" deployments/);
    expect(requests()).toEqual([]);
  });

  it('passes a provider error through: a team the token does not belong to', async () => {
    const text = await h.fails('vercel_list_deployments', { account: 'stranger' });
    expect(text).toMatch(/Vercel answered 403 to GET \/v6\/deployments \(forbidden: Not authorized\)/);
    expect(query(requests()[0]!)).toMatchObject({ teamId: 'team_other' });
  });
});

describe('vercel_cancel_deployment', () => {
  it('cancels a queued deployment after reading its state', async () => {
    const queued = byState('QUEUED');
    const r = await h.ok('vercel_cancel_deployment', { id: queued.uid });
    expect(requests().map(route)).toEqual([`GET /v13/deployments/${queued.uid}`, `PATCH /v12/deployments/${queued.uid}/cancel`]);
    expect(r).toEqual({ canceled: true, id: queued.uid, state: 'CANCELED', rate_limit: expect.objectContaining({ remaining: state().rateLimit.remaining }) });
    expect(queued.readyState).toBe('CANCELED');
    const again = await h.ok('vercel_cancel_deployment', { id: queued.uid });
    expect(again).toMatchObject({ canceled: false, state: 'CANCELED' });
  });

  it('leaves a READY deployment alone and says so', async () => {
    const ready = byState('READY');
    const r = await h.ok('vercel_cancel_deployment', { id: `https://${ready.url}` });
    expect(requests().map(route)).toEqual([`GET /v13/deployments/${ready.url}`]);
    expect(r).toMatchObject({ canceled: false, id: ready.uid, state: 'READY', note: expect.stringMatching(/is READY\. Only QUEUED, INITIALIZING or BUILDING .* nothing was changed/) });
    expect(ready.readyState).toBe('READY');
  });

  it('sends teamId on both requests of a team account', async () => {
    const building = byState('BUILDING', TEAM_PROJECT);
    const r = await h.ok('vercel_cancel_deployment', { account: 'team', id: building.uid });
    expect(r).toMatchObject({ canceled: true, state: 'CANCELED' });
    expect(requests().map((x) => [x.method, x.query.get('teamId')])).toEqual([
      ['GET', 'team_sbx'],
      ['PATCH', 'team_sbx'],
    ]);
  });

  it('answers the new state when the build finished between the read and the cancel', async () => {
    const ready = state().deployments.filter((d) => d.readyState === 'READY' && d.projectId === HELLO)[1]!;
    h.sandbox.servers.vercel.once('GET /v13/deployments/:idOrUrl', { status: 200, body: { id: ready.uid, readyState: 'BUILDING' } });
    const r = await h.ok('vercel_cancel_deployment', { id: ready.uid });
    expect(requests().map((x) => x.method)).toEqual(['GET', 'PATCH', 'GET']);
    expect(r).toMatchObject({ canceled: false, state: 'READY', note: expect.stringMatching(/became READY before the cancel arrived/) });
  });

  it('passes a provider error through for an unknown id', async () => {
    const text = await h.fails('vercel_cancel_deployment', { id: 'dpl_nope' });
    expect(text).toMatch(/Vercel answered 404 to GET \/v13\/deployments\/dpl_nope \(not_found: Deployment not found\)/);
    expect(requests().filter((x) => x.method === 'PATCH')).toEqual([]);
  });
});
