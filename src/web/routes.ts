import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route } from '../mcp/http.js';
import { addCredential, createTrigger, makeDefault, removeAccount, removeTrigger, renameAccount, type WebDeps } from './actions.js';
import { loginPage, messagePage } from './layout.js';
import { confirmRemovePage, integrationsPage } from './page.js';
import { field, newNonce, readForm, redirect, sameOrigin, sendHtml, sendText, type Form } from './respond.js';
import { Sessions, type Flash, type WebSession } from './session.js';
import { beginInPopup, completeInPopup, oauthProvider, serverSignIn, SIGN_IN_UNAVAILABLE } from './signin.js';
import type { EventRow, TriggerRow } from './triggers-view.js';
import { triggersList } from '../triggers/tools.js';

export type { WebDeps } from './actions.js';

/**
 * The Integrations & API Keys page and its forms. Every route is public to the listener (whose bearer
 * check is for MCP clients) and checks here instead: loopback needs nothing more, SWITCHBOARD_HTTP_TOKEN
 * needs a logged-in session cookie or the bearer token, and every POST needs the session's CSRF token.
 */
export function webRoutes(w: WebDeps): Route[] {
  const sessions = new Sessions({ token: w.config.http.token, secure: w.config.http.publicUrl?.startsWith('https:') });
  const signIn = serverSignIn(w);
  const web: WebDeps = { ...w, signIn };

  /** The session of a page view, made when missing; undefined when the login form was sent instead. */
  const viewSession = (req: IncomingMessage, res: ServerResponse): { session: WebSession; cookie?: string } | undefined => {
    let session = sessions.get(req);
    if (session?.authed) return { session };
    if (!sessions.tokenRequired || sessions.bearerOk(req)) {
      session = sessions.create(true);
      return { session, cookie: sessions.setCookie(req, session) };
    }
    const pending = session ?? sessions.create(false);
    const nonce = newNonce();
    sendHtml(res, 401, nonce, loginPage(nonce, pending.csrf, false), session ? {} : { 'set-cookie': sessions.setCookie(req, pending) });
    return undefined;
  };

  /** A form post: same origin, a session, its CSRF token, and (behind a token) a logged-in session; else 403 and nothing changes. */
  const postSession = async (req: IncomingMessage, res: ServerResponse, needsLogin = true): Promise<{ session: WebSession; form: Form } | undefined> => {
    const form = await readForm(req);
    const session = sessions.get(req);
    if (!sameOrigin(req, w.config.http.publicUrl)) return void sendText(res, 403, 'Forbidden: this form was not sent from this page.');
    if (!form || !sessions.csrfOk(session, form.get('csrf')?.[0])) {
      return void sendText(res, 403, 'Forbidden: the form has no valid CSRF token (the page may be stale). Reload the page and try again.');
    }
    if (needsLogin && sessions.tokenRequired && !session!.authed) return void sendText(res, 403, 'Forbidden: sign in first.');
    return { session: session!, form };
  };

  const action =
    (path: string, run: (w: WebDeps, form: Form) => Promise<Flash>, anchor: string): Route => ({
      method: 'POST',
      path,
      public: true,
      async handle(req, res) {
        const posted = await postSession(req, res);
        if (!posted) return;
        posted.session.flash = await run(web, posted.form);
        redirect(res, `/#${anchor}`);
      },
    });

  return [
    {
      method: 'GET',
      path: '/',
      public: true,
      async handle(req, res) {
        const view = viewSession(req, res);
        if (!view) return;
        const { session } = view;
        const flash = session.flash;
        session.flash = undefined;
        const nonce = newNonce();
        const api = await signIn();
        const body = integrationsPage({
          nonce,
          csrf: session.csrf,
          flash,
          accounts: await w.deps.store.accounts.list(),
          triggers: await listTriggers(web),
          events: await recentEvents(web, 20),
          kinds: [...(w.deps.triggers?.kinds.values() ?? [])].map((k) => ({ kind: k.kind, connector: k.connector, description: k.description })),
          signInUnavailable: api ? undefined : SIGN_IN_UNAVAILABLE,
          canLogOut: sessions.tokenRequired,
        });
        sendHtml(res, 200, nonce, body, view.cookie ? { 'set-cookie': view.cookie } : {});
      },
    },
    {
      method: 'POST',
      path: '/login',
      public: true,
      async handle(req, res) {
        const posted = await postSession(req, res, false);
        if (!posted) return;
        if (!sessions.tokenRequired) return redirect(res, '/');
        if (!sessions.tokenOk(field(posted.form, 'token'))) {
          const nonce = newNonce();
          return sendHtml(res, 401, nonce, loginPage(nonce, posted.session.csrf, true));
        }
        // A fresh id on login, so a session id planted before it is worth nothing after.
        sessions.destroy(posted.session);
        const session = sessions.create(true);
        redirect(res, '/', { 'set-cookie': sessions.setCookie(req, session) });
      },
    },
    {
      method: 'POST',
      path: '/logout',
      public: true,
      async handle(req, res) {
        const posted = await postSession(req, res, false);
        if (!posted) return;
        sessions.destroy(posted.session);
        redirect(res, '/', { 'set-cookie': sessions.clearCookie(req) });
      },
    },
    action('/accounts/add', addCredential, 'accounts'),
    action('/accounts/rename', renameAccount, 'accounts'),
    action('/accounts/default', makeDefault, 'accounts'),
    action('/accounts/remove', removeAccount, 'accounts'),
    action('/triggers/create', createTrigger, 'triggers'),
    action('/triggers/remove', removeTrigger, 'triggers'),
    {
      method: 'GET',
      path: '/accounts/remove',
      public: true,
      async handle(req, res, url) {
        const view = viewSession(req, res);
        if (!view) return;
        const nonce = newNonce();
        const headers: Record<string, string> = view.cookie ? { 'set-cookie': view.cookie } : {};
        const account = await w.deps.store.accounts.find(url.searchParams.get('id') ?? '');
        if (!account) return sendHtml(res, 404, nonce, messagePage(nonce, 'Remove account', 'That account does not exist (any more).'), headers);
        const triggers = await w.deps.store.triggers.list({ accountId: account.id });
        sendHtml(res, 200, nonce, confirmRemovePage(nonce, view.session.csrf, account, triggers.length), headers);
      },
    },
    {
      method: 'POST',
      path: '/signin/',
      public: true,
      async handle(req, res, url) {
        const posted = await postSession(req, res);
        if (!posted) return;
        const provider = oauthProvider(url.pathname.slice('/signin/'.length));
        if (!provider) return sendText(res, 404, 'No sign-in for that provider: outlook, github and vercel sign in; sales takes an API key.');
        await beginInPopup(web, req, res, provider, posted.form);
      },
    },
    // Reached by the provider's redirect, which carries no SameSite=Strict cookie: the one-time state authenticates it.
    { method: 'GET', path: '/oauth/callback/', public: true, handle: (req, res, url) => completeInPopup(web, req, res, url) },
  ];
}

async function listTriggers(w: WebDeps): Promise<TriggerRow[]> {
  if (!w.deps.triggers) return [];
  const ctx = { deps: w.deps, signal: AbortSignal.timeout(30_000), progress: async () => undefined };
  return ((await triggersList.call({}, ctx)) as { triggers: TriggerRow[] }).triggers;
}

/** The newest events of all triggers, newest first. */
async function recentEvents(w: WebDeps, count: number): Promise<EventRow[]> {
  const events = w.deps.store.events;
  const last = await events.lastId();
  let from = Math.max(0, last - count);
  for (;;) {
    const batch = await events.after(from, { limit: last - from });
    if (batch.length >= count || from === 0) return batch.slice(-count).reverse();
    from = Math.max(0, from - count * 4);
  }
}
