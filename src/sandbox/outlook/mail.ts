import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import type { FileAttachment, GraphMessage, OutlookState } from './state.js';
import type { AttachmentSeed } from './data.js';
import {
  GraphError,
  applyExpand,
  applySelect,
  listResponse,
  nextGraphId,
  parseExpand,
  parseSelect,
  stripHtml,
  wantsTextBody,
  type Expanders,
  type Person,
  type Recipient,
} from './query.js';
import { hexId, isObject, originOf } from '../util.js';
import { boxContext, inEveryMailbox, invalidRequest, notFound, resolveFolderIn, type Box } from './mailbox.js';
import { messageCreated } from './subscriptions.js';

/**
 * Graph mail: messages (list, get, update, delete, send, reply, forward, move, copy) and attachments, under
 * /me/... and /users/{id}/... alike (folders and shared-mailbox categories in folders.ts).
 */

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

function findMessage(box: Box, id: string): GraphMessage {
  const m = box.messages.find((x) => x.id === id);
  if (!m) throw notFound();
  return m;
}

export function renderMessage(req: SandboxRequest) {
  const text = wantsTextBody(req);
  return (m: GraphMessage): Record<string, unknown> => {
    const { changeKey, ...rest } = m;
    const body = text && m.body.contentType === 'html' ? { contentType: 'text', content: stripHtml(m.body.content) } : m.body;
    return { '@odata.etag': `W/"${changeKey}"`, changeKey, ...rest, body };
  };
}

const renderAttachment = (a: FileAttachment): Record<string, unknown> => ({ '@odata.mediaContentType': a.contentType, ...a });

/** `$expand=attachments(...)` on messages. */
function messageExpanders(state: OutlookState): Expanders {
  return { attachments: (row) => (state.attachments[String(row.id)] ?? []).map(renderAttachment) };
}

/** Lists messages in Graph's shape: newest first, `$search`/`$filter`/`$orderby`/`$select`/`$expand`, paged. */
export function listMessages(req: SandboxRequest, state: OutlookState, items: GraphMessage[], context: string): SandboxResponse {
  return listResponse(req, items, { context, defaultOrder: 'receivedDateTime desc', render: renderMessage(req), expand: messageExpanders(state) });
}

