import type { ActivityRow } from './activity-view.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route } from '../http/incoming.js';
import { forOwner } from '../owner.js';
import { PERSONAL_OWNER } from '../store/index.js';
import { oauthRecord, registeredApps } from '../providers.js';
import { PROVIDERS, SIGN_IN_PROVIDERS } from '../store/types.js';
import { PAGE_SIGN_IN_PATH, PAGE_TICKET_PATH } from '../contracts/team.js';
import { clearPageTicketCookie, redeemPageTicket } from './page-ticket.js';
import { triggersList } from '../triggers/tools.js';
import { confirmRemovePage } from './accounts-view.js';
import { addCredential, createTrigger, makeDefault, removeAccount, removeTrigger, renameAccount, sendTest, type Outcome, type WebDeps } from './actions.js';
import type { EventRow } from './events-view.js';
import { keptValues } from './forms.js';
import { loginPage, messagePage, teamLoginPage } from './layout.js';
import { eventStreamRoute } from './live.js';
import { integrationsPage, type McpEndpoint, type PageModel } from './page.js';
import { field, newNonce, readForm, redirect, requestOrigin, sameOrigin, sendHtml, sendText, type Form } from './respond.js';
import { Sessions, type Notice, type WebSession } from './session.js';
import { beginInPopup, completeInPopup, oauthProvider, serverSignIn, SIGN_IN_UNAVAILABLE } from './signin.js';
import { kindChoices, type KindChoice } from './trigger-form.js';
import { personOf } from '../governance/person.js';
import { toolRefusal } from '../governance/tool-access.js';
import { budgetUsage } from '../governance/usage.js';
import type { PersonRow } from './people-view.js';
import { approvalsOf, decideOnPage } from './approvals-view.js';
import type { TriggerRow } from './triggers-view.js';

export type { WebDeps } from './actions.js';

/**
 * The Integrations & API Keys page and its forms. Every route is public to the listener (whose bearer
 * check is for MCP clients) and checks here instead: loopback needs nothing more, SWITCHBOARD_HTTP_TOKEN
 * needs a logged-in session cookie or the bearer token, and every POST needs the session's CSRF token.
 */
