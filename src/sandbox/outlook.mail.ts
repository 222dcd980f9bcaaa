import type { Routes, SandboxRequest, SandboxResponse } from './server.js';
import type { FileAttachment, GraphMessage, MailFolder, OutlookState } from './outlook.js';
import type { AttachmentSeed } from './outlook.data.js';
import { GraphError, applySelect, listResponse, nextGraphId, parseSelect, stripHtml, wantsTextBody, type Person, type Recipient } from './outlook.query.js';
import { hexId, isObject, originOf, queryParam } from './util.js';

/** Graph mail: messages (list, get, update, delete, send, reply, forward, move, copy), attachments, folders. */

export interface NewMessage {
  folderId: string;
  from: Person | null;
  toRecipients?: Recipient[];
  ccRecipients?: Recipient[];
  bccRecipients?: Recipient[];
  replyTo?: Recipient[];
  subject: string;
  body: { contentType: 'html' | 'text'; content: string };
  received?: Date;
  isRead?: boolean;
  isDraft?: boolean;
  categories?: string[];
  importance?: 'low' | 'normal' | 'high';
  flagged?: boolean;
  focused?: boolean;
  conversationId?: string;
  attachments?: AttachmentSeed[];
}

/** Builds a message in Graph's shape and stores its attachments; the caller decides where it goes. */
export function buildMessage(state: OutlookState, input: NewMessage): GraphMessage {
  const id = nextGraphId(state, 'AAMkAD');
  const when = (input.received ?? new Date()).toISOString().replace(/\.\d+Z$/, 'Z');
  const from = input.from ? { emailAddress: { ...input.from } } : null;
  const text = input.body.contentType === 'html' ? stripHtml(input.body.content) : input.body.content;
  const topic = input.subject.replace(/^((re|fw|fwd):\s*)+/i, '').toLowerCase();
  const message: GraphMessage = {
    id,
    createdDateTime: when,
    lastModifiedDateTime: when,
    changeKey: 'CQAAABYAAA' + hexId(id, 12),
    categories: [...(input.categories ?? [])],
    receivedDateTime: when,
    sentDateTime: when,
    hasAttachments: (input.attachments ?? []).some((a) => !a.isInline),
    internetMessageId: `<${hexId(id, 20)}@contoso.example>`,
    subject: input.subject,
    bodyPreview: text.slice(0, 255),
    importance: input.importance ?? 'normal',
    parentFolderId: input.folderId,
    conversationId: input.conversationId ?? 'AAQkAD' + Buffer.from(hexId(topic, 16)).toString('base64url'),
    isDeliveryReceiptRequested: false,
    isReadReceiptRequested: false,
    isRead: input.isRead ?? false,
    isDraft: input.isDraft ?? false,
    webLink: `https://outlook.office365.com/owa/?ItemID=${encodeURIComponent(id)}&exvsurl=1&viewmodel=ReadMessageItem`,
    inferenceClassification: input.focused === false ? 'other' : 'focused',
    body: { ...input.body },
    sender: from,
    from,
    toRecipients: input.toRecipients ?? [],
    ccRecipients: input.ccRecipients ?? [],
    bccRecipients: input.bccRecipients ?? [],
    replyTo: input.replyTo ?? [],
    flag: { flagStatus: input.flagged ? 'flagged' : 'notFlagged' },
  };
  state.attachments[id] = (input.attachments ?? []).map((a) => ({
    '@odata.type': '#microsoft.graph.fileAttachment',
    id: nextGraphId(state, 'AAMkATt'),
    lastModifiedDateTime: when,
    name: a.name,
    contentType: a.contentType,
    size: a.content.length,
    isInline: a.isInline ?? false,
    contentId: null,
    contentLocation: null,
    contentBytes: a.content.toString('base64'),
  }));
  return message;
}

const notFound = () => new GraphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
const invalidRequest = (message: string) => new GraphError(400, 'ErrorInvalidRequest', message);

function findMessage(state: OutlookState, id: string): GraphMessage {
  const m = state.messages.find((x) => x.id === id);
  if (!m) throw notFound();
  return m;
}

export function resolveFolder(state: OutlookState, ref: string): MailFolder {
  const id = state.wellKnownFolders[ref.toLowerCase()] ?? ref;
  const folder = state.folders.find((f) => f.id === id);
  if (!folder) throw notFound();
  return folder;
}

export function renderMessage(req: SandboxRequest) {
  const text = wantsTextBody(req);
  return (m: GraphMessage): Record<string, unknown> => {
    const { changeKey, ...rest } = m;
    const body = text && m.body.contentType === 'html' ? { contentType: 'text', content: stripHtml(m.body.content) } : m.body;
    return { '@odata.etag': `W/"${changeKey}"`, changeKey, ...rest, body };
  };
}

