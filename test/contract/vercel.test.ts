import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVercelState, SANDBOX_TOKENS, vercelRoutes } from '../../src/sandbox/index.js';
import { startHarness, type Harness } from '../harness.js';
import { checkExchanges, summary, uncovered, type ContractReport, type Definition } from './check.js';
import { vercelDefinition } from './vercel-sdk.js';

/** Routes of the Vercel stand-in that Vercel's API does not have, and why. */
const EXEMPT: Record<string, string> = {
  'POST /_sandbox/vercel/deployments/:id/advance': "the sandbox's own control: moves a build along",
  'POST /_sandbox/vercel/events/:id/redeliver': "the sandbox's own control: sends a webhook again",
  'GET /_sandbox/vercel/deliveries': "the sandbox's own control: lists webhook deliveries",
};
const HELLO = 'prj_sbxHelloWorld0000000001';

let h: Harness;
let report: ContractReport;
let definition: Definition;

/** Calls the Vercel stand-in as the sample account would, for the routes no tool reaches. */
async function vercel(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(h.sandbox.baseUrls.vercel + path, {
    method,
    headers: { authorization: `Bearer ${SANDBOX_TOKENS.vercel}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

beforeAll(async () => {
  h = await startHarness({ listen: true });
  await h.store.accounts.add({ provider: 'vercel', label: 'team', identity: 'sbx-vercel', meta: { teamId: 'team_sbx' }, secret: { kind: 'token', token: SANDBOX_TOKENS.vercel } });
  await driveTools();
  await driveRest();
  definition = await vercelDefinition();
  report = await checkExchanges(definition, h.sandbox.servers.vercel.exchanges, EXEMPT);
  console.log(summary('Vercel', report, Object.keys(vercelRoutes(createVercelState())).length));
}, 120_000);
afterAll(() => h?.close());

async function driveTools() {
  const created = await h.ok('vercel_create_deployment', { project: 'hello-world', branch: 'main', environment: 'production' });
  await h.ok('vercel_create_deployment', { account: 'team', project: 'platform-web', branch: 'staging', repo_id: 500003 });
  await h.ok('vercel_list_deployments', { project: 'hello-world', environment: 'production', state: ['READY', 'BUILDING'], limit: 5 });
  await h.ok('vercel_list_deployments', { account: 'team', environment: 'preview' });
  await h.ok('vercel_cancel_deployment', { id: created.id });
  const trigger = await h.ok('triggers_create', { kind: 'vercel.deployment_completed', account: 'team', config: { project: 'platform-web', environment: 'preview' } });
  await h.ok('triggers_delete', { id: trigger.trigger.id });
}

async function driveRest() {
  await vercel('GET', '/v2/user');
  await vercel('GET', '/v2/teams');
  await vercel('GET', '/v2/teams/team_sbx');
  await vercel('GET', '/v2/teams/team_sbx/members');
  await vercel('GET', '/v3/teams/team_sbx/members?role=VIEWER');
  await vercel('GET', '/v6/deployments?limit=2');
  await vercel('GET', '/v7/deployments?limit=2');
  const deployment = await vercel('POST', '/v13/deployments', { name: 'hello-world', gitSource: { type: 'github', org: 'sbx-octocat', repo: 'hello-world', ref: 'feature/greeting' }, meta: { reason: 'test' } });
  await vercel('GET', `/v13/deployments/${deployment.id}`);
  await vercel('DELETE', `/v13/deployments/${deployment.id}`);
  await vercel('GET', '/v9/projects');
  await vercel('GET', '/v10/projects');
  await vercel('POST', '/v10/projects', { name: 'contract-one' });
  const project = await vercel('POST', '/v11/projects', { name: 'contract-two' });
  await vercel('GET', `/v9/projects/${HELLO}`);
  await vercel('PATCH', `/v9/projects/${project.id}`, { buildCommand: 'npm run build' });
  await vercel('POST', `/v10/projects/${HELLO}/domains`, { name: 'shop.elsewhere.example' });
  await vercel('GET', `/v9/projects/${HELLO}/domains`);
  await vercel('GET', `/v9/projects/${HELLO}/domains/shop.elsewhere.example`);
  await vercel('DELETE', `/v9/projects/${HELLO}/domains/shop.elsewhere.example`);
  await vercel('GET', `/v9/projects/${HELLO}/env`);
  const env = await vercel('POST', `/v10/projects/${HELLO}/env`, { key: 'CONTRACT', value: '1', type: 'plain', target: ['preview'] });
  const envId = env.created?.id ?? env.created?.[0]?.id;
  await vercel('GET', `/v10/projects/${HELLO}/env`);
  await vercel('GET', `/v1/projects/${HELLO}/env/${envId}`);
  await vercel('PATCH', `/v9/projects/${HELLO}/env/${envId}`, { value: '2' });
  await vercel('DELETE', `/v9/projects/${HELLO}/env/${envId}`);
  await vercel('DELETE', `/v9/projects/${project.id}`);
  await vercel('GET', '/v5/domains');
  await vercel('GET', '/v5/domains/hello.sbx.example');
  const hook = await vercel('POST', '/v1/webhooks', { url: 'https://hooks.example/vercel', events: ['deployment.succeeded'] });
  await vercel('GET', '/v1/webhooks');
  await vercel('GET', `/v1/webhooks/${hook.id}`);
  await vercel('DELETE', `/v1/webhooks/${hook.id}`);
}

describe("the Vercel stand-in, held to the API's models in @vercel/sdk", () => {
  it('sends and answers only what the models allow', () => {
    expect(report.problems).toEqual([]);
  });

  it('is checked on every route it serves', () => {
    expect(uncovered(Object.keys(vercelRoutes(createVercelState())), report.routes, EXEMPT)).toEqual([]);
  });

  it('fails an answer or a request that drifts from the models', async () => {
    const exchanges = h.sandbox.servers.vercel.exchanges;
    const project = exchanges.find((e) => e.route === 'GET /v9/projects/:id' && e.status === 200)!;
    const { accountId: _gone, ...rest } = JSON.parse(String(project.payload));
    const hook = exchanges.find((e) => e.route === 'POST /v1/webhooks' && e.status === 200)!;
    const body = { ...hook.request.body, events: 'deployment.succeeded' };
    const drifted = [
      { ...project, payload: JSON.stringify({ ...rest, name: 42 }) },
      { ...hook, request: { ...hook.request, query: new URLSearchParams('teamId=team_sbx&colour=red'), body, rawBody: Buffer.from(JSON.stringify(body)) } },
    ];
    const { problems } = await checkExchanges(definition, drifted);
    expect(problems).toEqual([
      expect.stringMatching(/: answer\/accountId is required but missing$/),
      expect.stringMatching(/: answer\/name is 42, of the wrong type$/),
      expect.stringMatching(/: query parameter 'colour' is not documented$/),
      expect.stringMatching(/: request body\/events Expected array, received string$/),
    ]);
  });
});
