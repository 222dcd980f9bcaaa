import { auth, type Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { ADAPTERS, cleanUp, type Adapter, type StoreLocation } from '../store/adapters.js';
import { launchBrowser } from '../support/browser.js';
import { connect, INITIALIZE, post, signIn, signInInBrowser, startCallbackServer, startTeamServer, TestOAuthClient, type TeamServer } from './team.js';

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let callback: Awaited<ReturnType<typeof startCallbackServer>>;
let sandbox: Sandbox;
let location: StoreLocation;
let server: TeamServer;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  [browser, callback, sandbox] = await Promise.all([launchBrowser(), startCallbackServer(), startSandbox()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), callback?.close(), sandbox?.close()]);
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  await cleanUp();
});

async function start(adapter: Adapter): Promise<TeamServer> {
  location = await adapter.location();
  server = await startTeamServer({ sandbox, location });
  closers.push(() => server.close());
  return server;
}

const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const call = (name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: args } });

/** A session opened with the token (initialize + initialized), for raw requests on it. */
async function openSession(url: string, token: string): Promise<Record<string, string>> {
  const init = await post(url, INITIALIZE, token);
  expect(init.status).toBe(200);
  const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, token, headers)).status).toBe(202);
  return headers;
}

describe.each(ADAPTERS)('the protected resource on $name', (adapter) => {
  it('publishes its metadata (RFC 9728) and its authorization server (RFC 8414)', async () => {
    const { url } = await start(adapter);
    const expected = {
      resource: `${url}/mcp`,
      authorization_servers: [url],
      scopes_supported: ['switchboard', 'switchboard:read'],
      resource_name: 'Switchboard',
    };
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await fetch(`${url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject(expected);
    }
    const as = (await (await fetch(`${url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: url,
      authorization_endpoint: `${url}/auth/authorize`,
      token_endpoint: `${url}/auth/token`,
      registration_endpoint: `${url}/auth/register`,
      revocation_endpoint: `${url}/auth/revoke`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: expect.arrayContaining(['authorization_code', 'refresh_token']),
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['switchboard', 'switchboard:read']));
    expect(as.grant_types_supported).not.toContain('implicit');
    expect(as).not.toHaveProperty('dpop_signing_alg_values_supported');
  });

  it('answers 401 with where to sign in, to no token, a token not its own, and a token in the query string', async () => {
    const { url } = await start(adapter);
    const metadata = `resource_metadata="${url}/.well-known/oauth-protected-resource/mcp"`;
    const none = await post(url, INITIALIZE);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", error_description="Missing Authorization header", scope="switchboard", ${metadata}`);
    const unknown = await post(url, INITIALIZE, 'not-a-token-of-this-server');
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", error_description="The access token is unknown, expired or revoked", scope="switchboard", ${metadata}`,
    );

    const oauth = await signIn(browser.context, url, 'GitHub', new TestOAuthClient(callback.url));
    const inQuery = await fetch(`${url}/mcp?access_token=${oauth.saved!.access_token}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(INITIALIZE) });
    expect(inQuery.status).toBe(401);
    for (const path of ['/sse', '/messages']) expect((await fetch(`${url}${path}`)).status).toBe(401);
    expect((await post(url, INITIALIZE, oauth.saved!.access_token)).status).toBe(200);
  });

  it('refuses a revoked token, an expired one, and one issued for another server on the same store', async () => {
    const { url } = await start(adapter);
    const oauth = await signIn(browser.context, url, 'GitHub', new TestOAuthClient(callback.url));
    const token = oauth.saved!.access_token;

    // Another server (another public URL) on the same store finds the token, issued for the first one's /mcp.
    const other = await startTeamServer({ sandbox, location, host: 'localhost' });
    closers.push(() => other.close());
    const elsewhere = await post(other.url, INITIALIZE, token);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('www-authenticate')).toContain('error_description="Token was not issued for this resource"');
    expect(elsewhere.headers.get('www-authenticate')).toContain(`resource_metadata="${other.url}/.well-known/oauth-protected-resource/mcp"`);
    expect((await post(url, INITIALIZE, token)).status).toBe(200);

    // Expired: the store's record of the token is back-dated past its expiry.
    await adapter.raw(location, "UPDATE team_records SET expires_at = expires_at - 7200000 WHERE kind = 'AccessToken'");
    const expired = await post(url, INITIALIZE, token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"');

    // A refresh gives a new access token; revoking it revokes every token of its grant, the refresh token too.
    expect(await auth(oauth, { serverUrl: new URL(`${url}/mcp`) })).toBe('AUTHORIZED');
    const fresh = oauth.saved!.access_token;
    expect((await post(url, INITIALIZE, fresh)).status).toBe(200);
    const revoked = await fetch(`${url}/auth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: fresh, token_type_hint: 'access_token', client_id: oauth.client!.client_id }),
    });
    expect(revoked.status).toBe(200);
    expect((await post(url, INITIALIZE, fresh)).status).toBe(401);
    const refresh = await fetch(`${url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: oauth.saved!.refresh_token!, client_id: oauth.client!.client_id }),
    });
    expect(refresh.status).toBe(400);
  });

  it('refuses a token request for another resource (RFC 8707 invalid_target), for a code and for a refresh', async () => {
    const { url } = await start(adapter);
    const elsewhere = 'https://elsewhere.example/mcp';
    const tokenRequest = (body: Record<string, string>) =>
      fetch(`${url}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });

    const oauth = new TestOAuthClient(callback.url);
    expect(await auth(oauth, { serverUrl: new URL(`${url}/mcp`) })).toBe('REDIRECT');
    const params = await signInInBrowser(browser.context, oauth.authorizationUrl!, 'GitHub', callback.url);
    const code = { grant_type: 'authorization_code', code: params.get('code')!, code_verifier: oauth.codeVerifier(), redirect_uri: callback.url, client_id: oauth.client!.client_id };
    const forCode = await tokenRequest({ ...code, resource: elsewhere });
    expect(forCode.status).toBe(400);
    const refusedCode = (await forCode.json()) as Record<string, unknown>;
    expect(refusedCode).toMatchObject({ error: 'invalid_target' });
    expect(refusedCode).not.toHaveProperty('access_token');

    const signedIn = await signIn(browser.context, url, 'GitHub', new TestOAuthClient(callback.url));
    const refresh = { grant_type: 'refresh_token', refresh_token: signedIn.saved!.refresh_token!, client_id: signedIn.client!.client_id };
    const forRefresh = await tokenRequest({ ...refresh, resource: elsewhere });
    expect(forRefresh.status).toBe(400);
    const refused = (await forRefresh.json()) as Record<string, unknown>;
    expect(refused).toMatchObject({ error: 'invalid_target' });
    expect(refused).not.toHaveProperty('access_token');
  });

  it("sends a provider the account's own credential, never the caller's MCP token", async () => {
    const { url, runtime } = await start(adapter);
    const oauth = await signIn(browser.context, url, 'GitHub', new TestOAuthClient(callback.url));
    const [user] = await runtime.deps.store.team.users.list();
    const sample = sandbox.accounts.find((a) => a.provider === 'github')!;
    await runtime.deps.store.ownedBy(user!.id).accounts.add({ ...sample, label: 'mine' });
    const client = await connect(url, oauth);
    closers.push(() => client.close());

    const before = Object.fromEntries(Object.entries(sandbox.servers).map(([name, s]) => [name, s.requests.length]));
    const repo = await client.callTool({ name: 'github_get_repository', arguments: { owner: 'sbx-octocat', repo: 'hello-world' } });
    expect(repo.isError, JSON.stringify(repo.content)).toBeFalsy();
    const sent = Object.entries(sandbox.servers).flatMap(([name, s]) => s.requests.slice(before[name]));
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent) {
      expect(JSON.stringify(request.headers)).not.toContain(oauth.saved!.access_token);
      expect(request.query.toString()).not.toContain(oauth.saved!.access_token);
      expect(request.headers.authorization).toBe(`Bearer ${(sample.secret as { token: string }).token}`);
    }
  });

  it('gives a switchboard:read token only the read-only tools, and answers 403 insufficient_scope to a call that changes something', async () => {
    const { url } = await start(adapter);
    const oauth = new TestOAuthClient(callback.url);
    expect(await auth(oauth, { serverUrl: new URL(`${url}/mcp`), scope: 'switchboard:read' })).toBe('REDIRECT');
    const params = await signInInBrowser(browser.context, oauth.authorizationUrl!, 'GitHub', callback.url);
    expect(await auth(oauth, { serverUrl: new URL(`${url}/mcp`), authorizationCode: params.get('code')!, iss: params.get('iss') ?? undefined })).toBe('AUTHORIZED');
    expect(oauth.saved!.scope?.split(' ')).toContain('switchboard:read');
    expect(oauth.saved!.scope?.split(' ')).not.toContain('switchboard');

    const client: Client = await connect(url, oauth);
    closers.push(() => client.close());
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(10);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    expect(tools.map((t) => t.name)).toContain('outlook_find_email');
    expect(tools.map((t) => t.name)).not.toContain('github_create_issue');
    expect((await client.callTool({ name: 'accounts_list', arguments: {} })).isError).toBeFalsy();

    const token = oauth.saved!.access_token;
    const session = await openSession(url, token);
    const refused = await post(url, call('github_create_issue', { owner: 'sbx-octocat', repo: 'hello-world', title: 'Nope' }), token, session);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", error_description="This call changes something; it needs a token with scope switchboard", scope="switchboard", resource_metadata="${url}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(await refused.json()).toMatchObject({ error: 'insufficient_scope' });
    expect(sandbox.states.github.repos.find((r) => r.name === 'hello-world')?.issues.some((i) => i.title === 'Nope')).toBe(false);
  });

  it("keeps a person's session to them: another person's token cannot use it", async () => {
    const { url } = await start(adapter);
    const octocat = await signIn(browser.context, url, 'GitHub', new TestOAuthClient(callback.url));
    const avery = await signIn(browser.context, url, 'Microsoft', new TestOAuthClient(callback.url));
    const session = await openSession(url, octocat.saved!.access_token);
    expect((await post(url, LIST, octocat.saved!.access_token, session)).status).toBe(200);
    expect((await post(url, LIST, avery.saved!.access_token, session)).status).toBe(404);
  });
});
