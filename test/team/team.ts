import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import type { BrowserContext } from 'playwright-core';
import { expect } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { surfaceOf } from '../../src/mcp/server.js';
import { Redactor } from '../../src/redact.js';
import { startRuntime, type Runtime } from '../../src/runtime.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import type { Store, TeamUser } from '../../src/store/index.js';
import { issuePageTicket } from '../../src/web/page-ticket.js';
import type { StoreLocation } from '../store/adapters.js';

/** A free port on 127.0.0.1: the public URL (the issuer) must be known before the listener starts. */
export async function freePort(): Promise<number> {
  const server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface TeamServer {
  url: string;
  runtime: Runtime;
  config: Config;
  logs: string[];
  close(): Promise<void>;
}

/** A `serve --http --team` runtime in this process, signing people in at the sandbox's GitHub and Microsoft. */
export async function startTeamServer(o: {
  sandbox: Sandbox;
  location: StoreLocation;
  env?: Record<string, string>;
  host?: '127.0.0.1' | 'localhost';
  metadataCa?: string;
  /** Another instance of a server already running: the same public URL, its own port. */
  publicUrl?: string;
  /** The port to listen on, when the public URL must be known beforehand; a free one otherwise. */
  port?: number;
}): Promise<TeamServer> {
  const port = o.port ?? (await freePort());
  const url = `http://${o.host ?? '127.0.0.1'}:${port}`;
  const { sandbox } = o;
  const env: Record<string, string> = {
    SWITCHBOARD_SECRET_KEY: 'team test key',
    SWITCHBOARD_GITHUB_BASE_URL: sandbox.baseUrls.github,
    SWITCHBOARD_OUTLOOK_BASE_URL: sandbox.baseUrls.outlook,
    SWITCHBOARD_VERCEL_BASE_URL: sandbox.baseUrls.vercel,
    SWITCHBOARD_SALES_BASE_URL: sandbox.baseUrls.sales,
    SWITCHBOARD_GITHUB_OAUTH_URL: sandbox.oauthSettings.github.url,
    SWITCHBOARD_GITHUB_CLIENT_ID: sandbox.oauthSettings.github.clientId!,
    SWITCHBOARD_GITHUB_CLIENT_SECRET: sandbox.oauthSettings.github.clientSecret!,
    SWITCHBOARD_OUTLOOK_OAUTH_URL: sandbox.oauthSettings.outlook.url,
    SWITCHBOARD_OUTLOOK_CLIENT_ID: sandbox.oauthSettings.outlook.clientId!,
    SWITCHBOARD_OUTLOOK_TENANT: 'contoso.example',
    SWITCHBOARD_TEAM_ALLOW: 'octocat@sbx.example,@contoso.example,github-org:sbx-org',
    ...(o.location.databaseUrl ? { SWITCHBOARD_DATABASE_URL: o.location.databaseUrl } : {}),
    ...o.env,
  };
  const config = loadConfig(env, { http: true, team: true, port: String(port), 'public-url': o.publicUrl ?? url, 'data-dir': o.location.dataDir });
  if (o.metadataCa) config.team!.metadataCa = o.metadataCa;
  const logs: string[] = [];
  const redactor = new Redactor();
  const stream = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level: 'debug', stream, redactor });
  const runtime = await startRuntime(config, { redactor, logger, version: 'test', mcp: surfaceOf });
  return { url, runtime, config, logs, close: () => runtime.close() };
}

/**
 * An MCP client's OAuth side, as a desktop client keeps it: registration, tokens, PKCE verifier and discovery state in
 * memory; the authorization URL it would open in a browser is kept for the test to open.
 */
export class TestOAuthClient implements OAuthClientProvider {
  authorizationUrl?: URL;
  saved?: OAuthTokens;
  client?: OAuthClientInformationMixed;
  private verifier = '';
  private discovery?: OAuthDiscoveryState;

  constructor(
    readonly callback: string,
    private readonly options: { scope?: string; clientMetadataUrl?: string } = {},
  ) {}

  get redirectUrl() {
    return this.callback;
  }
  get clientMetadataUrl() {
    return this.options.clientMetadataUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test agent',
      redirect_uris: [this.callback],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.options.scope ? { scope: this.options.scope } : {}),
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/** The client's redirect target: a loopback server that answers every request, the callbacks kept for the test. */
export async function startCallbackServer(): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return { url, server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * A person in a real browser: opens the authorization URL, picks the identity provider on the sign-in page, allows the
 * sandbox's consent page, and lands on the client's callback, whose query (code, state, iss) is returned.
 */
export async function signInInBrowser(context: BrowserContext, authorizationUrl: URL, via: 'GitHub' | 'Microsoft', callback: string): Promise<URLSearchParams> {
  const page = await context.newPage();
  try {
    await page.goto(authorizationUrl.href);
    await expect.poll(() => page.locator("h1").textContent()).toBe("Sign in to Switchboard");
    const landed = page.waitForURL((url) => url.href.startsWith(callback));
    await page.getByRole('link', { name: `Continue with ${via}` }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await landed;
    return new URL(page.url()).searchParams;
  } finally {
    await page.close();
  }
}

/**
 * Signs in through a real MCP client: its first request is refused (401), it discovers the authorization server,
 * registers (or names its metadata document), the person signs in in the browser, and it exchanges the code.
 */
export async function signIn(context: BrowserContext, url: string, via: 'GitHub' | 'Microsoft', oauth: TestOAuthClient): Promise<TestOAuthClient> {
  const first = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: oauth });
  await expect(new Client({ name: 'test', version: '1' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(oauth.authorizationUrl?.pathname).toBe('/auth/authorize');
  const params = await signInInBrowser(context, oauth.authorizationUrl!, via, oauth.callback);
  expect(params.get('error'), params.get('error_description') ?? '').toBeNull();
  await first.finishAuth(params);
  return oauth;
}

/** A connected MCP client using the OAuth client's tokens. */
export async function connect(url: string, oauth: TestOAuthClient): Promise<Client> {
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: oauth }));
  return client;
}

/** A raw MCP POST with a bearer token (or none), for asserting status and headers exactly. */
export function post(url: string, body: unknown, token?: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
}

export const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

/**
 * The page as a person's browser sees it once their sign-in has finished: the ticket and its cookie (as the sign-in's
 * last redirect gives them) exchanged for a session, then requests with the session's cookie.
 */
export async function pageSession(server: TeamServer, store: Store, user: TeamUser) {
  const { location, cookie: bound } = await issuePageTicket(store, user.id, false);
  const login = await fetch(`${server.url}${location}`, { redirect: 'manual', headers: { cookie: bound.split(';')[0]! } });
  expect(login.status).toBe(303);
  const cookie = login.headers.getSetCookie().find((c) => c.startsWith('switchboard_session_'))!.split(';')[0]!;
  const get = (path: string) => fetch(`${server.url}${path}`, { headers: { cookie }, redirect: 'manual' });
  const page = await (await get('/')).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  const post = (path: string, form: Record<string, string>) =>
    fetch(`${server.url}${path}`, { method: 'POST', redirect: 'manual', headers: { cookie, origin: server.url, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, ...form }) });
  return { get, post, page, cookie };
}
