import { auth, Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ADAPTERS, cleanUp, type StoreLocation } from '../store/adapters.js';
import { launchBrowser } from '../web/browser.js';
import { signInInBrowser, startCallbackServer, startTeamServer, TestOAuthClient, type TeamServer } from './team.js';

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let callback: Awaited<ReturnType<typeof startCallbackServer>>;
let sandbox: Sandbox;
let server: TeamServer | undefined;
const clients: Client[] = [];

beforeAll(async () => {
  [browser, callback, sandbox] = await Promise.all([launchBrowser(), startCallbackServer(), startSandbox()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), callback?.close(), sandbox?.close()]);
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await server?.close();
  server = undefined;
  sandbox.states.github.login = 'sbx-octocat';
  await cleanUp();
});

/** Signs in through a real MCP client: its first request is refused, it discovers and registers, the person signs in, it gets tokens. */
async function signIn(url: string, via: 'GitHub' | 'Microsoft', oauth = new TestOAuthClient(callback.url)) {
  const first = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: oauth });
  await expect(new Client({ name: 'test', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(oauth.authorizationUrl?.pathname).toBe('/auth/authorize');
  const params = await signInInBrowser(browser.context, oauth.authorizationUrl!, via, callback.url);
  await first.finishAuth(params);
  return oauth;
}

async function connect(url: string, oauth: TestOAuthClient): Promise<Client> {
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: oauth }));
  clients.push(client);
  return client;
}

describe.each(ADAPTERS)('team sign-in on $name', (adapter) => {
  let location: StoreLocation;

  it('registers a client, signs a person in with GitHub, and serves their calls; the first person is admin', async () => {
    location = await adapter.location();
    server = await startTeamServer({ sandbox, location });
    const oauth = await signIn(server.url, 'GitHub');
    expect(oauth.client?.client_id).toBeTruthy();
    expect(oauth.saved).toMatchObject({ token_type: expect.stringMatching(/bearer/i), scope: expect.stringContaining('switchboard') });
    expect(oauth.saved?.refresh_token).toBeTruthy();
    const client = await connect(server.url, oauth);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('github_create_issue');
    const users = await server.runtime.deps.store.team.users.list();
    expect(users).toEqual([expect.objectContaining({ provider: 'github', login: 'sbx-octocat', email: 'octocat@sbx.example', role: 'admin', disabled: false })]);
  });
});
