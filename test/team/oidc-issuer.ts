import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, type JWTPayload } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';
import type { BrowserContext } from 'playwright-core';
import { expect } from 'vitest';

/**
 * The "external" OpenID Connect issuer of the tests: another oidc-provider on 127.0.0.1, with dynamic registration,
 * resource indicators and JWT access tokens (RS256) for Switchboard's resource, carrying the person's address (as do
 * its ID tokens). Its
 * development sign-in page takes any login: the login is the person's id, whose address is `people[login]`. The test
 * also holds its signing key, to mint tokens that the sign-in would never give (expired, for another audience...).
 */
export interface TestIssuer {
  url: string;
  /** Paths requested of it, in order (discovery, key set, ...). */
  requests: string[];
  /** A token signed with the issuer's key: `sub`, `iss`, `iat` and `exp` (10 minutes) unless the claims set them. */
  mint(claims: JWTPayload, options?: { key?: KeyObject; kid?: string }): Promise<string>;
  kid: string;
  close(): Promise<void>;
}

export async function startTestIssuer(o: {
  people: Record<string, { email: string }>;
  /** The `aud` of its access tokens; by default the resource the client names. */
  audience?: string;
  /** Switchboard's resource (`<public URL>/mcp`), the one resource it issues tokens for. */
  resource: string;
}): Promise<TestIssuer> {
  const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const kid = randomUUID();
  const requests: string[] = [];
  // The issuer's URL (its port) must be known before the provider is made.
  let handle: (req: IncomingMessage, res: ServerResponse) => unknown = (_req, res) => res.writeHead(503).end();
  const server: Server = createServer((req, res) => {
    requests.push(new URL(req.url ?? '/', 'http://x').pathname);
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const configuration: Configuration = {
    jwks: { keys: [{ ...(privateKey.export({ format: 'jwk' }) as Record<string, string>), kid, use: 'sig', alg: 'RS256' }] } as Configuration['jwks'],
    async findAccount(_ctx, id) {
      return { accountId: id, claims: async () => ({ sub: id, email: o.people[id]?.email }) };
    },
    scopes: ['openid', 'offline_access', 'email', 'profile', 'switchboard', 'switchboard:read'],
    // As Keycloak, Okta and Entra do: the ID token of a code flow names the person's address when `email` was asked for.
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username'] },
    conformIdTokenClaims: false,
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    pkce: { required: () => true },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, RefreshToken: 3600, Session: 3600 },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => o.resource,
        useGrantedResource: async () => true,
        async getResourceServerInfo() {
          return { scope: 'switchboard switchboard:read', audience: o.audience ?? o.resource, accessTokenFormat: 'jwt', accessTokenTTL: 600, jwt: { sign: { alg: 'RS256' } } };
        },
      },
    },
    async extraTokenClaims(_ctx, token) {
      const person = 'accountId' in token && typeof token.accountId === 'string' ? o.people[token.accountId] : undefined;
      return person ? { email: person.email, preferred_username: person.email } : undefined;
    },
  };
  const provider = new Provider(url, configuration);
  handle = provider.callback();
  return {
    url,
    requests,
    kid,
    mint(claims, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: url, iat: now, exp: now + 600, ...claims })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: options.kid ?? kid })
        .sign(options.key ?? privateKey);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A person at the issuer's development sign-in page: signs in as `login`, allows the client, and lands on the callback. */
export async function signInAtIssuer(context: BrowserContext, authorizationUrl: URL, login: string, callback: string): Promise<URLSearchParams> {
  const page = await context.newPage();
  try {
    await page.goto(authorizationUrl.href);
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    const landed = page.waitForURL((url) => url.href.startsWith(callback));
    await page.getByRole('button', { name: 'Continue' }).click();
    await landed;
    const params = new URL(page.url()).searchParams;
    expect(params.get('error'), params.get('error_description') ?? '').toBeNull();
    return params;
  } finally {
    await page.close();
  }
}

/** Registers a client at the issuer (dynamic registration): public with PKCE, or confidential with a secret. */
export async function registerClient(issuer: string, redirectUri: string, confidential = false): Promise<{ client_id: string; client_secret?: string }> {
  const res = await fetch(`${issuer}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Switchboard',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
    }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { client_id: string; client_secret?: string };
}
