import { randomUUID } from 'node:crypto';
import type { Routes, SandboxResponse } from '../server.js';
import { controlRoutes, deltaRoutes } from './delta.js';
import { calendarRoutes, seedCalendar, withPersonalAccount, type CalendarState, type OutlookCategory } from './calendar.js';
import { FOLDERS, MAILBOXES, MESSAGES, USER, type MessageSeed } from './data.js';
import { folderRoutes } from './folders.js';
import { buildMessage, mailRoutes } from './mail.js';
import { GraphError, graphError, nextGraphId, wantsTextBody, type Person, type Recipient } from './query.js';
import { subscriptionControlRoutes, subscriptionRoutes } from './subscriptions.js';
import { hexId, withMiddleware } from '../util.js';

/** Microsoft Graph v1.0 stand-in: state and auth here; mail in mail.ts and folders.ts, calendar and contacts in calendar.ts. */

export interface GraphMessage {
  id: string;
  createdDateTime: string;
  lastModifiedDateTime: string;
  changeKey: string;
  categories: string[];
  receivedDateTime: string;
  sentDateTime: string;
  hasAttachments: boolean;
  internetMessageId: string;
  subject: string;
  bodyPreview: string;
  importance: 'low' | 'normal' | 'high';
  parentFolderId: string;
  conversationId: string;
  isDeliveryReceiptRequested: boolean;
  isReadReceiptRequested: boolean;
  isRead: boolean;
  isDraft: boolean;
  webLink: string;
  inferenceClassification: 'focused' | 'other';
  body: { contentType: 'html' | 'text'; content: string };
  sender: Recipient | null;
  from: Recipient | null;
  toRecipients: Recipient[];
  ccRecipients: Recipient[];
  bccRecipients: Recipient[];
  replyTo: Recipient[];
  flag: { flagStatus: 'notFlagged' | 'flagged' | 'complete' };
}
export interface MailFolder {
  id: string;
  displayName: string;
  parentFolderId: string;
  isHidden: boolean;
}
export interface FileAttachment {
  '@odata.type': '#microsoft.graph.fileAttachment';
  id: string;
  lastModifiedDateTime: string;
  name: string;
  contentType: string;
  size: number;
  isInline: boolean;
  contentId: string | null;
  contentLocation: string | null;
  contentBytes: string;
}
export interface SharedMailbox {
  id: string;
  displayName: string;
  mail: string;
  /** Whether the signed-in user was granted access to this mailbox. */
  delegated: boolean;
  messages: GraphMessage[];
  /** The mailbox's own folders, well-known names and master categories. */
  folders: MailFolder[];
  wellKnownFolders: Record<string, string>;
  categories: OutlookCategory[];
}

export interface OutlookState extends CalendarState {
  /** Bearer tokens this sandbox accepts; all act as `user` except the personal account's (OUTLOOK_PERSONAL_TOKEN, see calendar.ts). */
  tokens: Set<string>;
  user: typeof USER;
  folders: MailFolder[];
  /** Well-known folder name (inbox, sentitems, ...) → folder id. */
  wellKnownFolders: Record<string, string>;
  messages: GraphMessage[];
  /** File attachments by message id. */
  attachments: Record<string, FileAttachment[]>;
  mailboxes: SharedMailbox[];
  seq: number;
}

export const OUTLOOK_SAMPLE_TOKEN = 'sbx-outlook-token-0001';

