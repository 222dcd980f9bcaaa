import { randomUUID } from 'node:crypto';
import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import type { MailFolder, OutlookState } from './state.js';
import { listMessages } from './mail.js';
import { boxContext, inEveryMailbox, invalidRequest, mailbox, resolveFolderIn, type Box } from './mailbox.js';
import { GraphError, applySelect, listResponse, nextGraphId, parseSelect } from './query.js';
import { isObject, queryParam } from '../util.js';

/**
 * Graph mail folders under /me/... and /users/{id}/..., and a shared mailbox's master categories
 * (the signed-in user's own /me/outlook/masterCategories is served with the calendar routes).
 */

function renderFolder(box: Box) {
  return (f: MailFolder) => {
    const inFolder = box.messages.filter((m) => m.parentFolderId === f.id);
    return {
      id: f.id,
      displayName: f.displayName,
      parentFolderId: f.parentFolderId,
      childFolderCount: box.folders.filter((c) => c.parentFolderId === f.id).length,
      unreadItemCount: inFolder.filter((m) => !m.isRead).length,
      totalItemCount: inFolder.length,
      isHidden: f.isHidden,
    };
  };
}

/** `includeHiddenFolders=true` also lists hidden folders; Graph leaves them out otherwise. */
function visible(req: SandboxRequest, folders: MailFolder[]): MailFolder[] {
  const hidden = queryParam(req, 'includeHiddenFolders') === 'true';
  return folders.filter((f) => hidden || !f.isHidden);
}

function createFolder(req: SandboxRequest, state: OutlookState, box: Box, parentId: string): SandboxResponse {
  const name = req.body?.displayName;
  if (typeof name !== 'string' || !name.trim()) throw invalidRequest("The request body needs 'displayName'.");
  if (box.folders.some((f) => f.parentFolderId === parentId && f.displayName.toLowerCase() === name.toLowerCase())) {
    throw new GraphError(409, 'ErrorFolderExists', 'A folder with the specified name already exists.');
  }
  const folder: MailFolder = { id: nextGraphId(state, 'AQMkAD'), displayName: name, parentFolderId: parentId, isHidden: req.body?.isHidden === true };
  box.folders.push(folder);
  return { status: 201, body: renderFolder(box)(folder) };
}

export function folderRoutes(state: OutlookState): Routes {
  return {
    ...inEveryMailbox(state, {
      'GET /mailFolders': (req, box) => {
        const top = visible(req, box.folders.filter((f) => f.parentFolderId === box.wellKnownFolders.msgfolderroot));
        return listResponse(req, top, { context: boxContext(box, 'mailFolders'), render: renderFolder(box) });
      },
      'POST /mailFolders': (req, box) => createFolder(req, state, box, box.wellKnownFolders.msgfolderroot!),
      'GET /mailFolders/:id': (req, box) => {
        const row = renderFolder(box)(resolveFolderIn(box, req.params.id!));
        return { status: 200, body: applySelect(row, parseSelect(req, [row])) };
      },
      'GET /mailFolders/:id/childFolders': (req, box) => {
        const parent = resolveFolderIn(box, req.params.id!);
        const children = visible(req, box.folders.filter((f) => f.parentFolderId === parent.id));
        return listResponse(req, children, { context: boxContext(box, `mailFolders('${parent.id}')/childFolders`), render: renderFolder(box) });
      },
      'POST /mailFolders/:id/childFolders': (req, box) => createFolder(req, state, box, resolveFolderIn(box, req.params.id!).id),
      'GET /mailFolders/:id/messages': (req, box) => {
        const folder = resolveFolderIn(box, req.params.id!);
        return listMessages(req, state, box.messages.filter((m) => m.parentFolderId === folder.id), boxContext(box, `mailFolders('${folder.id}')/messages`));
      },
    }),
    'GET /users/:userId/outlook/masterCategories': (req) => {
      const box = mailbox(state, req.params.userId!);
      return { status: 200, body: { '@odata.context': `https://graph.microsoft.com/v1.0/$metadata#${boxContext(box, 'outlook/masterCategories')}`, value: box.categories } };
    },
    'POST /users/:userId/outlook/masterCategories': (req) => {
      const box = mailbox(state, req.params.userId!);
      const { displayName, color = 'none' } = isObject(req.body) ? req.body : ({} as Record<string, any>);
      if (typeof displayName !== 'string' || !displayName.trim()) throw new GraphError(400, 'BadRequest', "The request body needs 'displayName'.");
      if (!/^(none|preset([0-9]|1[0-9]|2[0-4]))$/.test(String(color))) throw new GraphError(400, 'BadRequest', `'${color}' is not a valid category color (none, preset0 ... preset24).`);
      if (box.categories.some((c) => c.displayName.toLowerCase() === displayName.toLowerCase())) {
        throw new GraphError(409, 'ErrorDuplicateCategory', `A category named '${displayName}' already exists.`);
      }
      const category = { id: randomUUID(), displayName, color: String(color) };
      box.categories.push(category);
      return { status: 201, body: category };
    },
  };
}
