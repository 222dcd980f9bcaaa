import type Provider from 'oidc-provider';
import type { TeamUserStore } from '../store/types.js';
import { FULL_SCOPE, mayRead, READ_SCOPE, TEAM_SCOPES } from './scopes.js';

/** Who is calling /mcp: the person a valid token was issued to, and what it allows. */
export interface Caller {
  userId: string;
  clientId: string;
  scopes: string[];
  token: string;
  /** Epoch seconds. */
  expiresAt: number;
  resource: string;
}

/** How a request without a usable token is answered (RFC 6750 section 3, RFC 9728 section 5.1). */
export interface Refusal {
  status: 401 | 403;
  headers: Record<string, string>;
  message: string;
}

export type Authentication = { caller: Caller } | { refusal: Refusal };

export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The MCP endpoint as an OAuth protected resource: its metadata (RFC 9728), and the check of each request's bearer token. */
export function protectedResource(o: { issuer: URL; resource: string; provider: Provider; users: TeamUserStore }) {
  const metadataUrl = new URL(`${RESOURCE_METADATA_PATH}${new URL(o.resource).pathname}`, o.issuer).href;
  const metadata = {
    resource: o.resource,
    authorization_servers: [o.issuer.href.replace(/\/$/, '')],
    scopes_supported: [...TEAM_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Switchboard',
  };
  const challenge = (fields: Record<string, string>) =>
    'Bearer ' + Object.entries({ resource_metadata: metadataUrl, ...fields }).map(([k, v]) => `${k}="${v}"`).join(', ');
  const refuse = (status: 401 | 403, message: string, fields: Record<string, string>): { refusal: Refusal } => ({
    refusal: { status, message, headers: { 'www-authenticate': challenge(fields) } },
  });
  const invalid = (description: string) => refuse(401, `Unauthorized: ${description}; sign in again.`, { scope: FULL_SCOPE, error: 'invalid_token', error_description: description });

  return {
    metadataUrl,
    metadata,
    /** The caller of a request, from its Authorization header only. */
    async authenticate(authorization: string | undefined): Promise<Authentication> {
      const token = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? '')?.[1];
      if (!token) return refuse(401, 'Unauthorized: send an access token of this server (Authorization: Bearer <token>).', { scope: FULL_SCOPE });
      const found = await o.provider.AccessToken.find(token);
      if (!found) return invalid('The access token is unknown, expired or revoked');
      if (![found.aud].flat().includes(o.resource)) return invalid('The access token was issued for another resource');
      const user = found.accountId ? await o.users.get(found.accountId) : undefined;
      if (!user || user.disabled) return invalid('The person this access token was issued to may no longer sign in');
      const scopes = String(found.scope ?? '').split(' ').filter(Boolean);
      if (!mayRead(scopes)) return insufficientScope(READ_SCOPE);
      return { caller: { userId: user.id, clientId: found.clientId!, scopes, token, expiresAt: found.exp!, resource: o.resource } };
    },
    insufficientScope,
  };

  function insufficientScope(scope: string = FULL_SCOPE): { refusal: Refusal } {
    const description = scope === FULL_SCOPE ? 'This call changes something; it needs a token with scope switchboard' : 'This token allows no call; it needs scope switchboard:read or switchboard';
    return refuse(403, `Forbidden: ${description}.`, { scope, error: 'insufficient_scope', error_description: description });
  }
}

export type ProtectedResource = ReturnType<typeof protectedResource>;
