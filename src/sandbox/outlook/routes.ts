import { randomUUID } from 'node:crypto';
import type { Routes, SandboxResponse } from '../server.js';
import { controlRoutes, deltaRoutes } from './delta.js';
import { calendarRoutes, seedCalendar, withPersonalAccount } from './calendar.js';
import { FOLDERS, MAILBOXES, MESSAGES, USER, type MessageSeed } from './data.js';
import { folderRoutes } from './folders.js';
import { buildMessage, mailRoutes } from './mail.js';
import { GraphError, graphError, nextGraphId, wantsTextBody, type Person } from './query.js';
import { OUTLOOK_SAMPLE_TOKEN, type MailFolder, type OutlookState } from './state.js';
import { subscriptionControlRoutes, subscriptionRoutes } from './subscriptions.js';
import { apiBasePath, hexId, withMiddleware } from '../util.js';

/** Microsoft Graph v1.0 stand-in: auth and the seeded state here; mail in mail.ts and folders.ts, calendar and contacts in calendar.ts, the state's shape in state.ts. */

export { OUTLOOK_SAMPLE_TOKEN, type OutlookState } from './state.js';

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

/** The route table, every path under the base URL's path, as Graph's are under /v1.0. */
export function outlookRoutes(state: OutlookState): Routes {
  const routes = withPersonalAccount(state, { ...mailRoutes(state), ...folderRoutes(state), ...calendarRoutes(state), ...deltaRoutes(state), ...subscriptionRoutes(state), ...echoRoute });
  const prefixed = Object.fromEntries(Object.entries(routes).map(([key, handler]) => [key.replace(' /', ` ${apiBasePath('outlook')}/`), handler]));
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
