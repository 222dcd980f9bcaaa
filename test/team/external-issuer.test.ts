import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { formatUsers } from '../../src/team/commands.js';
import { ADAPTERS, cleanUp, sqlite, type StoreLocation } from '../store/adapters.js';
import { launchBrowser } from '../support/browser.js';
import { signInAtIssuer, startTestIssuer, type TestIssuer } from './oidc-issuer.js';
import { connect, freePort, INITIALIZE, post, startCallbackServer, startTeamServer, TestOAuthClient, type TeamServer } from './team.js';

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let callback: Awaited<ReturnType<typeof startCallbackServer>>;
let sandbox: Sandbox;
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

const PEOPLE = { ada: { email: 'ada@example.com' }, mallory: { email: 'mallory@elsewhere.example' } };

/** A team server whose people sign in at a test issuer, which was started first (the server reads its discovery document at start). */
async function start(o: { location?: StoreLocation; env?: Record<string, string>; audience?: string } = {}): Promise<{ server: TeamServer; issuer: TestIssuer; resource: string }> {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const issuer = await startTestIssuer({ people: PEOPLE, resource, audience: o.audience });
  closers.push(() => issuer.close());
  const server = await startTeamServer({
    sandbox,
    location: o.location ?? (await sqlite.location()),
    port,
    env: { SWITCHBOARD_TEAM_ISSUER: issuer.url, SWITCHBOARD_TEAM_ALLOW: '@example.com', ...o.env },
  });
  closers.push(() => server.close());
  return { server, issuer, resource };
}

/** A real MCP client sending the token as it is, without OAuth of its own. */
async function clientWith(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  closers.push(() => client.close());
  return client;
}

const challenge = (res: Response) => res.headers.get('www-authenticate') ?? '';
const call = (name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: args } });
const now = () => Math.floor(Date.now() / 1000);

describe.each(ADAPTERS)('an external OpenID Connect issuer on $name', (adapter) => {
  it('is named by the protected resource; a real MCP client signs in there and calls tools with its token', async () => {
    const { server, issuer, resource } = await start({ location: await adapter.location() });
    expect(await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json()).toEqual({
      resource,
      authorization_servers: [issuer.url],
      scopes_supported: ['switchboard', 'switchboard:read'],
      resource_name: 'Switchboard',
    });
    // No authorization server of its own.
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/auth/authorize']) {
      expect((await fetch(`${server.url}${path}`)).status).toBe(404);
    }
    expect(server.logs.join('')).toMatch(new RegExp(`"msg":"team mode","issuer":"${issuer.url}","resource":"${resource}","audience":"${resource}"`));

    const oauth = new TestOAuthClient(callback.url);
    const first = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: oauth });
    await expect(new Client({ name: 'test', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(oauth.authorizationUrl?.origin).toBe(issuer.url);
    expect(oauth.authorizationUrl?.searchParams.get('resource')).toBe(resource);
    expect(oauth.client?.client_id).toBeTruthy();
    await first.finishAuth(await signInAtIssuer(browser.context, oauth.authorizationUrl!, 'ada', callback.url));
    expect(oauth.saved!.access_token.split('.')).toHaveLength(3);

    const client = await connect(server.url, oauth);
    closers.push(() => client.close());
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('github_create_issue');
    for (let i = 0; i < 3; i++) expect((await client.callTool({ name: 'accounts_list', arguments: {} })).isError).toBeFalsy();
    // The issuer's keys were fetched once, and its discovery document once, at start.
    expect(issuer.requests.filter((p) => p === '/jwks')).toHaveLength(1);
    expect(issuer.requests.filter((p) => p === '/.well-known/openid-configuration')).toHaveLength(1);

    const users = await server.runtime.deps.store.team.users.list();
    expect(users).toEqual([expect.objectContaining({ provider: 'oidc', subject: `${issuer.url}#ada`, login: 'ada@example.com', email: 'ada@example.com', role: 'admin', disabled: false })]);
    expect(formatUsers(users)).toMatch(/ada@example.com +ada@example.com +OpenID Connect +admin +active/);
  });
});