function getOne(req: SandboxRequest, state: OutlookState, m: GraphMessage, status = 200): SandboxResponse {
  const row = renderMessage(req)(m);
  const expanders = messageExpanders(state);
  const out = applyExpand(applySelect(row, parseSelect(req, [row])), row, parseExpand(req, expanders), expanders);
  return { status, body: out };
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

/** Sends a message from a mailbox: a copy in its Sent Items (unless told not to), and in its inbox when addressed to itself. */
function submit(state: OutlookState, box: Box, draft: Omit<NewMessage, 'folderId' | 'from'>, save = true): void {
  const me = box.address;
  const all = [...(draft.toRecipients ?? []), ...(draft.ccRecipients ?? []), ...(draft.bccRecipients ?? [])];
  if (all.length === 0) throw new GraphError(400, 'ErrorInvalidRecipients', 'At least one recipient is required, but none were found.');
  const add = (m: GraphMessage) => {
    box.messages.push(m);
    messageCreated(state, box.id, m);
  };
  if (save) add(buildMessage(state, { ...draft, from: me, folderId: box.wellKnownFolders.sentitems!, isRead: true }));
  if (all.some((r) => r.emailAddress.address.toLowerCase() === me.address.toLowerCase())) {
    add(buildMessage(state, { ...draft, from: me, folderId: box.wellKnownFolders.inbox!, isRead: false }));
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
  return {
    'GET /me': (req) => ({ status: 200, body: { '@odata.context': `${originOf(req)}/v1.0/$metadata#users/$entity`, ...state.user } }),
    ...inEveryMailbox(state, {
      'GET /messages': (req, box) => listMessages(req, state, box.messages, boxContext(box, 'messages')),
      'GET /messages/:id': (req, box) => getOne(req, state, findMessage(box, req.params.id!)),
      'PATCH /messages/:id': (req, box) => {
        const m = findMessage(box, req.params.id!);
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
      'DELETE /messages/:id': (req, box) => {
        const m = findMessage(box, req.params.id!);
        box.messages.splice(box.messages.indexOf(m), 1);
        delete state.attachments[m.id];
        return { status: 204 };
      },
      'POST /sendMail': (req, box) => {
        const msg = isObject(req.body) ? req.body.message : undefined;
        if (!isObject(msg)) throw invalidRequest("The request body needs a 'message' object.");
        const body = isObject(msg.body) ? msg.body : { contentType: 'text', content: '' };
        submit(
          state,
          box,
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
      'POST /messages/:id/reply': (req, box) => {
        const m = findMessage(box, req.params.id!);
        const to = m.replyTo.length ? m.replyTo : m.from ? [m.from] : [];
        submit(state, box, { subject: `RE: ${m.subject}`, body: quoted(m, req.body?.comment), toRecipients: to, conversationId: m.conversationId });
        return { status: 202 };
      },
      'POST /messages/:id/forward': (req, box) => {
        const m = findMessage(box, req.params.id!);
        const to = recipientsOf(req.body?.toRecipients ?? req.body?.message?.toRecipients, 'toRecipients');
        submit(state, box, { subject: `FW: ${m.subject}`, body: quoted(m, req.body?.comment), toRecipients: to, conversationId: m.conversationId, attachments: storedAttachments(state, m.id) });
        return { status: 202 };
      },
      // A move copies the message and removes the original, so the moved message has a new id.
      'POST /messages/:id/move': (req, box) => copyOrMove(req, state, box, true),
      'POST /messages/:id/copy': (req, box) => copyOrMove(req, state, box, false),
      'GET /messages/:id/attachments': (req, box) => {
        const m = findMessage(box, req.params.id!);
        return listResponse(req, state.attachments[m.id] ?? [], { context: boxContext(box, `messages('${m.id}')/attachments`), defaultTop: 1000, render: renderAttachment });
      },
      'GET /messages/:id/attachments/:attachmentId': (req, box) => {
        const a = findAttachment(state, box, req.params.id!, req.params.attachmentId!);
        return { status: 200, body: applySelect({ '@odata.context': `#${boxContext(box, 'attachments')}/$entity`, ...a }, parseSelect(req, [a as any])) };
      },
      'GET /messages/:id/attachments/:attachmentId/$value': (req, box) => {
        const a = findAttachment(state, box, req.params.id!, req.params.attachmentId!);
        return { status: 200, headers: { 'content-type': a.contentType }, body: Buffer.from(a.contentBytes, 'base64') };
      },
    }),
  };
}

function findAttachment(state: OutlookState, box: Box, messageId: string, attachmentId: string): FileAttachment {
  findMessage(box, messageId);
  const a = state.attachments[messageId]?.find((x) => x.id === attachmentId);
  if (!a) throw notFound();
  return a;
}

function copyOrMove(req: SandboxRequest, state: OutlookState, box: Box, move: boolean): SandboxResponse {
  const m = findMessage(box, req.params.id!);
  const destinationId = req.body?.destinationId;
  if (typeof destinationId !== 'string' || !destinationId) throw invalidRequest("The request body needs 'destinationId': a folder id or a well-known folder name.");
  const dest = resolveFolderIn(box, destinationId);
  const id = nextGraphId(state, 'AAMkAD');
  const copy: GraphMessage = { ...structuredClone(m), id, parentFolderId: dest.id, changeKey: 'CQAAABYAAA' + hexId(id, 12) };
  copy.webLink = copy.webLink.replace(encodeURIComponent(m.id), encodeURIComponent(id));
  state.attachments[id] = (state.attachments[m.id] ?? []).map((a) => ({ ...a, id: nextGraphId(state, 'AAMkATt') }));
  if (move) {
    box.messages.splice(box.messages.indexOf(m), 1, copy);
    delete state.attachments[m.id];
  } else box.messages.push(copy);
  messageCreated(state, box.id, copy);
  return getOne(req, state, copy, 201);
}
