import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectAccount } from '../../src/accounts/commands.js';
import {
  createGithubState,
  createOutlookState,
  githubEnterpriseRoutes,
  outlookRoutes,
  startSandboxServer,
  type SandboxServer,
} from '../../src/sandbox/index.js';
import { startHarness, type Harness } from '../harness.js';

/**
 * Accounts on other hosts: a second GitHub sandbox laid out as GitHub Enterprise Server (/api/v3, /api/graphql) and a
 * second Graph sandbox standing in for a national cloud, next to the harness's sandboxes, which the connectors reach
 * through their process-wide base URLs (what SWITCHBOARD_<P>_BASE_URL sets).
 */

const GHES_TOKEN = 'ghes-token-0000enterprise';
const GOV_TOKEN = 'gov-graph-token-0000cloud';

let h: Harness;
let ghes: SandboxServer;
let gov: SandboxServer;
const ghesState = createGithubState();
const govState = createOutlookState();

beforeAll(async () => {
  h = await startHarness();
  ghesState.tokens = new Set([GHES_TOKEN]);
  ghesState.repos.find((r) => r.name === 'hello-world')!.description = 'On the enterprise server';
  govState.tokens = new Set([GOV_TOKEN]);
  ghes = await startSandboxServer('github-enterprise', githubEnterpriseRoutes(ghesState));
  gov = await startSandboxServer('outlook-national-cloud', outlookRoutes(govState));
  const deps = { store: h.store, baseUrls: h.deps.baseUrls, redactor: h.deps.redactor };
  await connectAccount(deps, { provider: 'github', label: 'enterprise', baseUrl: `${ghes.url}/api/v3`, secret: { kind: 'token', token: GHES_TOKEN } });
  await connectAccount(deps, { provider: 'outlook', label: 'gov', baseUrl: `${gov.url}/v1.0`, secret: { kind: 'token', token: GOV_TOKEN } });
});
afterAll(async () => {
  await ghes?.close();
  await gov?.close();
  await h?.close();
});
beforeEach(() => {
  for (const s of [ghes, gov, h.sandbox.servers.github, h.sandbox.servers.outlook]) s.reset();
});

const paths = (s: SandboxServer) => s.requests.map((r) => `${r.method} ${r.path}`);
const dotcom = () => h.sandbox.servers.github;

