import type Provider from 'oidc-provider';
import type { TeamUserStore } from '../store/types.js';
import { mayRead } from './scopes.js';

/** Who is calling /mcp: the person a valid token was issued to, and what it allows. */
export interface Caller {
  owner: string;
  clientId: string;
  scopes: string[];
  token: string;
  /** Epoch seconds. */
  expiresAt: number;
  /** The token's audience (RFC 8707 resource), for the MCP layer to compare with its own. */
  resource: string;
}

/** A token that is not usable, and why (said to the client in the 401 challenge). */
export type Verified = { caller: Caller } | { invalid: string } | { insufficient: string };

/**
 * Checks an access token of the built-in authorization server: it must be in the store (not expired or revoked), and
 * its person still allowed. Opaque tokens are looked up on every request, so revoking one, its grant, or disabling
 * its person takes effect at once.
 */
export function tokenVerifier(o: { provider: Provider; users: TeamUserStore }) {
  return async (token: string): Promise<Verified> => {
    const found = await o.provider.AccessToken.find(token);
    if (!found) return { invalid: 'The access token is unknown, expired or revoked' };
    const user = found.accountId ? await o.users.get(found.accountId) : undefined;
    if (!user || user.disabled) return { invalid: 'The person this access token was issued to may no longer sign in' };
    const scopes = String(found.scope ?? '').split(' ').filter(Boolean);
    if (!mayRead(scopes)) return { insufficient: 'This token allows no call; it needs scope switchboard:read or switchboard' };
    const audience = [found.aud].flat().filter((a): a is string => typeof a === 'string');
    return { caller: { owner: user.id, clientId: found.clientId!, scopes, token, expiresAt: found.exp!, resource: audience[0] ?? '' } };
  };
}
