import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { client, http } from './http.js';

let sandbox: Sandbox;
let api: ReturnType<typeof client>;
let base: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  base = sandbox.baseUrls.vercel;
  api = client(base, { authorization: `Bearer ${SANDBOX_TOKENS.vercel}` });
});
afterAll(() => sandbox.close());

const state = () => sandbox.states.vercel;
const HELLO = 'prj_sbxHelloWorld0000000001';
const TEAM_PROJECT = 'prj_sbxPlatformWeb00000001';

describe('auth and identity', () => {
  it('answers a missing or unknown token with 403 forbidden', async () => {
    const none = await http('GET', `${base}/v2/user`);
    expect(none.status).toBe(403);
    expect(none.body.error).toMatchObject({ code: 'forbidden', message: expect.any(String), missingToken: true });
    const bad = await http('GET', `${base}/v6/deployments`, { headers: { authorization: 'Bearer nope' } });
    expect(bad.status).toBe(403);
    expect(bad.body.error).toMatchObject({ code: 'forbidden', invalidToken: true });
  });

  it('GET /v2/user', async () => {
    const res = await api('GET', '/v2/user');
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: expect.any(String), email: 'sbx-vercel@sbx.example', username: 'sbx-vercel', name: 'Sandbox Vercel', defaultTeamId: null });
  });

  it('sends x-ratelimit headers and counts requests down', async () => {
    const a = await api('GET', '/v2/user');
    const b = await api('GET', '/v2/user');
    expect(a.headers['x-ratelimit-limit']).toBe('1000');
    expect(Number(b.headers['x-ratelimit-remaining'])).toBe(Number(a.headers['x-ratelimit-remaining']) - 1);
    expect(Number(a.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
  });

  it('answers 429 rate_limited when the quota is used up', async () => {
    const saved = state().rateLimit.remaining;
    state().rateLimit.remaining = 0;
    const res = await api('GET', '/v2/user');
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    state().rateLimit.remaining = saved;
  });
});

