import type { AuditTrail } from '../contracts/governance.js';
import { recordSignIn } from '../governance/acts.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as oauth from 'oauth4webapi';
import type Provider from 'oidc-provider';
import type { Dispatcher } from 'undici';
import { OAuthServer } from '../accounts/oauth.js';
import type { OAuthProvider, OAuthSettings } from '../config.js';
import { PAGE_SIGN_IN_PATH } from '../contracts/team.js';
import type { Route } from '../http/incoming.js';
import type { Logger } from '../log.js';
import { oauthRecord, providerRecord } from '../providers.js';
import type { Redactor } from '../redact.js';
import type { Provider as ApiProvider, SignInProvider, Store } from '../store/types.js';
import { PERSONAL_OWNER } from '../store/types.js';
import { admits, needsOrgs, type TeamRule } from './allow.js';
import { identityOf } from './identity.js';
import { errorPage, sendPage, signInPage } from './pages.js';
import { guarded, pendingSignIns } from './pending.js';
import { AUTH_PATHS } from './provider.js';
import { TEAM_SCOPES } from './scopes.js';

/**
 * The authorization server's login: the person picks GitHub or Microsoft, signs in there (code flow with PKCE, through
 * the app registrations Switchboard already uses), and is admitted when the operator's rules allow them. Picking a
 * provider on the page that names the client and its access is the consent.
 *
 * The sign-in is bound to the browser that started it twice over: starting one needs the authorization server's
 * interaction cookie, and finishing it needs a cookie set at the start; so a sign-in link or a provider's redirect
 * sent to someone else finishes nothing.
 */

export interface SignInOptions {
  audit?: AuditTrail;
  provider: Provider;
  issuer: URL;
  resource: string;
  store: Store;
  oauth: Record<OAuthProvider, OAuthSettings>;
  baseUrls: Record<ApiProvider, string>;
  dispatcher?: Dispatcher;
  redactor?: Redactor;
  logger: Logger;
  /** SWITCHBOARD_TEAM_ALLOW. */
  allow: TeamRule[];
  /** SWITCHBOARD_TEAM_ADMINS: admitted too, as admins; when empty the first person to sign in becomes admin. */
  admins: TeamRule[];
  /** The identity providers whose app registration is configured, in the order offered. */
  providers: SignInProvider[];
}

interface Pending {
  /** The authorization server's interaction the sign-in finishes; absent for a sign-in to the Integrations page. */
  uid?: string;
  provider: SignInProvider;
  verifier: string;
}

const title = (p: SignInProvider) => oauthRecord(p).title;