function renderFolder(state: OutlookState) {
  return (f: MailFolder) => {
    const inFolder = state.messages.filter((m) => m.parentFolderId === f.id);
    return {
      id: f.id,
      displayName: f.displayName,
      parentFolderId: f.parentFolderId,
      childFolderCount: state.folders.filter((c) => c.parentFolderId === f.id).length,
      unreadItemCount: inFolder.filter((m) => !m.isRead).length,
      totalItemCount: inFolder.length,
      isHidden: f.isHidden,
    };
  };
}

export function mailbox(state: OutlookState, userId: string): { id: string; messages: GraphMessage[] } {
  const ref = userId.toLowerCase();
  if ([state.user.id, state.user.mail, state.user.userPrincipalName].some((x) => x.toLowerCase() === ref)) {
    return { id: state.user.id, messages: state.messages };
  }
  const box = state.mailboxes.find((b) => b.id === ref || b.mail.toLowerCase() === ref);
  if (!box) throw new GraphError(404, 'ErrorInvalidUser', `The requested user '${userId}' is invalid.`);
  if (!box.delegated) throw new GraphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
  return box;
}

function getOne(req: SandboxRequest, state: OutlookState, m: GraphMessage): SandboxResponse {
  const row = renderMessage(req)(m);
  if (/attachments/i.test(queryParam(req, '$expand') ?? '')) row.attachments = state.attachments[m.id] ?? [];
  return { status: 200, body: applySelect(row, parseSelect(req, [row])) };
}

function recipientsOf(value: unknown, field: string): Recipient[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidRequest(`'${field}' must be an array of recipients.`);
  return value.map((r) => {
    const address = r?.emailAddress?.address;
    if (typeof address !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(address)) {
      throw new GraphError(400, 'ErrorInvalidRecipients', `At least one recipient is not valid., Recipient '${address ?? ''}' is not resolved. All recipients must be resolved before a message can be submitted.`);
    }
    return { emailAddress: { name: r.emailAddress.name ?? address, address } };
  });
}

function attachmentsOf(value: unknown): AttachmentSeed[] {
  if (!Array.isArray(value)) return [];
  return value.map((a) => {
    if (!isObject(a) || typeof a.name !== 'string' || typeof a.contentBytes !== 'string') throw invalidRequest('Each attachment needs name and contentBytes.');
    return { name: a.name, contentType: String(a.contentType ?? 'application/octet-stream'), content: Buffer.from(a.contentBytes, 'base64'), isInline: !!a.isInline };
  });
}

/** Sends a message: a copy in Sent Items (unless told not to) and in the inbox when it is addressed to the user. */
function submit(state: OutlookState, draft: Omit<NewMessage, 'folderId' | 'from'>, save = true): void {
  const me = { name: state.user.displayName, address: state.user.mail };
  const all = [...(draft.toRecipients ?? []), ...(draft.ccRecipients ?? []), ...(draft.bccRecipients ?? [])];
  if (all.length === 0) throw new GraphError(400, 'ErrorInvalidRecipients', 'At least one recipient is required, but none were found.');
  if (save) state.messages.push(buildMessage(state, { ...draft, from: me, folderId: state.wellKnownFolders.sentitems!, isRead: true }));
  if (all.some((r) => r.emailAddress.address.toLowerCase() === me.address)) {
    state.messages.push(buildMessage(state, { ...draft, from: me, folderId: state.wellKnownFolders.inbox!, isRead: false }));
  }
}

function quoted(m: GraphMessage, comment: unknown): { contentType: 'html'; content: string } {
  const intro = typeof comment === 'string' && comment ? `<p>${comment}</p>` : '';
  const who = m.from ? `${m.from.emailAddress.name} &lt;${m.from.emailAddress.address}&gt;` : '';
  return { contentType: 'html', content: `<html><body>${intro}<hr><p><b>From:</b> ${who}<br><b>Sent:</b> ${m.sentDateTime}<br><b>Subject:</b> ${m.subject}</p>${m.body.content}</body></html>` };
}

function storedAttachments(state: OutlookState, id: string): AttachmentSeed[] {
  return (state.attachments[id] ?? []).map((a) => ({ name: a.name, contentType: a.contentType, content: Buffer.from(a.contentBytes, 'base64'), isInline: a.isInline }));
}

const PATCHABLE = ['isRead', 'categories', 'flag', 'importance', 'inferenceClassification'];
const DRAFT_ONLY = ['subject', 'body', 'toRecipients', 'ccRecipients', 'bccRecipients', 'replyTo', 'from', 'sender'];

