import type { AuthInfo, ServerContext } from '@modelcontextprotocol/server';
import { PERSONAL_OWNER } from '../store/types.js';
import type { ServerDeps } from './server.js';

/** The person an authenticated request is served for, in team mode. */
export const userOf = (authInfo: AuthInfo | undefined) => authInfo?.extra?.userId as string | undefined;

/** Whose accounts, triggers and events a request may use: the signed-in person's in team mode, else the one personal owner's. */
export const ownerOf = (ctx: Pick<ServerContext, 'http'> | undefined): string => userOf(ctx?.http?.authInfo) ?? PERSONAL_OWNER;

/** What a tool call for `owner` runs with: the store as that owner sees it, every query of it kept to theirs. */
export function ownedDeps(deps: ServerDeps, owner: string): ServerDeps {
  // Looked up when a handler first needs the store: a request that never touches it never asks for a view.
  return Object.defineProperty({ ...deps, owner }, 'store', { get: () => deps.store.ownedBy(owner), enumerable: true });
}
