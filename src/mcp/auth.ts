import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { StoreUnavailableError } from '../errors.js';
import type { Route } from '../http/incoming.js';
import { PERSONAL_OWNER } from '../store/types.js';
import type { TeamAuth } from '../team/auth.js';
import type { Caller } from '../team/resource.js';
import { mayWrite } from '../team/scopes.js';

/**
 * /mcp as an OAuth protected resource, with the SDK's resource-server helpers: the RFC 9728 metadata document, the
 * bearer token check (from the Authorization header only; audience, expiry), and the 401/403 challenges that tell a
 * client where to sign in and which scope to ask for.
 */
export function protectedResource(team: TeamAuth) {
  const resource = new URL(team.resource);
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resource);
  const metadata = buildOAuthProtectedResourceMetadata({
    oauthMetadata: {
      issuer: team.issuer,
      authorization_endpoint: team.endpoints.authorization,
      token_endpoint: team.endpoints.token,
      response_types_supported: ['code'],
    },
    resourceServerUrl: resource,
    scopesSupported: [team.scopes.full, team.scopes.read],
    resourceName: 'Switchboard',
  });
  const metadataPath = new URL(resourceMetadataUrl).pathname;
  const serveMetadata = (_req: IncomingMessage, res: ServerResponse) =>
    void res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600' }).end(JSON.stringify(metadata));
  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const verified = await team.verify(token);
      if ('invalid' in verified) throw new OAuthError(OAuthErrorCode.InvalidToken, verified.invalid);
      if ('insufficient' in verified) throw new OAuthError(OAuthErrorCode.InsufficientScope, verified.insufficient);
      return authInfoOf(verified.caller, resourceMetadataUrl);
    },
  };

  return {
    routes: [metadataPath, '/.well-known/oauth-protected-resource'].map((path): Route => ({ method: 'GET', path, public: true, usesStore: false, handle: serveMetadata })),
    /** The caller of an MCP request, as handlers see it (`ctx.http.authInfo`); undefined once the request is answered 401 (or 403). */
    async authenticate(req: IncomingMessage, res: ServerResponse): Promise<AuthInfo | undefined> {
      try {
        return await verifyBearerToken(req.headers.authorization, { verifier, resourceMetadataUrl, expectedResource: resource });
      } catch (error) {
        // A store that cannot be read is not a bad token: the listener answers 503, so clients do not sign in again for nothing.
        if (error instanceof StoreUnavailableError) throw error;
        const scope = error instanceof OAuthError && error.code === OAuthErrorCode.InsufficientScope ? `${team.scopes.full} ${team.scopes.read}` : team.scopes.full;
        await send(res, bearerAuthChallengeResponse(error, { requiredScopes: [scope], resourceMetadataUrl }));
        return undefined;
      }
    },
    /** Answers 403 insufficient_scope: the call changes something, and the token allows only reading. */
    async refuseWrite(res: ServerResponse): Promise<void> {
      const error = new OAuthError(OAuthErrorCode.InsufficientScope, `This call changes something; it needs a token with scope ${team.scopes.full}`);
      await send(res, bearerAuthChallengeResponse(error, { requiredScopes: [team.scopes.full], resourceMetadataUrl }));
    },
  };
}

export type ProtectedResource = ReturnType<typeof protectedResource>;

/** The person an authenticated request is served for, in team mode. */
export const signedInOwner = (authInfo: AuthInfo | undefined) => authInfo?.extra?.owner as string | undefined;

/** Whose accounts, triggers and events a request may use: the signed-in person's in team mode, else the one personal owner's. */
export const ownerOf = (ctx: Pick<ServerContext, 'http'> | undefined): string => signedInOwner(ctx?.http?.authInfo) ?? PERSONAL_OWNER;

/** In team mode, whether the caller's token lets it see and call only what changes nothing. */
export const readOnlyCaller = (ctx: Pick<ServerContext, 'http'>) => {
  const scopes = ctx.http?.authInfo?.scopes;
  return scopes !== undefined && !mayWrite(scopes);
};

/** What MCP handlers learn of a team caller; `extra.owner` is whose accounts, triggers and events the call may use. */
function authInfoOf(caller: Caller, resourceMetadataUrl: string): AuthInfo {
  return {
    token: caller.token,
    clientId: caller.clientId,
    scopes: caller.scopes,
    expiresAt: caller.expiresAt,
    resource: new URL(caller.resource),
    resourceMetadataUrl,
    extra: { owner: caller.owner },
  };
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers)).end(await response.text());
}