export function webRoutes(w: WebDeps): Route[] {
  const secure = w.config.http.publicUrl?.startsWith('https:') ?? false;
  const sessions = new Sessions(w.deps.store.webSessions, { token: w.config.http.token, secure });
  const signIn = serverSignIn(w);
  const web: WebDeps = { ...w, signIn };
  // Team mode: a session is a signed-in person's, and shows only what is theirs; the HTTP token signs nobody in.
  const team = w.config.team !== undefined;
  const signedIn = (session: WebSession | undefined) => (team ? session?.owner !== undefined : !!session?.authed);
  /** The request's session; in team mode none once its person is disabled or removed (disabling ends them too, this is the second line). */
  const current = async (req: IncomingMessage): Promise<WebSession | undefined> => {
    const session = await sessions.get(req);
    if (!team || session?.owner === undefined) return session;
    const person = await w.deps.store.team.users.get(session.owner);
    if (person && !person.disabled) return session;
    await sessions.destroy(session);
    return undefined;
  };
  /** What a session's requests run with: the store as its owner sees it. */
  const own = (session: WebSession): WebDeps => {
    const owner = session.owner ?? PERSONAL_OWNER;
    return { ...web, deps: { ...forOwner(w.deps, owner), actor: { owner, auth: 'page' } } };
  };

  /** The session of a page view, made when missing; undefined when the login form was sent instead. */
  const viewSession = async (req: IncomingMessage, res: ServerResponse): Promise<{ session: WebSession; cookie?: string } | undefined> => {
    let session = await current(req);
    if (signedIn(session)) return { session: session! };
    if (team) {
      const nonce = newNonce();
      sendHtml(res, 401, nonce, teamLoginPage(nonce, teamProviders(w), noTeamSignIn(w)));
      return undefined;
    }
    if (!sessions.tokenRequired || sessions.bearerOk(req)) {
      session = await sessions.create(true);
      return { session, cookie: sessions.setCookie(req, session) };
    }
    const pending = session ?? (await sessions.create(false));
    const nonce = newNonce();
    sendHtml(res, 401, nonce, loginPage(nonce, pending.csrf, false), session ? {} : { 'set-cookie': sessions.setCookie(req, pending) });
    return undefined;
  };

  /** A form post: same origin, a session, its CSRF token, and (behind a token) a logged-in session; else 403 and nothing changes. */
  const postSession = async (req: IncomingMessage, res: ServerResponse, needsLogin = true): Promise<{ session: WebSession; form: Form } | undefined> => {
    const form = await readForm(req);
    const session = await current(req);
    if (!sameOrigin(req, w.config.http.publicUrl)) return void sendText(res, 403, 'Forbidden: this form was not sent from this page.');
    if (needsLogin && team && !signedIn(session)) return void sendText(res, 403, 'Forbidden: sign in first.');
    if (!form || !sessions.csrfOk(session, form.get('csrf')?.[0])) {
      return void sendText(res, 403, 'Forbidden: the form has no valid CSRF token (the page may be stale). Reload the page and try again.');
    }
    if (needsLogin && (team || sessions.tokenRequired) && !signedIn(session)) return void sendText(res, 403, 'Forbidden: sign in first.');
    return { session: session!, form };
  };

  /**
   * A form action. Success: a message at the top of its section. Failure: shown next to the field it is about in
   * the form it came from (`formId`), with what was typed, and the page opens at the message; without a form, at the top of the section.
   */
  const action = (path: string, run: (w: WebDeps, form: Form) => Promise<Outcome>, section: Notice['section'], formId?: (form: Form) => string): Route => ({
    method: 'POST',
    path,
    public: true,
    async handle(req, res) {
      const posted = await postSession(req, res);
      if (!posted) return;
      const outcome = await run(own(posted.session), posted.form);
      const { session, form } = posted;
      if ('ok' in outcome) {
        await sessions.show(session, { notice: { kind: 'ok', text: outcome.ok, section } });
        return redirect(res, '/#notice');
      }
      const id = formId?.(form);
      if (!id) {
        await sessions.show(session, { notice: { kind: 'error', text: outcome.error, section } });
        return redirect(res, '/#notice');
      }
      await sessions.show(session, { problem: { form: id, field: outcome.field, text: outcome.error, values: keptValues(form) } });
      redirect(res, `/#${id}-error`);
    },
  });

  /** Who may see the page and its event stream: anyone on loopback without a token, else a logged-in session or the bearer token. */
  const viewer = async (req: IncomingMessage): Promise<WebDeps | undefined> => {
    const session = await current(req);
    if (signedIn(session)) return own(session!);
    if (!team && (!sessions.tokenRequired || sessions.bearerOk(req))) return web;
    return undefined;
  };

  return [
    {
      method: 'GET',
      path: '/',
      public: true,
      async handle(req, res) {
        const view = await viewSession(req, res);
        if (!view) return;
        const { session } = view;
        const mine = own(session);
        let { notice, problem } = await sessions.takeFlash(session);
        const nonce = newNonce();
        const api = await signIn();
        const lastEventId = await mine.deps.store.events.lastId();
        const accounts = await mine.deps.store.accounts.list();
        // A failed form that is no longer on the page (its account was removed meanwhile) reports at the top instead.
        const forms = new Set(['trigger-form', ...PROVIDERS.map((p) => `add-${p}`), ...accounts.map((a) => `rename-${a.id}`)]);
        if (problem && !forms.has(problem.form)) {
          notice = { kind: 'error', text: problem.text, section: 'accounts' };
          problem = undefined;
        }
        const body = integrationsPage({
          nonce,
          csrf: session.csrf,
          now: Date.now(),
          notice,
          problem,
          accounts,
          triggers: await listTriggers(mine),
          events: await recentEvents(mine, lastEventId, 20),
          lastEventId,
          kinds: await kindsFor(w, session.owner),
          endpoint: mcpEndpoint(w, req),
          sandbox: w.config.sandbox,
          sandboxCredentials: w.config.sandbox ? w.sandboxCredentials : undefined,
          signInUnavailable: api ? undefined : SIGN_IN_UNAVAILABLE,
          canLogOut: team || sessions.tokenRequired,
          people: team ? await peopleFor(w, session.owner) : undefined,
          budgets: await budgetsFor(w, session.owner),
          approvals: (await w.deps.policy?.current())?.approvals.length ? await approvalsOf(mine.deps, session.owner ?? PERSONAL_OWNER) : undefined,
          activity: await activityFor(w, mine, session.owner),
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
        if (team || !sessions.tokenRequired) return redirect(res, '/');
        if (!sessions.tokenOk(field(posted.form, 'token'))) {
          const nonce = newNonce();
          return sendHtml(res, 401, nonce, loginPage(nonce, posted.session.csrf, true));
        }
        // A fresh id on login, so a session id planted before it is worth nothing after.
        await sessions.destroy(posted.session);
        const session = await sessions.create(true);
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
        await sessions.destroy(posted.session);
        redirect(res, '/', { 'set-cookie': sessions.clearCookie(req) });
      },
    },
    action('/accounts/add', addCredential, 'accounts', (form) => `add-${field(form, 'provider')}`),
    action('/accounts/rename', renameAccount, 'accounts', (form) => `rename-${field(form, 'id')}`),
    action('/accounts/default', makeDefault, 'accounts'),
    action('/accounts/remove', removeAccount, 'accounts'),
    action('/triggers/create', createTrigger, 'triggers', () => 'trigger-form'),
    action('/triggers/remove', removeTrigger, 'triggers'),
    action('/triggers/test', sendTest, 'triggers'),
    action('/approvals/decide', decideOnPage, 'approvals'),
    eventStreamRoute(viewer),
    {
      method: 'GET',
      path: PAGE_TICKET_PATH,
      public: true,
      // The team sign-in's redirect: its one-time ticket names the person, in the browser that signed in; the session is new, so one planted before is worth nothing.
      async handle(req, res, url) {
        if (!team) return sendText(res, 404, 'Not found.');
        const clear = clearPageTicketCookie(secure);
        const redeemed = await redeemPageTicket(w.deps.store, req, url.searchParams.get('ticket') ?? '');
        const person = 'owner' in redeemed ? await w.deps.store.team.users.get(redeemed.owner) : undefined;
        if (!person || person.disabled) {
          const [title, text] =
            'refused' in redeemed && redeemed.refused === 'elsewhere'
              ? ['Signed in in another browser', 'This sign-in link belongs to the browser that signed in, and works only there. Sign in from the page in this browser instead.']
              : ['Sign-in not found', 'This sign-in is unknown, used, expired or no longer allowed. Sign in again from the page.'];
          const nonce = newNonce();
          return sendHtml(res, 403, nonce, messagePage(nonce, title, text), { 'set-cookie': clear });
        }
        const old = await sessions.get(req);
        if (old) await sessions.destroy(old);
        const session = await sessions.create(true, person.id);
        redirect(res, '/', { 'set-cookie': [sessions.setCookie(req, session), clear] });
      },
    },
    {
      method: 'GET',
      path: '/accounts/remove',
      public: true,
      async handle(req, res, url) {
        const view = await viewSession(req, res);
        if (!view) return;
        const nonce = newNonce();
        const headers: Record<string, string> = view.cookie ? { 'set-cookie': view.cookie } : {};
        const { store } = own(view.session).deps;
        const account = await store.accounts.find(url.searchParams.get('id') ?? '');
        if (!account) return sendHtml(res, 404, nonce, messagePage(nonce, 'Remove account', 'That account does not exist (any more).'), headers);
        const triggers = await store.triggers.list({ accountId: account.id });
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
        await beginInPopup(own(posted.session), req, res, provider, posted.form);
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

/** The newest events of all triggers (up to `last`), newest first. */
async function recentEvents(w: WebDeps, last: number, count: number): Promise<EventRow[]> {
  const events = w.deps.store.events;
  let from = Math.max(0, last - count);
  for (;;) {
    const batch = await events.after(from, { limit: last - from, payloads: false });
    if (batch.length >= count || from === 0) return batch.slice(-count).reverse();
    from = Math.max(0, from - count * 4);
  }
}

/** MCP over HTTP is served at /mcp of this same listener, as the browser reached it; over stdio the client starts the server. */
function mcpEndpoint(w: WebDeps, req: IncomingMessage): McpEndpoint {
  if (w.config.transport === 'http') return { transport: 'http', url: `${requestOrigin(req, w.config.http.publicUrl)}/mcp` };
  return { transport: 'stdio', command: `switchboard serve${w.config.sandbox ? ' --sandbox' : ''}` };
}

/** The identity providers a person may sign in to the page with, as team mode offers them: the external issuer's only, when there is one. */
function teamProviders(w: WebDeps): Array<{ path: string; title: string }> {
  const external = w.config.team?.external;
  if (external) return external.clientId ? [{ path: `${PAGE_SIGN_IN_PATH}oidc`, title: new URL(external.issuer).host }] : [];
  return registeredApps(SIGN_IN_PROVIDERS, w.config.oauth).map((p) => ({ path: `${PAGE_SIGN_IN_PATH}${p}`, title: oauthRecord(p).title }));
}

/** Why the page offers no sign-in: an external issuer without Switchboard's own client there. */
function noTeamSignIn(w: WebDeps): string {
  const redirectUri = new URL('/oauth/callback/oidc/sign-in', w.config.http.publicUrl).href;
  return (
    'People sign in to this Switchboard at its OpenID Connect issuer, where the page has no client yet: its operator registers one there ' +
    `with redirect URI ${redirectUri} and sets SWITCHBOARD_TEAM_CLIENT_ID (and SWITCHBOARD_TEAM_CLIENT_SECRET for a confidential client).`
  );
}

/** The trigger kinds the viewer may use: the policy's tools rules hide a kind as events/list hides its event type. */
async function kindsFor(w: WebDeps, viewer: string | undefined): Promise<KindChoice[]> {
  const all = kindChoices(w.deps.triggers?.kinds ?? new Map());
  const policy = await w.deps.policy?.current();
  const refusal = policy && toolRefusal(policy, await personOf(w.deps.store, viewer));
  return refusal ? all.filter((k) => !refusal({ name: k.kind, effect: 'read' })) : all;
}

/** The budgets' usage when the policy sets any: an admin's page (and a personal server's) shows everyone's. */
async function budgetsFor(w: WebDeps, viewer: string | undefined): Promise<PageModel['budgets']> {
  const policy = await w.deps.policy?.current();
  if (!policy?.budgets.length) return undefined;
  const person = await personOf(w.deps.store, viewer);
  const everyone = person.role === 'admin';
  return { lines: await budgetUsage(w.deps.store, policy, { owner: everyone ? undefined : person.id, now: w.deps.budgets?.now() }), everyone };
}

/** Everyone on the team and what they have, when the viewer is an admin; undefined for everyone else. */
const ACTIVITY_ROWS = 30;

/** An admin sees everyone's records (with who); anyone else, through their view of the store, only their own. */
async function activityFor(w: WebDeps, mine: WebDeps, viewer: string | undefined): Promise<{ rows: ActivityRow[]; everyone: boolean } | undefined> {
  if (!w.deps.audit) return undefined;
  const admin = viewer !== undefined && (await w.deps.store.team.users.get(viewer))?.role === 'admin';
  if (!admin) return { rows: await mine.deps.store.audit.list({ limit: ACTIVITY_ROWS }), everyone: false };
  const logins = new Map((await w.deps.store.team.users.list()).map((u) => [u.id, u.login]));
  const rows = await w.deps.store.audit.list({ limit: ACTIVITY_ROWS });
  return { rows: rows.map((r) => ({ ...r, who: logins.get(r.owner) ?? (r.owner || 'operator') })), everyone: true };
}

async function peopleFor(w: WebDeps, viewer: string | undefined): Promise<PersonRow[] | undefined> {
  const { store } = w.deps;
  if (viewer === undefined || (await store.team.users.get(viewer))?.role !== 'admin') return undefined;
  return Promise.all(
    (await store.team.users.list()).map(async (u) => {
      const theirs = store.ownedBy(u.id);
      const usable = await theirs.accounts.list();
      return {
        login: u.login,
        email: u.email,
        role: u.role,
        disabled: u.disabled,
        lastSeenAt: u.lastSeenAt,
        accounts: usable.filter((a) => !a.shared).length,
        shared: usable.filter((a) => a.shared).length,
        triggers: (await theirs.triggers.list()).length,
      };
    }),
  );
}
