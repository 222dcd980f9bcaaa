import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OAuthProvider } from '../../config.js';

/**
 * Sandbox authorization servers for Outlook (Microsoft identity platform), GitHub and Vercel, served by each
 * provider's own sandbox next to its API: authorization with a consent page, token (code + PKCE, refresh with
 * rotation, device code), device authorization and revocation. Tokens it issues are added to the provider
 * sandbox's accepted set, so API calls made with them work until they expire.
 */

/** Access tokens a provider sandbox accepts; a token with an expiry stops being accepted when it passes. */
export class TokenSet extends Set<string> {
  readonly expiry = new Map<string, number>();

  addExpiring(token: string, expiresAt: number | undefined): void {
    this.add(token);
    if (expiresAt !== undefined) this.expiry.set(token, expiresAt);
  }

  override has(token: string): boolean {
    const at = this.expiry.get(token);
    return super.has(token) && (at === undefined || at > Date.now());
  }

  override delete(token: string): boolean {
    this.expiry.delete(token);
    return super.delete(token);
  }
}

/** The sandbox's registered app: its id, secret (where the provider wants one) and redirect URIs. */
export interface SandboxClient {
  id: string;
  secret?: string;
  /** Matched exactly, except that a loopback URI (127.0.0.1, [::1], localhost) matches on any port (RFC 8252 7.3). */
  redirectUris: string[];
}

export interface AuthRequest {
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string | null;
  codeChallenge: string;
  expiresAt: number;
}

export interface Grant {
  clientId: string;
  scope: string;
}

interface RefreshRecord extends Grant {
  status: 'active' | 'used' | 'revoked';
  expiresAt?: number;
}

interface DeviceRecord extends Grant {
  userCode: string;
  expiresAt: number;
  interval: number;
  decision?: 'approved' | 'denied';
  lastPollAt?: number;
}

export interface OAuthSandbox {
  provider: OAuthProvider;
  client: SandboxClient;
  /** Who signs in: shown on the consent page. */
  identity: string;
  /** The provider sandbox's accepted tokens, which issued access tokens join. */
  tokens: TokenSet;
  /** Lifetime of issued access tokens; null issues tokens that never expire (GitHub OAuth apps, Vercel). */
  accessTokenTtlSeconds: number | null;
  /** Lifetime of issued refresh tokens; null: until used or revoked. */
  refreshTokenTtlSeconds: number | null;
  /** Whether token responses carry a refresh token (Outlook only with offline_access). */
  issueRefreshTokens: boolean;
  deviceIntervalSeconds: number;
  deviceExpiresSeconds: number;
  /** Delay before the token endpoint answers, to widen races in tests. */
  tokenLatencyMs: number;
  /** Pending consent pages by request id. */
  requests: Map<string, AuthRequest>;
  codes: Map<string, AuthRequest & { used: boolean }>;
  refreshTokens: Map<string, RefreshRecord>;
  devices: Map<string, DeviceRecord>;
  /** Token-endpoint calls that succeeded, by grant. */
  grants: { authorization_code: number; refresh_token: number; device_code: number };
  /** Approves (or denies) the device sign-in with this user code, as the person on the verification page would. */
  approve(userCode: string, decision?: 'approved' | 'denied'): boolean;
  /** Makes an access token (all of them when none is named) expire now. */
  expireAccessTokens(token?: string): number;
  /** Makes a refresh token (all of them when none is named) unusable, as expiry or revocation would. */
  expireRefreshTokens(token?: string): number;
}

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export const SANDBOX_OAUTH_CLIENTS: Record<OAuthProvider, SandboxClient> = {
  // Outlook apps are public clients (device code, PKCE) and take no secret.
  outlook: {
    id: 'sbx-outlook-client-00000000',
    redirectUris: ['http://127.0.0.1/oauth/callback', 'http://127.0.0.1/oauth/callback/outlook', 'http://localhost/oauth/callback/outlook', 'http://127.0.0.1/oauth/callback/outlook/sign-in'],
  },
  github: {
    id: 'Iv1.sbxgithubclient',
    secret: 'sbx-github-client-secret-0001',
    redirectUris: ['http://127.0.0.1/oauth/callback', 'http://127.0.0.1/oauth/callback/github', 'http://localhost/oauth/callback/github', 'http://127.0.0.1/oauth/callback/github/sign-in'],
  },
  vercel: {
    id: 'oac_sbxvercelclient',
    secret: 'sbx-vercel-client-secret-0001',
    redirectUris: ['http://127.0.0.1/oauth/callback', 'http://127.0.0.1/oauth/callback/vercel', 'http://localhost/oauth/callback/vercel'],
  },
};

