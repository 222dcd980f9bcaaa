import type { Server, ServerContext } from '@modelcontextprotocol/server';
import type { Actor } from '../contracts/governance.js';
import { isPersonalToken } from '../team/tokens.js';
import { ownerOf } from './auth.js';

const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo';

/** The client's own name and version: from the request in 2026, from initialize in 2025. */
export function clientInfoOf(server: Server, ctx: ServerContext): { name?: string; version?: string } {
  const envelope = ctx.mcpReq.envelope as Record<string, { name?: unknown; version?: unknown } | undefined> | undefined;
  const info = envelope?.[CLIENT_INFO_META_KEY] ?? server.getClientVersion();
  const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, 200) : undefined);
  return { name: text(info?.name), version: text(info?.version) };
}

/**
 * Who makes a request and how they proved it: over stdio the process that started the server; over HTTP the team
 * sign-in (an OAuth access token, or a personal token told apart by its prefix), else SWITCHBOARD_HTTP_TOKEN or nothing.
 */
export function actorOf(server: Server, ctx: ServerContext, httpAuth: 'static-token' | 'none' = 'none'): Actor {
  const authInfo = ctx.http?.authInfo;
  const auth = !ctx.http ? 'stdio' : authInfo ? (isPersonalToken(authInfo.token) ? 'personal-token' : 'oauth') : httpAuth;
  const { name, version } = clientInfoOf(server, ctx);
  return {
    owner: ownerOf(ctx),
    auth,
    ...(name && { clientName: version ? `${name} ${version}` : name }),
    ...(authInfo?.clientId && { clientId: authInfo.clientId }),
  };
}