export function mailRoutes(state: OutlookState): Routes {
  const context = (path: string) => `users('${encodeURIComponent(state.user.id)}')/${path}`;
  const listMessages = (req: SandboxRequest, items: GraphMessage[], ctx: string) =>
    listResponse(req, items, { context: ctx, defaultOrder: 'receivedDateTime desc', render: renderMessage(req) });

  return {
    'GET /me': (req) => ({ status: 200, body: { '@odata.context': `${originOf(req)}/v1.0/$metadata#users/$entity`, ...state.user } }),
    'GET /me/messages': (req) => listMessages(req, state.messages, context('messages')),
    'GET /users/:userId/messages': (req) => {
      const box = mailbox(state, req.params.userId!);
      return listMessages(req, box.messages, `users('${encodeURIComponent(box.id)}')/messages`);
    },
    'GET /users/:userId/messages/:id': (req) => {
      const m = mailbox(state, req.params.userId!).messages.find((x) => x.id === req.params.id);
      if (!m) throw notFound();
      return getOne(req, state, m);
    },
    'GET /me/messages/:id': (req) => getOne(req, state, findMessage(state, req.params.id!)),
    'PATCH /me/messages/:id': (req) => {
      const m = findMessage(state, req.params.id!);
      if (!isObject(req.body)) throw invalidRequest('Empty Payload. JSON content expected.');
      for (const [k, v] of Object.entries(req.body)) {
        if (!(k in m)) {
          throw new GraphError(400, 'BadRequest', `The property '${k}' does not exist on type 'microsoft.graph.message'. Make sure to only use property names that are defined by the type.`);
        }
        if (DRAFT_ONLY.includes(k) && !m.isDraft) {
          throw new GraphError(400, 'ErrorInvalidPropertyUpdateSentMessage', 'Update operation is invalid for property of a sent message.');
        }
        if (k === 'categories' && (!Array.isArray(v) || v.some((c) => typeof c !== 'string'))) throw invalidRequest("'categories' must be an array of category names.");
        if (k === 'toRecipients' || k === 'ccRecipients' || k === 'bccRecipients' || k === 'replyTo') (m as any)[k] = recipientsOf(v, k);
        else if (PATCHABLE.includes(k) || DRAFT_ONLY.includes(k)) (m as any)[k] = v;
      }
      m.lastModifiedDateTime = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      m.changeKey = 'CQAAABYAAA' + hexId(m.id + m.lastModifiedDateTime + JSON.stringify(req.body), 12);
      return getOne(req, state, m);
    },
    'DELETE /me/messages/:id': (req) => {
      const m = findMessage(state, req.params.id!);
      state.messages.splice(state.messages.indexOf(m), 1);
      delete state.attachments[m.id];
      return { status: 204 };
    },
    'POST /me/sendMail': (req) => {
      const msg = isObject(req.body) ? req.body.message : undefined;
      if (!isObject(msg)) throw invalidRequest("The request body needs a 'message' object.");
      const body = isObject(msg.body) ? msg.body : { contentType: 'text', content: '' };
      submit(
        state,
        {
          subject: String(msg.subject ?? ''),
          body: { contentType: /^html$/i.test(String(body.contentType)) ? 'html' : 'text', content: String(body.content ?? '') },
          toRecipients: recipientsOf(msg.toRecipients, 'toRecipients'),
          ccRecipients: recipientsOf(msg.ccRecipients, 'ccRecipients'),
          bccRecipients: recipientsOf(msg.bccRecipients, 'bccRecipients'),
          replyTo: recipientsOf(msg.replyTo, 'replyTo'),
          importance: msg.importance,
          attachments: attachmentsOf(msg.attachments),
        },
        req.body.saveToSentItems !== false,
      );
      return { status: 202 };
    },
    'POST /me/messages/:id/reply': (req) => {
      const m = findMessage(state, req.params.id!);
      const to = m.replyTo.length ? m.replyTo : m.from ? [m.from] : [];
      submit(state, { subject: `RE: ${m.subject}`, body: quoted(m, req.body?.comment), toRecipients: to, conversationId: m.conversationId });
      return { status: 202 };
    },
    'POST /me/messages/:id/forward': (req) => {
      const m = findMessage(state, req.params.id!);
      const to = recipientsOf(req.body?.toRecipients ?? req.body?.message?.toRecipients, 'toRecipients');
      submit(state, { subject: `FW: ${m.subject}`, body: quoted(m, req.body?.comment), toRecipients: to, conversationId: m.conversationId, attachments: storedAttachments(state, m.id) });
      return { status: 202 };
    },
    // A move copies the message and removes the original, so the moved message has a new id.
    'POST /me/messages/:id/move': (req) => copyOrMove(req, state, true),
    'POST /me/messages/:id/copy': (req) => copyOrMove(req, state, false),
    'GET /me/messages/:id/attachments': (req) => {
      const m = findMessage(state, req.params.id!);
      return listResponse(req, state.attachments[m.id] ?? [], { context: context(`messages('${m.id}')/attachments`), defaultTop: 1000, render: (a) => ({ '@odata.mediaContentType': a.contentType, ...a }) });
    },
    'GET /me/messages/:id/attachments/:attachmentId': (req) => {
      const a = findAttachment(state, req.params.id!, req.params.attachmentId!);
      return { status: 200, body: applySelect({ '@odata.context': `#${context('attachments')}/$entity`, ...a }, parseSelect(req, [a as any])) };
    },
    'GET /me/messages/:id/attachments/:attachmentId/$value': (req) => {
      const a = findAttachment(state, req.params.id!, req.params.attachmentId!);
      return { status: 200, headers: { 'content-type': a.contentType }, body: Buffer.from(a.contentBytes, 'base64') };
    },
    'GET /me/mailFolders': (req) => {
      const hidden = queryParam(req, 'includeHiddenFolders') === 'true';
      const top = state.folders.filter((f) => f.parentFolderId === state.wellKnownFolders.msgfolderroot && (hidden || !f.isHidden));
      return listResponse(req, top, { context: context('mailFolders'), render: renderFolder(state) });
    },
    'POST /me/mailFolders': (req) => createFolder(req, state, state.wellKnownFolders.msgfolderroot!),
    'GET /me/mailFolders/:id': (req) => {
      const row = renderFolder(state)(resolveFolder(state, req.params.id!));
      return { status: 200, body: applySelect(row, parseSelect(req, [row])) };
    },
    'GET /me/mailFolders/:id/childFolders': (req) => {
      const parent = resolveFolder(state, req.params.id!);
      const children = state.folders.filter((f) => f.parentFolderId === parent.id);
      return listResponse(req, children, { context: context(`mailFolders('${parent.id}')/childFolders`), render: renderFolder(state) });
    },
    'POST /me/mailFolders/:id/childFolders': (req) => createFolder(req, state, resolveFolder(state, req.params.id!).id),
    'GET /me/mailFolders/:id/messages': (req) => {
      const folder = resolveFolder(state, req.params.id!);
      return listMessages(req, state.messages.filter((m) => m.parentFolderId === folder.id), context(`mailFolders('${folder.id}')/messages`));
    },
  };
}