export function createOAuthSandbox(provider: OAuthProvider, tokens: TokenSet, identity: string): OAuthSandbox {
  const sandbox: OAuthSandbox = {
    provider,
    client: { ...SANDBOX_OAUTH_CLIENTS[provider], redirectUris: [...SANDBOX_OAUTH_CLIENTS[provider].redirectUris] },
    identity,
    tokens,
    // Graph tokens live about an hour; GitHub App user tokens 8 hours; Vercel integration tokens do not expire.
    accessTokenTtlSeconds: provider === 'outlook' ? 3599 : provider === 'github' ? 28_800 : null,
    refreshTokenTtlSeconds: null,
    issueRefreshTokens: provider !== 'vercel',
    deviceIntervalSeconds: 5,
    deviceExpiresSeconds: 900,
    tokenLatencyMs: 0,
    requests: new Map(),
    codes: new Map(),
    refreshTokens: new Map(),
    devices: new Map(),
    grants: { authorization_code: 0, refresh_token: 0, device_code: 0 },
    approve(userCode, decision = 'approved') {
      const wanted = normalizeUserCode(userCode);
      for (const device of sandbox.devices.values()) {
        if (normalizeUserCode(device.userCode) === wanted && device.expiresAt > Date.now() && !device.decision) {
          device.decision = decision;
          return true;
        }
      }
      return false;
    },
    expireAccessTokens(token) {
      const now = Date.now();
      const targets = token ? [token] : [...sandbox.tokens.expiry.keys()];
      for (const t of targets) if (sandbox.tokens.expiry.has(t) || sandbox.tokens.has(t)) sandbox.tokens.expiry.set(t, now - 1);
      return targets.length;
    },
    expireRefreshTokens(token) {
      let n = 0;
      for (const [t, record] of sandbox.refreshTokens) {
        if ((token === undefined || t === token) && record.status === 'active') {
          record.status = 'revoked';
          n++;
        }
      }
      return n;
    },
  };
  return sandbox;
}

export const random = (bytes: number) => randomBytes(bytes).toString('base64url');

function normalizeUserCode(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}

export function userCode(provider: OAuthProvider): string {
  const letters = 'BCDFGHJKLMNPQRSTVWXZ';
  const pick = (n: number) => Array.from(randomBytes(n), (b) => letters[b % letters.length]).join('');
  return provider === 'github' ? `${pick(4)}-${pick(4)}` : pick(9);
}

export function accessToken(provider: OAuthProvider): string {
  return provider === 'github' ? `ghu_${random(27)}` : provider === 'vercel' ? `vca_${random(24)}` : `EwB${random(60)}`;
}

export function refreshToken(provider: OAuthProvider): string {
  return provider === 'github' ? `ghr_${random(54)}` : `M.C5${random(70)}`;
}

/** Loopback redirect URIs match whatever the port (RFC 8252 7.3); everything else must be identical. */
export function redirectUriRegistered(client: SandboxClient, given: string): boolean {
  if (client.redirectUris.includes(given)) return true;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return false;
  }
  // No normalisation: the URI must already be in its canonical form.
  if (url.href !== given || url.protocol !== 'http:' || !['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname) || url.hash) return false;
  return client.redirectUris.includes(`http://${url.hostname}${url.pathname}${url.search}`);
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