export function createOutlookState(options: { now?: Date } = {}): OutlookState {
  const now = options.now ?? new Date();
  const state: OutlookState = {
    tokens: new Set([OUTLOOK_SAMPLE_TOKEN]),
    user: { ...USER },
    folders: [],
    wellKnownFolders: {},
    messages: [],
    attachments: {},
    mailboxes: [],
    seq: 0,
    events: [],
    contacts: [],
    categories: [],
    schedules: {},
  };
  const seedFolders = (box: { folders: MailFolder[]; wellKnownFolders: Record<string, string> }) => {
    for (const f of FOLDERS) {
      const id = nextGraphId(state, 'AQMkAD');
      if (f.wellKnown) box.wellKnownFolders[f.wellKnown] = id;
      const parent = f.parent ? box.wellKnownFolders[f.parent]! : '';
      box.folders.push({ id, displayName: f.displayName, parentFolderId: parent, isHidden: false });
    }
    return box;
  };
  seedFolders(state);
  const fromSeed = (seed: MessageSeed, box: { folders: MailFolder[]; wellKnownFolders: Record<string, string> } = state) => {
    const folder = box.folders.find((x) => x.displayName === seed.folder)?.id ?? box.wellKnownFolders[seed.folder]!;
    const when = new Date(now.getTime() - seed.hoursAgo * 3_600_000);
    const recips = (list: Person[] = []) => list.map((emailAddress) => ({ emailAddress }));
    return buildMessage(state, {
      folderId: folder,
      from: seed.from,
      toRecipients: recips(seed.to),
      ccRecipients: recips(seed.cc),
      subject: seed.subject,
      body: { contentType: 'html', content: seed.html },
      received: when,
      isRead: seed.isRead ?? false,
      isDraft: seed.isDraft,
      categories: seed.categories,
      importance: seed.importance,
      flagged: seed.flagged,
      focused: seed.focused,
      attachments: seed.attachments,
    });
  };
  state.messages = MESSAGES.map((seed) => fromSeed(seed));
  state.mailboxes = MAILBOXES.map((m) => {
    const box = seedFolders({ folders: [] as MailFolder[], wellKnownFolders: {} as Record<string, string> });
    const categories = (m.categories ?? []).map((c) => ({ id: randomUUID(), ...c }));
    return { ...m, ...box, categories, messages: m.messages.map((seed) => fromSeed(seed, box)) };
  });
  seedCalendar(state, now);
  return state;
}

/** Sandbox helper: an email arrives (in the inbox unless `folderId`, an id or well-known name, says otherwise). */

/** Sandbox-only: answers 200 with the request's headers, credential included, as some providers' debugging endpoints do. */
const echoRoute: Routes = { 'GET /_sandbox/echo': (req) => ({ status: 200, body: { headers: req.headers } }) };

/** The route table, every path under /v1.0 (the connector's base URL is `<url>/v1.0`). */
export function outlookRoutes(state: OutlookState): Routes {
  const routes = withPersonalAccount(state, { ...mailRoutes(state), ...folderRoutes(state), ...calendarRoutes(state), ...deltaRoutes(state), ...subscriptionRoutes(state), ...echoRoute });
  const prefixed = Object.fromEntries(Object.entries(routes).map(([key, handler]) => [key.replace(' /', ' /v1.0/'), handler]));
  const graph = withMiddleware(prefixed, async (req, next) => {
    const requestId = String(req.headers['client-request-id'] ?? '') || hexId(String(Math.random()), 32);
    const common = { 'request-id': requestId, 'client-request-id': requestId, 'odata-version': '4.0' };
    const token = /^bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? '').trim())?.[1];
    let res: SandboxResponse;
    if (!token || !state.tokens.has(token)) {
      res = graphError(401, 'InvalidAuthenticationToken', token ? 'Access token validation failure. Invalid audience.' : 'Access token is empty.');
      res.headers = { ...res.headers, 'www-authenticate': 'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000"' };
    } else {
      try {
        res = await next(req);
        if (wantsTextBody(req)) res.headers = { ...res.headers, 'preference-applied': 'outlook.body-content-type="text"' };
      } catch (error) {
        if (!(error instanceof GraphError)) throw error;
        res = graphError(error.status, error.code, error.message);
      }
    }
    return { ...res, headers: { ...common, ...res.headers } };
  });
  return { ...graph, ...controlRoutes(state), ...subscriptionControlRoutes(state) };
}

/** The route table (same as outlookRoutes). */
export const routes = outlookRoutes;