describe('every path of the spec answers with the right shape', () => {
  const ids: Record<string, string> = {};
  beforeAll(() => {
    ids.ready = state().deployments.find((d) => d.readyState === 'READY' && d.projectId === HELLO)!.uid;
    ids.queued = state().deployments.find((d) => d.readyState === 'QUEUED')!.uid;
    ids.toDelete = state().deployments.find((d) => d.readyState === 'ERROR' && d.projectId === HELLO)!.uid;
    ids.env = state().projects[0]!.env[0]!.id;
    ids.envToDelete = state().projects[0]!.env[2]!.id;
  });
  const rows: Array<{ method: string; path: string; body?: unknown; status: number; check?: (b: any) => void }> = [
    { method: 'GET', path: '/v6/deployments', status: 200, check: (b) => expect(b).toMatchObject({ deployments: expect.any(Array), pagination: { count: expect.any(Number) } }) },
    { method: 'GET', path: '/v13/deployments/{ready}', status: 200, check: (b) => expect(b).toMatchObject({ id: ids.ready, readyState: 'READY', creator: { uid: expect.any(String) }, meta: { githubCommitRef: 'main' } }) },
    { method: 'POST', path: '/v13/deployments', body: { name: 'hello-world', project: HELLO, target: 'production', gitSource: { type: 'github', org: 'sbx-octocat', repo: 'hello-world', ref: 'main' } }, status: 200, check: (b) => expect(b).toMatchObject({ id: expect.stringMatching(/^dpl_/), readyState: 'QUEUED', target: 'production', projectId: HELLO }) },
    { method: 'PATCH', path: '/v12/deployments/{queued}/cancel', status: 200, check: (b) => expect(b.readyState).toBe('CANCELED') },
    { method: 'DELETE', path: '/v13/deployments/{toDelete}', status: 200, check: (b) => expect(b).toEqual({ uid: ids.toDelete, state: 'DELETED' }) },
    { method: 'GET', path: '/v9/projects', status: 200, check: (b) => expect(b.projects.map((p: any) => p.name)).toEqual(['hello-world']) },
    { method: 'GET', path: `/v9/projects/${HELLO}`, status: 200, check: (b) => expect(b).toMatchObject({ id: HELLO, name: 'hello-world', framework: 'nextjs', link: { type: 'github' } }) },
    { method: 'PATCH', path: '/v9/projects/hello-world', body: { buildCommand: 'npm run build' }, status: 200, check: (b) => expect(b.buildCommand).toBe('npm run build') },
    { method: 'POST', path: '/v10/projects', body: { name: 'docs-site', framework: 'astro' }, status: 200, check: (b) => expect(b).toMatchObject({ id: expect.stringMatching(/^prj_/), name: 'docs-site' }) },
    { method: 'DELETE', path: '/v9/projects/docs-site', status: 204 },
    { method: 'GET', path: '/v5/domains', status: 200, check: (b) => expect(b.domains.map((d: any) => d.name)).toEqual(['sbx.example']) },
    { method: 'GET', path: '/v5/domains/sbx.example', status: 200, check: (b) => expect(b.domain).toMatchObject({ name: 'sbx.example', verified: true }) },
    { method: 'POST', path: `/v10/projects/${HELLO}/domains`, body: { name: 'docs.sbx.example' }, status: 200, check: (b) => expect(b).toMatchObject({ name: 'docs.sbx.example', apexName: 'sbx.example', projectId: HELLO, verified: true }) },
    { method: 'DELETE', path: `/v9/projects/${HELLO}/domains/docs.sbx.example`, status: 200, check: (b) => expect(b).toEqual({}) },
    { method: 'GET', path: `/v9/projects/${HELLO}/env`, status: 200, check: (b) => expect(b.envs[0]).toMatchObject({ id: expect.any(String), key: expect.any(String), type: expect.any(String), target: expect.any(Array) }) },
    { method: 'POST', path: `/v10/projects/${HELLO}/env`, body: { key: 'LOG_LEVEL', value: 'debug', type: 'plain', target: ['development'] }, status: 201, check: (b) => expect(b).toMatchObject({ created: { key: 'LOG_LEVEL', value: 'debug' }, failed: [] }) },
    { method: 'PATCH', path: `/v9/projects/${HELLO}/env/{env}`, body: { value: 'https://api2.hello.sbx.example' }, status: 200, check: (b) => expect(b).toMatchObject({ id: ids.env, value: 'https://api2.hello.sbx.example' }) },
    { method: 'DELETE', path: `/v9/projects/${HELLO}/env/{envToDelete}`, status: 200, check: (b) => expect(b.id).toBe(ids.envToDelete) },
    { method: 'GET', path: '/v2/teams', status: 200, check: (b) => expect(b.teams.map((t: any) => t.id)).toEqual(['team_sbx']) },
    { method: 'GET', path: '/v2/teams/team_sbx', status: 200, check: (b) => expect(b).toMatchObject({ id: 'team_sbx', slug: 'sbx-team', membership: { role: 'OWNER' } }) },
    { method: 'GET', path: '/v2/teams/team_sbx/members', status: 200, check: (b) => expect(b.members.map((m: any) => m.role)).toEqual(['OWNER', 'MEMBER', 'VIEWER']) },
  ];
  it.each(rows)('$method $path', async ({ method, path, body, status, check }) => {
    const res = await api(method, path.replace(/\{(\w+)\}/g, (_, k) => ids[k]!), { body });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.headers['x-ratelimit-remaining']).toBeDefined();
    check?.(res.body);
  });
});