function findAttachment(state: OutlookState, messageId: string, attachmentId: string): FileAttachment {
  findMessage(state, messageId);
  const a = state.attachments[messageId]?.find((x) => x.id === attachmentId);
  if (!a) throw notFound();
  return a;
}

function copyOrMove(req: SandboxRequest, state: OutlookState, move: boolean): SandboxResponse {
  const m = findMessage(state, req.params.id!);
  const destinationId = req.body?.destinationId;
  if (typeof destinationId !== 'string' || !destinationId) throw invalidRequest("The request body needs 'destinationId': a folder id or a well-known folder name.");
  const dest = resolveFolder(state, destinationId);
  const id = nextGraphId(state, 'AAMkAD');
  const copy: GraphMessage = { ...structuredClone(m), id, parentFolderId: dest.id, changeKey: 'CQAAABYAAA' + hexId(id, 12) };
  copy.webLink = copy.webLink.replace(encodeURIComponent(m.id), encodeURIComponent(id));
  state.attachments[id] = (state.attachments[m.id] ?? []).map((a) => ({ ...a, id: nextGraphId(state, 'AAMkATt') }));
  if (move) {
    state.messages.splice(state.messages.indexOf(m), 1, copy);
    delete state.attachments[m.id];
  } else state.messages.push(copy);
  return { status: 201, body: renderMessage(req)(copy) };
}

function createFolder(req: SandboxRequest, state: OutlookState, parentId: string): SandboxResponse {
  const name = req.body?.displayName;
  if (typeof name !== 'string' || !name.trim()) throw invalidRequest("The request body needs 'displayName'.");
  if (state.folders.some((f) => f.parentFolderId === parentId && f.displayName.toLowerCase() === name.toLowerCase())) {
    throw new GraphError(409, 'ErrorFolderExists', 'A folder with the specified name already exists.');
  }
  const folder: MailFolder = { id: nextGraphId(state, 'AQMkAD'), displayName: name, parentFolderId: parentId, isHidden: req.body?.isHidden === true };
  state.folders.push(folder);
  return { status: 201, body: renderFolder(state)(folder) };
}