describe('an account on its own host', () => {
  it('is identified at its host when added, and stored with its base URL', async () => {
    const enterprise = await h.store.accounts.find('enterprise', 'github');
    expect(enterprise).toMatchObject({ identity: 'sbx-octocat', baseUrl: `${ghes.url}/api/v3` });
    expect((await h.store.accounts.find('sample', 'github'))!.baseUrl).toBeNull();
  });

  it("sends each account's tool calls to its own host, with its own token", async () => {
    const onServer = await h.ok('github_get_repository', { owner: 'sbx-octocat', repo: 'hello-world', account: 'enterprise' });
    expect(onServer.description).toBe('On the enterprise server');
    expect(paths(ghes)).toEqual(['GET /api/v3/repos/sbx-octocat/hello-world']);
    expect(ghes.requests[0]!.headers.authorization).toBe(`Bearer ${GHES_TOKEN}`);
    expect(paths(dotcom())).toEqual([]);

    const onDotcom = await h.ok('github_get_repository', { owner: 'sbx-octocat', repo: 'hello-world', account: 'sample' });
    expect(onDotcom.description).not.toBe('On the enterprise server');
    expect(paths(dotcom())).toEqual(['GET /repos/sbx-octocat/hello-world']);
    expect(paths(ghes)).toHaveLength(1);
  });

  it("sends GraphQL to GitHub Enterprise Server's /api/graphql", async () => {
    const r = await h.ok('github_update_project_item_status', {
      account: 'enterprise',
      project_url: 'https://github.com/orgs/sbx-org/projects/1',
      item_url: 'https://github.com/sbx-octocat/hello-world/issues/3',
      status: 'Done',
    });
    expect(r.status).toBe('Done');
    expect(paths(ghes)).toEqual(['POST /api/graphql', 'POST /api/graphql', 'POST /api/graphql']);
    expect(paths(dotcom())).toEqual([]);
  });

  it("lets the API Call reach only the account's own base: the other host and paths beside the base are refused unsent", async () => {
    const accept = { accept: 'application/vnd.github+json' };
    const own = await h.ok('github_api_call', { account: 'enterprise', method: 'GET', endpoint: '/user', headers: accept });
    expect(own.status).toBe(200);
    expect(paths(ghes)).toEqual(['GET /api/v3/user']);

    const toDotcom = await h.fails('github_api_call', { account: 'enterprise', method: 'GET', endpoint: `${h.sandbox.baseUrls.github}/user`, headers: accept });
    expect(toDotcom).toContain(`only reaches ${ghes.url}/api/v3`);
    const besideBase = await h.fails('github_api_call', { account: 'enterprise', method: 'GET', endpoint: `${ghes.url}/api/graphql`, headers: accept });
    expect(besideBase).toContain(`only reaches ${ghes.url}/api/v3`);
    const toEnterprise = await h.fails('github_api_call', { account: 'sample', method: 'GET', endpoint: `${ghes.url}/api/v3/user`, headers: accept });
    expect(toEnterprise).toContain(`only reaches ${h.sandbox.baseUrls.github}`);
    expect(paths(ghes)).toEqual(['GET /api/v3/user']);
    expect(paths(dotcom())).toEqual([]);
  });

  it("pages through a national cloud's folders on its host, and its cursor is refused by an account elsewhere", async () => {
    const first = await h.ok('outlook_list_folders', { account: 'gov', limit: 3 });
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await h.ok('outlook_list_folders', { account: 'gov', cursor: first.next_cursor });
    expect([...first.folders, ...second.folders].map((f: { displayName: string }) => f.displayName)).toContain('Inbox');
    expect(gov.requests.map((r) => r.path)).toEqual(['/v1.0/me/mailFolders', '/v1.0/me/mailFolders']);
    expect(gov.requests.every((r) => r.headers.authorization === `Bearer ${GOV_TOKEN}`)).toBe(true);

    const elsewhere = await h.fails('outlook_list_folders', { account: 'sample', cursor: first.next_cursor });
    expect(elsewhere).toMatch(/only reaches/);
    expect(h.sandbox.servers.outlook.requests).toEqual([]);
    expect(gov.requests).toHaveLength(2);
  });

  it('is listed with base_url by accounts_list and the accounts resource; the others without one', async () => {
    const { accounts } = await h.ok('accounts_list');
    const byLabel = (list: Array<{ provider: string; label: string }>, provider: string, label: string) => list.find((a) => a.provider === provider && a.label === label)!;
    expect(byLabel(accounts, 'github', 'enterprise')).toMatchObject({ base_url: `${ghes.url}/api/v3` });
    expect(byLabel(accounts, 'outlook', 'gov')).toMatchObject({ base_url: `${gov.url}/v1.0` });
    expect(byLabel(accounts, 'github', 'sample')).not.toHaveProperty('base_url');

    const resource = await h.client.readResource({ uri: 'switchboard://accounts' });
    const listed = JSON.parse((resource.contents[0] as { text: string }).text).accounts;
    expect(byLabel(listed, 'github', 'enterprise')).toMatchObject({ base_url: `${ghes.url}/api/v3` });
    expect(byLabel(listed, 'github', 'sample')).not.toHaveProperty('base_url');
    expect(JSON.stringify(listed)).not.toContain(GHES_TOKEN);
  });

  it('is not stored when its token is refused at its host, nor is a token of one host taken for the other', async () => {
    const deps = { store: h.store, baseUrls: h.deps.baseUrls, redactor: h.deps.redactor };
    const before = (await h.store.accounts.list()).length;
    await expect(connectAccount(deps, { provider: 'github', label: 'wrong-host', secret: { kind: 'token', token: GHES_TOKEN } })).rejects.toThrow(/401/);
    await expect(
      connectAccount(deps, { provider: 'github', label: 'wrong-token', baseUrl: `${ghes.url}/api/v3`, secret: { kind: 'token', token: 'sbx-github-token-0001' } }),
    ).rejects.toThrow(/401/);
    expect(paths(dotcom())).toEqual(['GET /user']);
    expect(paths(ghes)).toEqual(['GET /api/v3/user']);
    expect(await h.store.accounts.list()).toHaveLength(before);
  });

  it('is never signed in again at the default host: a sign-in with its label is refused', async () => {
    const deps = { store: h.store, baseUrls: h.deps.baseUrls, redactor: h.deps.redactor };
    const signIn = connectAccount(deps, { provider: 'github', label: 'enterprise', reconnect: true, secret: { kind: 'oauth', token: 'sbx-github-token-0001' } });
    await expect(signIn).rejects.toThrow(/"enterprise" is at http:\/\/127\.0\.0\.1:\d+\/api\/v3, and a sign-in reaches only the provider's own host.*--base-url/);
    expect((await h.store.accounts.resolve('github', 'enterprise')).secret.token).toBe(GHES_TOKEN);
  });
});