describe('teams', () => {
  it('teamId selects the team; team resources are invisible without it', async () => {
    const mine = await api('GET', '/v9/projects');
    expect(mine.body.projects.map((p: any) => p.id)).not.toContain(TEAM_PROJECT);
    const team = await api('GET', '/v9/projects?teamId=team_sbx');
    expect(team.body.projects.map((p: any) => p.id)).toEqual([TEAM_PROJECT]);
    expect((await api('GET', `/v9/projects/${TEAM_PROJECT}`)).status).toBe(404);
    const found = await api('GET', `/v9/projects/${TEAM_PROJECT}?teamId=team_sbx`);
    expect(found.body.accountId).toBe('team_sbx');
    const bySlug = await api('GET', '/v6/deployments?slug=sbx-team');
    expect(bySlug.body.deployments.every((d: any) => d.projectId === TEAM_PROJECT)).toBe(true);
    const teamDeployment = state().deployments.find((d) => d.projectId === TEAM_PROJECT)!.uid;
    expect((await api('GET', `/v13/deployments/${teamDeployment}`)).body.error).toMatchObject({ code: 'not_found' });
    expect((await api('GET', `/v13/deployments/${teamDeployment}?teamId=team_sbx`)).body.team).toMatchObject({ id: 'team_sbx' });
  });

  it('refuses a team the user does not belong to', async () => {
    const res = await api('GET', '/v9/projects?teamId=team_other');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    const other = await api('GET', '/v2/teams/team_other');
    expect(other.status).toBe(403);
    expect(other.body).toEqual({ error: { code: 'forbidden', message: 'Not authorized' } });
    expect((await api('GET', '/v2/teams/someone-else')).status).toBe(403);
    const none = await api('GET', '/v2/teams/team_nope');
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ error: { code: 'not_found', message: 'Team not found' } });
  });

  it('GET /v2/teams/:idOrSlug finds a team by its slug too', async () => {
    const res = await api('GET', '/v2/teams/sbx-team');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'team_sbx', slug: 'sbx-team', name: 'Sandbox Team', membership: { role: 'OWNER', teamId: 'team_sbx' } });
  });

  it('serves members on /v3 too', async () => {
    const res = await api('GET', '/v3/teams/team_sbx/members?role=VIEWER');
    expect(res.body.members.map((m: any) => m.username)).toEqual(['sbx-viewer']);
  });
});

describe('deployments', () => {
  it('lists on /v6 and /v7 newest first, paging with until = pagination.next', async () => {
    const seen: string[] = [];
    let url = '/v7/deployments?limit=2';
    for (let i = 0; i < 10; i++) {
      const res = await api('GET', url);
      expect(res.body.deployments.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.deployments.map((d: any) => d.uid));
      if (res.body.pagination.next === null) break;
      url = `/v7/deployments?limit=2&until=${res.body.pagination.next}`;
    }
    const expected = state().deployments.filter((d) => d.ownerId === state().user.id).sort((a, b) => b.createdAt - a.createdAt).map((d) => d.uid);
    expect(seen).toEqual(expected);
    const v6 = await api('GET', '/v6/deployments?limit=100');
    expect(v6.body.deployments.map((d: any) => d.uid)).toEqual(expected);
    expect(v6.body.deployments[0]).toMatchObject({ uid: expect.any(String), name: expect.any(String), url: expect.stringContaining('.vercel.app'), created: expect.any(Number), state: expect.any(String), readyState: expect.any(String), creator: { uid: expect.any(String) } });
  });

  it('filters by state, target and project', async () => {
    const errors = await api('GET', `/v6/deployments?teamId=team_sbx&state=ERROR,BUILDING`);
    expect(errors.body.deployments.map((d: any) => d.readyState).sort()).toEqual(['BUILDING', 'ERROR']);
    const prod = await api('GET', `/v6/deployments?projectId=${HELLO}&target=production`);
    expect(prod.body.deployments.every((d: any) => d.target === 'production')).toBe(true);
  });

  it('create, get, cancel, delete change what later reads see', async () => {
    const created = await api('POST', '/v13/deployments', { body: { name: 'hello-world', gitSource: { type: 'github', org: 'sbx-octocat', repo: 'hello-world', ref: 'feature/greeting' }, meta: { reason: 'test' } } });
    expect(created.body).toMatchObject({ readyState: 'QUEUED', target: null, meta: { githubCommitRef: 'feature/greeting', reason: 'test' } });
    const id = created.body.id;
    expect((await api('GET', `/v13/deployments/${id}`)).body.readyState).toBe('QUEUED');
    expect((await api('GET', `/v13/deployments/${created.body.url}`)).body.id).toBe(id);
    expect((await api('PATCH', `/v12/deployments/${id}/cancel`)).body.readyState).toBe('CANCELED');
    const again = await api('PATCH', `/v12/deployments/${id}/cancel`);
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBeDefined();
    expect((await api('DELETE', `/v13/deployments/${id}`)).status).toBe(200);
    expect((await api('GET', `/v13/deployments/${id}`)).status).toBe(404);
  });

  it('refuses a deployment without a name, with target preview, or without a source', async () => {
    const noName = await api('POST', '/v13/deployments', { body: { gitSource: { type: 'github', ref: 'main' } } });
    expect(noName.status).toBe(400);
    expect(noName.body.error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('name') });
    expect((await api('POST', '/v13/deployments', { body: { name: 'hello-world', target: 'preview', gitSource: { type: 'github', ref: 'main' } } })).status).toBe(400);
    expect((await api('POST', '/v13/deployments', { body: { name: 'hello-world' } })).status).toBe(400);
  });

  it('creates a project on first deployment of an unknown name', async () => {
    const res = await api('POST', '/v13/deployments?teamId=team_sbx', { body: { name: 'brand-new', files: [{ file: 'index.html', data: '<h1>hi</h1>' }] } });
    expect(res.status).toBe(200);
    expect((await api('GET', '/v9/projects/brand-new?teamId=team_sbx')).body.name).toBe('brand-new');
  });
});

