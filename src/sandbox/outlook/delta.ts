import { randomBytes } from 'node:crypto';
import type { GraphMessage, OutlookState } from './state.js';
import { buildMessage, renderMessage } from './mail.js';
import { mailbox, resolveFolder, resolveFolderIn } from './mailbox.js';
import { GraphError, applySelect, graphError } from './query.js';
import { messageCreated } from './subscriptions.js';
import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import { header, isObject, originOf, queryParam } from '../util.js';

/** What a delta token remembers: the folder, the filter, and which messages the caller has seen. */
interface DeltaToken {
  userId: string;
  folderId: string;
  since: string | null;
  seen: Set<string>;
  expired: boolean;
}

interface PendingPage {
  rows: GraphMessage[];
  next: string;
  select: string[] | undefined;
}

const tokens = new WeakMap<OutlookState, Map<string, DeltaToken>>();
const pages = new WeakMap<OutlookState, Map<string, PendingPage>>();
const latencies = new WeakMap<OutlookState, number>();

function book<T>(map: WeakMap<OutlookState, Map<string, T>>, state: OutlookState): Map<string, T> {
  let m = map.get(state);
  if (!m) map.set(state, (m = new Map()));
  return m;
}

/** Sandbox control: every delta token now answers 410 syncStateNotFound, as Graph does when one expires. */
export function expireDeltaTokens(state: OutlookState): void {
  for (const t of book(tokens, state).values()) t.expired = true;
}

/** Sandbox control: every delta query answers `ms` late (0: at once), as Graph does under load. */
export function slowDelta(state: OutlookState, ms: number): void {
  latencies.set(state, ms);
}