const callbackPath = (p: SignInProvider) => `/oauth/callback/${p}/sign-in`;
export function signInRoutes(o: SignInOptions): Route[] {
  const pendings = pendingSignIns(o.store, o.issuer.protocol === 'https:');
  const redirectUri = (p: SignInProvider) => new URL(callbackPath(p), o.issuer).href;

  async function interaction(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const [uid, chosen, extra] = url.pathname.slice(AUTH_PATHS.interaction.length).split('/');
    const details = await o.provider.interactionDetails(req, res).catch(() => undefined);
    if (!details || details.uid !== uid || extra !== undefined) {
      return sendPage(res, errorPage('Sign-in not found', 'This sign-in has expired or belongs to another browser. Start again from the application.', 404));
    }
    if (chosen === undefined) {
      const client = await o.provider.Client.find(String(details.params.client_id));
      const redirect = URL.parse(String(details.params.redirect_uri ?? ''));
      return sendPage(
        res,
        signInPage({
          uid: details.uid,
          clientName: String(client?.clientName ?? client?.clientId ?? 'An application'),
          clientId: String(details.params.client_id),
          redirectHost: redirect?.host || '(unknown)',
          scopes: String(details.params.scope ?? '').split(' '),
          providers: o.providers,
        }),
      );
    }
    await goUpstream(res, chosen, details.uid);
  }

  /** The page's sign-in: the same upstream sign-in and rules, ending in a session of the page instead of a grant. */
  async function pageSignIn(_req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    await goUpstream(res, url.pathname.slice(PAGE_SIGN_IN_PATH.length), undefined);
  }

  async function goUpstream(res: ServerResponse, chosen: string, uid: string | undefined): Promise<void> {
    const p = o.providers.find((name) => name === chosen);
    if (!p) return sendPage(res, errorPage('Unknown sign-in', `Sign in with ${o.providers.map(title).join(' or ')}.`, 404));
    const server = new OAuthServer(p, o.oauth[p], o.redactor);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const pending: Pending = { uid, provider: p, verifier };
    const cookie = await pendings.start(state, pending);
    const { scopes: who, organizationScope } = providerRecord(p).teamSignIn ?? { scopes: [] };
    const scopes = [...who, ...(organizationScope && needsOrgs([...o.allow, ...o.admins]) ? [organizationScope] : [])];
    const location = server.authorizationUrl({ redirectUri: redirectUri(p), scopes, state, codeChallenge: await oauth.calculatePKCECodeChallenge(verifier) });
    res.writeHead(303, { location, 'cache-control': 'no-store', 'set-cookie': cookie }).end();
  }

  async function callback(p: SignInProvider, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const { clearCookie } = pendings;
    const fail = (title: string, message: string, status = 400) => sendPage(res, errorPage(title, message, status), clearCookie);
    const state = url.searchParams.get('state') ?? '';
    const taken = await pendings.finish<Pending>(req, state);
    if ('refused' in taken) return sendPage(res, taken.refused, clearCookie);
    const { pending } = taken;
    if (pending.provider !== p) return fail('Sign-in not found', 'This sign-in is unknown, was already used, or is older than 10 minutes. Start again from the application.', 404);
    const found = pending.uid === undefined ? undefined : await o.provider.Interaction.find(pending.uid);
    if (pending.uid !== undefined && !found) return fail('Sign-in expired', 'This sign-in took too long. Start again from the application.', 404);
    const finish = async (result: Record<string, unknown>) => {
      if (!found) {
        if (result.error) return fail('Not signed in', String(result.error_description), 403);
        return pendings.toPage(res, String((result.login as { accountId: string }).accountId));
      }
      found.result = result;
      await found.save(Math.max(1, (found.exp ?? 0) - Math.floor(Date.now() / 1000)));
      res.writeHead(303, { location: found.returnTo, 'cache-control': 'no-store', ...clearCookie }).end();
    };
    const refused = url.searchParams.get('error');
    if (refused || !url.searchParams.get('code')) return finish({ error: 'access_denied', error_description: `The ${title(p)} sign-in did not finish (${refused ?? 'no code'}).` });

    const server = new OAuthServer(p, o.oauth[p], o.redactor);
    const tokens = await server.exchangeCode({ code: url.searchParams.get('code')!, state, redirectUri: redirectUri(p), codeVerifier: pending.verifier });
    const who = await identityOf(p, tokens.accessToken, { baseUrls: o.baseUrls, dispatcher: o.dispatcher });
    if (!(await admits([...o.allow, ...o.admins], who))) {
      o.logger.info('team sign-in refused', { provider: p, login: who.login });
      recordSignIn(o.audit, PERSONAL_OWNER, 'signin.refused', `${p} ${who.login}`);
      const whom = who.emails[0] ?? who.login;
      return finish({ error: 'access_denied', error_description: `${whom} may not sign in to this Switchboard; ask its operator to add them to SWITCHBOARD_TEAM_ALLOW.` });
    }
    const role = o.admins.length ? ((await admits(o.admins, who)) ? 'admin' : 'member') : undefined;
    const user = await o.store.team.users.signIn({ provider: p, subject: who.subject, login: who.login, email: who.emails[0] ?? null, role });
    if (user.disabled) {
      recordSignIn(o.audit, user.id, 'signin.refused', `${p} ${user.login}`);
      return finish({ error: 'access_denied', error_description: `${user.login}'s access to this Switchboard is disabled; ask an admin.` });
    }
    o.logger.info('team sign-in', { provider: p, user: user.id, role: user.role });
    recordSignIn(o.audit, user.id, 'signin', `${p} ${user.login}`);
    if (!found) return finish({ login: { accountId: user.id } });
    return finish({ login: { accountId: user.id }, consent: { grantId: await grantFor(user.id, found.params as Record<string, unknown>) } });
  }

  /** The grant of what the client asked for: this server's scopes (and OpenID's, when asked) for its one resource. */
  async function grantFor(owner: string, params: Record<string, unknown>): Promise<string> {
    const requested = String(params.scope ?? '').split(' ').filter(Boolean);
    const grant = new o.provider.Grant({ accountId: owner, clientId: String(params.client_id) });
    const known = requested.filter((s) => ['openid', 'offline_access', ...TEAM_SCOPES].includes(s));
    if (known.length) grant.addOIDCScope(known.join(' '));
    grant.addResourceScope(o.resource, requested.filter((s) => (TEAM_SCOPES as readonly string[]).includes(s)).join(' '));
    return grant.save();
  }

  const safely = guarded(o.logger);
  return [
    { method: 'GET', path: AUTH_PATHS.interaction, public: true, handle: safely(interaction) },
    { method: 'GET', path: PAGE_SIGN_IN_PATH, public: true, handle: safely(pageSignIn) },
    ...o.providers.map((p): Route => ({ method: 'GET', path: callbackPath(p), public: true, handle: safely((req, res, url) => callback(p, req, res, url)) })),
  ];
}
