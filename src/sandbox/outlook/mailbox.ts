import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import { GraphError, type Person } from './query.js';
import type { GraphMessage, MailFolder, OutlookCategory, OutlookState } from './state.js';

/** Whose mailbox a mail request reaches (/me or /users/{id}) and its folders by id or well-known name; mail, folders, delta and subscriptions share it. */

/** One mailbox as the routes see it: the signed-in user's own, or a shared one the user was granted. */
export interface Box {
  id: string;
  address: Person;
  messages: GraphMessage[];
  folders: MailFolder[];
  wellKnownFolders: Record<string, string>;
  categories: OutlookCategory[];
}

export const notFound = () => new GraphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
export const invalidRequest = (message: string) => new GraphError(400, 'ErrorInvalidRequest', message);

export function userBox(state: OutlookState): Box {
  return {
    id: state.user.id,
    address: { name: state.user.displayName, address: state.user.mail },
    messages: state.messages,
    folders: state.folders,
    wellKnownFolders: state.wellKnownFolders,
    categories: state.categories,
  };
}

/** `/users/{id|address}/...`: the user's own mailbox, or a shared one (403 ErrorAccessDenied without delegated access). */
export function mailbox(state: OutlookState, userId: string): Box {
  const ref = userId.toLowerCase();
  if ([state.user.id, state.user.mail, state.user.userPrincipalName].some((x) => x.toLowerCase() === ref)) return userBox(state);
  const box = state.mailboxes.find((b) => b.id === ref || b.mail.toLowerCase() === ref);
  if (!box) throw new GraphError(404, 'ErrorInvalidUser', `The requested user '${userId}' is invalid.`);
  if (!box.delegated) throw new GraphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
  return { ...box, address: { name: box.displayName, address: box.mail } };
}

/** The same handler under `/me/...` and `/users/{userId}/...`. */
export function inEveryMailbox(state: OutlookState, table: Record<string, (req: SandboxRequest, box: Box) => SandboxResponse>): Routes {
  const routes: Routes = {};
  for (const [key, handler] of Object.entries(table)) {
    const [method, path] = key.split(' ', 2);
    routes[`${method} /me${path}`] = (req) => handler(req, userBox(state));
    routes[`${method} /users/:userId${path}`] = (req) => handler(req, mailbox(state, req.params.userId!));
  }
  return routes;
}

export const boxContext = (box: Box, path: string) => `users('${encodeURIComponent(box.id)}')/${path}`;

export function resolveFolderIn(box: Box, ref: string): MailFolder {
  const id = box.wellKnownFolders[ref.toLowerCase()] ?? ref;
  const folder = box.folders.find((f) => f.id === id);
  if (!folder) throw notFound();
  return folder;
}

/** A folder of the signed-in user's mailbox by id or well-known name. */
export function resolveFolder(state: OutlookState, ref: string): MailFolder {
  return resolveFolderIn(userBox(state), ref);
}