describe('access tokens of an external issuer', () => {
  it('refuses with 401 a token for another audience, expired, of another issuer, signed with another key, or no JWT at all', async () => {
    const { server, issuer, resource } = await start();
    const ada = { sub: 'ada', email: 'ada@example.com', aud: resource, scope: 'openid switchboard' };
    expect((await post(server.url, INITIALIZE, await issuer.mint(ada))).status).toBe(200);
    // Within the allowed clock skew, an expiry a few seconds past is still accepted.
    expect((await post(server.url, INITIALIZE, await issuer.mint({ ...ada, exp: now() - 5 }))).status).toBe(200);

    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const refused: Array<[string, string]> = [
      [await issuer.mint({ ...ada, aud: 'http://127.0.0.1:1/mcp' }), `Token was not issued for this resource (its audience is not ${resource})`],
      [await issuer.mint({ ...ada, aud: undefined }), `Token was not issued for this resource (its audience is not ${resource})`],
      [await issuer.mint({ ...ada, iat: now() - 900, exp: now() - 300 }), 'The access token has expired'],
      [await issuer.mint({ ...ada, nbf: now() + 600 }), 'The access token is not valid yet'],
      [await issuer.mint({ ...ada, iss: 'http://127.0.0.1:1' }), `The access token was not issued by ${issuer.url}`],
      [await issuer.mint(ada, { key: other }), `The access token is not a JWT signed by ${issuer.url}`],
      [await issuer.mint(ada, { key: other, kid: 'unknown' }), `The access token is not a JWT signed by ${issuer.url}`],
      ['an-opaque-token', `The access token is not a JWT signed by ${issuer.url}`],
    ];
    for (const [token, reason] of refused) {
      const res = await post(server.url, INITIALIZE, token);
      expect(res.status, reason).toBe(401);
      expect(challenge(res)).toBe(
        `Bearer error="invalid_token", error_description="${reason}", scope="switchboard", resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
      );
    }
    const unscoped = await post(server.url, INITIALIZE, await issuer.mint({ ...ada, scope: 'openid profile' }));
    expect(unscoped.status).toBe(403);
    expect(challenge(unscoped)).toContain('error="insufficient_scope", error_description="This token allows no call; it needs scope switchboard:read or switchboard"');
  });

  it('gives a switchboard:read token the read-only tools, and answers 403 to a call that changes something', async () => {
    const { server, issuer, resource } = await start();
    const token = await issuer.mint({ sub: 'ada', email: 'ada@example.com', aud: resource, scope: 'switchboard:read' });
    const client = await clientWith(server.url, token);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(10);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);

    const init = await post(server.url, INITIALIZE, token);
    const session = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    expect((await post(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, token, session)).status).toBe(202);
    const write = await post(server.url, call('github_create_issue', { owner: 'sbx-octocat', repo: 'hello-world', title: 'Nope' }), token, session);
    expect(write.status).toBe(403);
    expect(challenge(write)).toContain('error="insufficient_scope", error_description="This call changes something; it needs a token with scope switchboard", scope="switchboard"');
    expect(sandbox.states.github.repos.find((r) => r.name === 'hello-world')?.issues.some((i) => i.title === 'Nope')).toBe(false);
  });

  it('refuses a person the rules do not allow or whose address is unverified, and a disabled person until enabled again', async () => {
    const { server, issuer, resource } = await start();
    const users = server.runtime.deps.store.team.users;
    const mallory = await post(server.url, INITIALIZE, await issuer.mint({ sub: 'mallory', email: 'mallory@elsewhere.example', aud: resource, scope: 'switchboard' }));
    expect(mallory.status).toBe(401);
    expect(challenge(mallory)).toContain('error_description="mallory@elsewhere.example may not use this Switchboard; ask its operator to add them to SWITCHBOARD_TEAM_ALLOW"');
    const unverified = await issuer.mint({ sub: 'eve', email: 'eve@example.com', email_verified: false, preferred_username: 'eve', aud: resource, scope: 'switchboard' });
    expect((await post(server.url, INITIALIZE, unverified)).status).toBe(401);
    expect(await users.list()).toEqual([]);

    // Entra names the person by upn / preferred_username, without email.
    const ada = await issuer.mint({ sub: 'ada-object-id', preferred_username: 'Ada@Example.com', aud: resource, scp: 'switchboard' });
    expect((await post(server.url, INITIALIZE, ada)).status).toBe(200);
    const [person] = await users.list();
    expect(person).toMatchObject({ provider: 'oidc', login: 'Ada@Example.com', email: 'ada@example.com' });
    await users.setDisabled(person!.id, true);
    const disabled = await post(server.url, INITIALIZE, ada);
    expect(disabled.status).toBe(401);
    expect(challenge(disabled)).toContain('error_description="The person this access token was issued to may no longer sign in"');
    await users.setDisabled(person!.id, false);
    expect((await post(server.url, INITIALIZE, ada)).status).toBe(200);
  });

  it('takes tokens for a configured audience with scopes the issuer names after a prefix, as Entra issues them', async () => {
    const { server, issuer, resource } = await start({ env: { SWITCHBOARD_TEAM_AUDIENCE: 'api://switchboard-test', SWITCHBOARD_TEAM_SCOPE_PREFIX: 'api://switchboard-test/' } });
    const metadata = (await (await fetch(`${server.url}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource, authorization_servers: [issuer.url], scopes_supported: ['api://switchboard-test/switchboard', 'api://switchboard-test/switchboard:read'] });
    expect(challenge(await post(server.url, INITIALIZE))).toContain('scope="api://switchboard-test/switchboard"');

    const ada = { sub: 'ada', upn: 'ada@example.com', aud: 'api://switchboard-test' };
    expect((await post(server.url, INITIALIZE, await issuer.mint({ ...ada, scp: 'switchboard' }))).status).toBe(200);
    expect((await post(server.url, INITIALIZE, await issuer.mint({ ...ada, scope: 'api://switchboard-test/switchboard' }))).status).toBe(200);
    expect((await post(server.url, INITIALIZE, await issuer.mint({ ...ada, aud: resource, scp: 'switchboard' }))).status).toBe(401);

    const reader = await clientWith(server.url, await issuer.mint({ ...ada, scp: ['switchboard:read'] }));
    expect((await reader.listTools()).tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
  });
});

describe('the external issuer setting', () => {
  const TEAM = { SWITCHBOARD_TEAM: '1', SWITCHBOARD_PUBLIC_URL: 'https://switchboard.example.com', SWITCHBOARD_TEAM_ALLOW: '@example.com' };

  it('reads the issuer, the audience and the scope prefix', () => {
    expect(loadConfig({ ...TEAM, SWITCHBOARD_TEAM_ISSUER: 'https://login.example.com/realms/team' }).team?.external).toEqual({ issuer: 'https://login.example.com/realms/team' });
    expect(loadConfig({ ...TEAM, SWITCHBOARD_TEAM_ISSUER: 'http://localhost:8080/realms/team', SWITCHBOARD_TEAM_AUDIENCE: 'api://1234', SWITCHBOARD_TEAM_SCOPE_PREFIX: 'api://1234/' }).team?.external).toEqual({
      issuer: 'http://localhost:8080/realms/team',
      audience: 'api://1234',
      scopePrefix: 'api://1234/',
    });
    expect(loadConfig(TEAM).team).not.toHaveProperty('external');
  });

  it.each([
    [{ SWITCHBOARD_TEAM_ISSUER: 'http://login.example.com' }, /SWITCHBOARD_TEAM_ISSUER must use https \(http only on this machine/],
    [{ SWITCHBOARD_TEAM_ISSUER: 'login.example.com' }, /SWITCHBOARD_TEAM_ISSUER must be the https URL of an OpenID Connect issuer/],
    [{ SWITCHBOARD_TEAM_ISSUER: 'https://login.example.com/?tenant=1' }, /without a query, fragment or credentials/],
    [{ SWITCHBOARD_TEAM_ISSUER: 'https://login.example.com', SWITCHBOARD_TEAM_ALLOW: '@example.com,github-org:acme' }, /SWITCHBOARD_TEAM_ALLOW: github-org:acme cannot apply with SWITCHBOARD_TEAM_ISSUER/],
    [{ SWITCHBOARD_TEAM_ISSUER: 'https://login.example.com', SWITCHBOARD_TEAM_ADMINS: 'github-org:acme' }, /SWITCHBOARD_TEAM_ADMINS: github-org:acme cannot apply/],
    [{ SWITCHBOARD_TEAM_AUDIENCE: 'api://1234' }, /SWITCHBOARD_TEAM_AUDIENCE goes with SWITCHBOARD_TEAM_ISSUER/],
    [{ SWITCHBOARD_TEAM_SCOPE_PREFIX: 'api://1234/' }, /SWITCHBOARD_TEAM_SCOPE_PREFIX goes with SWITCHBOARD_TEAM_ISSUER/],
    [{ SWITCHBOARD_TEAM_ISSUER: 'https://login.example.com', SWITCHBOARD_TEAM_AUDIENCE: 'api://a b' }, /SWITCHBOARD_TEAM_AUDIENCE must be one value without spaces/],
  ])('refuses an unusable setting, naming it (%#)', (env, message) => {
    expect(() => loadConfig({ ...TEAM, ...env })).toThrow(message);
  });

  describe('at start', () => {
    let documents: Server;
    let documentsUrl: string;
    let served: Record<string, unknown> = {};
    beforeAll(async () => {
      documents = createServer((req, res) => {
        if (req.url !== '/issuer/.well-known/openid-configuration') return void res.writeHead(404).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served));
      });
      await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
      documentsUrl = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((resolve) => documents.close(resolve)));

    const startWith = async (issuer: string) => startTeamServer({ sandbox, location: await sqlite.location(), env: { SWITCHBOARD_TEAM_ISSUER: issuer, SWITCHBOARD_TEAM_ALLOW: '@example.com' } });
    const endpoints = (issuer: string) => ({ issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks` });

    it('refuses an issuer whose discovery document cannot be read, names another issuer, or lacks its key set', async () => {
      const nowhere = `http://127.0.0.1:${await freePort()}`;
      await expect(startWith(nowhere)).rejects.toThrow(`SWITCHBOARD_TEAM_ISSUER: the issuer's discovery document ${nowhere}/.well-known/openid-configuration could not be read (fetch failed: ECONNREFUSED)`);
      const issuer = `${documentsUrl}/issuer`;
      await expect(startWith(`${documentsUrl}/elsewhere`)).rejects.toThrow(`${documentsUrl}/elsewhere/.well-known/openid-configuration could not be read (it answered HTTP 404)`);
      served = endpoints('https://login.example.com/common/v2.0');
      await expect(startWith(issuer)).rejects.toThrow(`SWITCHBOARD_TEAM_ISSUER: ${issuer}/.well-known/openid-configuration names the issuer "https://login.example.com/common/v2.0", not "${issuer}"`);
      served = { ...endpoints(issuer), jwks_uri: undefined };
      await expect(startWith(issuer)).rejects.toThrow(`SWITCHBOARD_TEAM_ISSUER: ${issuer}/.well-known/openid-configuration names no jwks_uri`);
      served = { ...endpoints(issuer), jwks_uri: 'http://keys.example.com/jwks' };
      await expect(startWith(issuer)).rejects.toThrow('names jwks_uri http://keys.example.com/jwks, which is not https');
      served = endpoints(issuer);
      const started = await startWith(issuer);
      closers.push(() => started.close());
      expect(started.logs.join('')).toContain('the issuer does not advertise PKCE (code_challenge_methods_supported S256)');
    });
  });
});