async function lagging(state: OutlookState): Promise<void> {
  const ms = latencies.get(state) ?? 0;
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Delta query on a mail folder: `changeType=created`, `$filter=receivedDateTime ge`, `$select`, paging, expiry. */
function delta(state: OutlookState, req: SandboxRequest, userId: string): SandboxResponse {
  const box = mailbox(state, userId);
  const deltaTokens = book(tokens, state);
  const skip = queryParam(req, '$skiptoken');
  if (skip) {
    const page = book(pages, state).get(skip);
    if (!page) throw new GraphError(410, 'syncStateNotFound', 'The sync state is not found or has expired; do a full sync.');
    return pageOut(state, req, page, page.select);
  }
  const deltaToken = queryParam(req, '$deltatoken');
  let token: DeltaToken;
  if (deltaToken) {
    const found = deltaTokens.get(deltaToken);
    if (!found || found.expired) throw new GraphError(410, 'syncStateNotFound', 'The sync state generation is not found or has expired; do a full sync.');
    token = found;
  } else {
    const folderId = resolveFolderFor(state, req.params.folder!, box.id);
    const filter = queryParam(req, '$filter');
    let since: string | null = null;
    if (filter) {
      const m = /^receivedDateTime\s+ge\s+(\S+)$/i.exec(filter.trim());
      if (!m || Number.isNaN(Date.parse(m[1]!))) {
        throw new GraphError(400, 'ErrorInvalidUrlQueryFilter', 'Delta queries on messages support only $filter=receivedDateTime ge {value}.');
      }
      since = new Date(m[1]!).toISOString();
    }
    token = { userId: box.id, folderId, since, seen: new Set(), expired: false };
  }
  const inFolder = box.messages.filter(
    (m) => (token.folderId === '' || m.parentFolderId === token.folderId) && (!token.since || Date.parse(m.receivedDateTime) >= Date.parse(token.since)),
  );
  const fresh = inFolder.filter((m) => !token.seen.has(m.id)).sort((a, b) => a.receivedDateTime.localeCompare(b.receivedDateTime));
  const nextToken = randomBytes(12).toString('hex');
  deltaTokens.set(nextToken, { ...token, seen: new Set([...token.seen, ...inFolder.map((m) => m.id)]) });
  const select = queryParam(req, '$select')?.split(',').map((s) => s.trim()).filter(Boolean);
  const base = `${originOf(req)}${req.path}`;
  return pageOut(state, req, { rows: fresh, next: `${base}?$deltatoken=${nextToken}`, select }, select);
}

function resolveFolderFor(state: OutlookState, ref: string, boxId: string): string {
  if (boxId !== state.user.id) return '';
  return resolveFolder(state, ref).id;
}

function pageOut(state: OutlookState, req: SandboxRequest, page: PendingPage, select: string[] | undefined): SandboxResponse {
  const size = Math.max(1, Math.min(1000, Number(/odata\.maxpagesize=(\d+)/i.exec(header(req, 'prefer') ?? '')?.[1] ?? 10)));
  const rows = page.rows.slice(0, size);
  const rest = page.rows.slice(size);
  const render = renderMessage(req);
  const body: Record<string, unknown> = {
    '@odata.context': `${originOf(req)}/v1.0/$metadata#Collection(message)`,
    value: rows.map((m) => applySelect(render(m), select)),
  };
  if (rest.length) {
    const skip = randomBytes(12).toString('hex');
    book(pages, state).set(skip, { ...page, rows: rest });
    body['@odata.nextLink'] = `${originOf(req)}${req.path}?$skiptoken=${skip}`;
  } else {
    body['@odata.deltaLink'] = page.next;
  }
  return { status: 200, body };
}

/** Delta routes (behind the Graph auth middleware). */
export function deltaRoutes(state: OutlookState): Routes {
  return {
    'GET /me/mailFolders/:folder/messages/delta': async (req) => {
      await lagging(state);
      return delta(state, req, state.user.id);
    },
    'GET /users/:user/mailFolders/:folder/messages/delta': async (req) => {
      await lagging(state);
      return delta(state, req, req.params.user!);
    },
  };
}

/**
 * Sandbox-only control routes, outside Graph's paths and auth: deliver a new email to the inbox
 * (`POST /_sandbox/outlook/deliver`) and expire every delta token (`POST /_sandbox/outlook/expire-delta`).
 */
export function controlRoutes(state: OutlookState): Routes {
  return {
    'POST /_sandbox/outlook/deliver': (req) => {
      const b = req.body;
      if (!isObject(b) || typeof b.subject !== 'string' || !isObject(b.from) || typeof b.from.address !== 'string') {
        return graphError(400, 'invalidRequest', 'Send {"subject": "...", "from": {"name": "...", "address": "..."}, "text"?: "...", "attachments"?: [{"name", "size"}]}.');
      }
      const message = deliverEmail(state, {
        subject: b.subject,
        from: { name: String(b.from.name ?? b.from.address), address: b.from.address },
        text: typeof b.text === 'string' ? b.text : '',
        attachments: Array.isArray(b.attachments) ? b.attachments.map((a: any) => ({ name: String(a.name), size: Number(a.size) || 0 })) : [],
        folder: typeof b.folder === 'string' ? b.folder : undefined,
      });
      return { status: 201, body: { id: message.id, receivedDateTime: message.receivedDateTime } };
    },
    'POST /_sandbox/outlook/expire-delta': () => {
      expireDeltaTokens(state);
      return { status: 204 };
    },
  };
}

/** Drops a new email into a folder (default inbox) of the user's mailbox or of a shared one; attachments may claim any size without carrying the bytes. */
export function deliverEmail(
  state: OutlookState,
  input: { subject: string; from: { name: string; address: string }; text?: string; attachments?: Array<{ name: string; size: number }>; folder?: string; mailbox?: string },
): GraphMessage {
  const box = mailbox(state, input.mailbox ?? state.user.id);
  const message = buildMessage(state, {
    folderId: resolveFolderIn(box, input.folder ?? 'inbox').id,
    from: input.from,
    toRecipients: [{ emailAddress: box.address }],
    subject: input.subject,
    body: { contentType: 'text', content: input.text ?? '' },
    attachments: (input.attachments ?? []).map((a) => ({ name: a.name, contentType: 'application/octet-stream', content: Buffer.from('sandbox') })),
  });
  state.attachments[message.id]?.forEach((a, i) => (a.size = input.attachments![i]!.size));
  box.messages.push(message);
  messageCreated(state, box.id, message);
  return message;
}