describe('projects, env and domains', () => {
  it('env values: plain shown, encrypted hidden unless decrypt=true, sensitive never', async () => {
    const list = await api('GET', `/v9/projects/${HELLO}/env`);
    const db = list.body.envs.find((e: any) => e.key === 'DATABASE_URL');
    expect(db.value).not.toContain('postgres://');
    const decrypted = await api('GET', `/v9/projects/${HELLO}/env?decrypt=true`);
    expect(decrypted.body.envs.find((e: any) => e.key === 'DATABASE_URL').value).toContain('postgres://');
    const team = await api('GET', `/v9/projects/${TEAM_PROJECT}/env?teamId=team_sbx&decrypt=true`);
    expect(team.body.envs.find((e: any) => e.key === 'STRIPE_SECRET_KEY').value).toBe('');
  });

  it('env create refuses duplicates unless upsert, and validates fields', async () => {
    const dup = await api('POST', `/v10/projects/${HELLO}/env`, { body: { key: 'API_URL', value: 'x', type: 'plain', target: ['production'] } });
    expect(dup.status).toBe(400);
    expect(dup.body.error.code).toBe('ENV_ALREADY_EXISTS');
    const upsert = await api('POST', `/v10/projects/${HELLO}/env?upsert=true`, { body: { key: 'API_URL', value: 'https://x.example', type: 'plain', target: ['production'] } });
    expect(upsert.status).toBe(201);
    const many = await api('POST', `/v10/projects/${HELLO}/env`, { body: [{ key: 'A', value: '1', type: 'plain', target: ['preview'] }, { key: 'DATABASE_URL', value: 'y', type: 'encrypted', target: ['production'] }] });
    expect(many.body.created).toHaveLength(1);
    expect(many.body.failed).toHaveLength(1);
    expect((await api('POST', `/v10/projects/${HELLO}/env`, { body: { key: 'B', value: '1', type: 'plain', target: ['staging'] } })).status).toBe(400);
    const listed = await api('GET', `/v10/projects/${HELLO}/env`);
    expect(listed.body.envs.map((e: any) => e.key)).toContain('A');
  });

  it('domains: invalid names, conflicts, and a pending verification outside owned apexes', async () => {
    expect((await api('POST', `/v10/projects/${HELLO}/domains`, { body: { name: 'not a domain' } })).body.error.code).toBe('invalid_domain');
    expect((await api('POST', `/v10/projects/${HELLO}/domains`, { body: { name: 'hello.sbx.example' } })).status).toBe(409);
    const pending = await api('POST', `/v10/projects/${HELLO}/domains`, { body: { name: 'shop.elsewhere.example' } });
    expect(pending.body).toMatchObject({ verified: false, verification: [{ type: 'TXT' }] });
    const list = await api('GET', `/v9/projects/${HELLO}/domains`);
    expect(list.body.domains.map((d: any) => d.name)).toContain('shop.elsewhere.example');
  });

  it('project names are unique per owner', async () => {
    const res = await api('POST', '/v10/projects', { body: { name: 'hello-world' } });
    expect(res.status).toBe(409);
    expect((await api('POST', '/v10/projects?teamId=team_sbx', { body: { name: 'hello-world' } })).status).toBe(200);
  });
});
