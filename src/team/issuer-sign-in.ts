import type { AuditTrail } from '../contracts/governance.js';
import { recordSignIn } from '../governance/acts.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JWTPayload } from 'jose';
import * as oauth from 'oauth4webapi';
import { PAGE_SIGN_IN_PATH } from '../contracts/team.js';
import type { Route } from '../http/incoming.js';
import type { Logger } from '../log.js';
import type { Redactor } from '../redact.js';
import type { Store } from '../store/types.js';
import { PERSONAL_OWNER } from '../store/types.js';
import { admits, type TeamRule } from './allow.js';
import { identityOf, signInAtIssuer, type IssuerMetadata } from './external.js';
import { errorPage, sendPage } from './pages.js';
import { guarded, pendingSignIns } from './pending.js';

/** Where the external issuer returns a person signing in to the Integrations page: the redirect URI registered there. */
export const ISSUER_CALLBACK_PATH = '/oauth/callback/oidc/sign-in';
export const ISSUER_SIGN_IN_PATH = `${PAGE_SIGN_IN_PATH}oidc`;
const SCOPE = 'openid email profile';

export interface IssuerSignInOptions {
  audit?: AuditTrail;
  metadata: IssuerMetadata;
  /** SWITCHBOARD_TEAM_CLIENT_ID and SWITCHBOARD_TEAM_CLIENT_SECRET: Switchboard's own client at the issuer. */
  clientId: string;
  clientSecret?: string;
  publicUrl: URL;
  store: Store;
  allow: TeamRule[];
  admins: TeamRule[];
  redactor?: Redactor;
  logger: Logger;
}

/**
 * The Integrations page's sign-in at an external OpenID Connect issuer: the authorization code flow with PKCE (S256),
 * state and nonce, as Switchboard's own client there. The ID token the code is exchanged for names the person, who
 * is admitted by the same rules, and kept by the same `<issuer>#<sub>`, as the access tokens of MCP clients.
 */
export function issuerSignInRoutes(o: IssuerSignInOptions): Route[] {
  o.redactor?.add(o.clientSecret);
  const pendings = pendingSignIns(o.store, o.publicUrl.protocol === 'https:');
  const redirectUri = new URL(ISSUER_CALLBACK_PATH, o.publicUrl).href;
  const client: oauth.Client = { client_id: o.clientId };
  const auth = clientAuth(o.metadata, o.clientSecret);
  const insecure = { [oauth.allowInsecureRequests]: new URL(o.metadata.token_endpoint).protocol === 'http:' };
  const issuerName = new URL(o.metadata.issuer).host;

  async function start(_req: IncomingMessage, res: ServerResponse): Promise<void> {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const cookie = await pendings.start(state, { verifier, nonce });
    const location = new URL(o.metadata.authorization_endpoint);
    const query = { client_id: o.clientId, redirect_uri: redirectUri, response_type: 'code', scope: SCOPE, state, nonce };
    for (const [name, value] of Object.entries(query)) location.searchParams.set(name, value);
    location.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    location.searchParams.set('code_challenge_method', 'S256');
    res.writeHead(303, { location: location.href, 'cache-control': 'no-store', 'set-cookie': cookie }).end();
  }

  async function callback(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const refuse = (message: string) => sendPage(res, errorPage('Not signed in', message, 403), pendings.clearCookie);
    const state = url.searchParams.get('state') ?? '';
    const taken = await pendings.finish<{ verifier: string; nonce: string }>(req, state);
    if ('refused' in taken) return sendPage(res, taken.refused, pendings.clearCookie);
    let params: URLSearchParams;
    try {
      params = oauth.validateAuthResponse(o.metadata, client, url.searchParams, state);
    } catch (error) {
      const reason = error instanceof oauth.AuthorizationResponseError ? error.error : (error as Error).message;
      return refuse(`The sign-in at ${issuerName} did not finish (${reason}).`);
    }
    const claims = await idTokenClaims(params, taken.pending);
    const who = identityOf(claims);
    if (!(await admits([...o.allow, ...o.admins], who))) {
      o.logger.info('team sign-in refused', { provider: 'oidc', login: who.login });
      recordSignIn(o.audit, PERSONAL_OWNER, 'signin.refused', `oidc ${who.login}`);
      return refuse(`${who.emails[0] ?? who.login} may not sign in to this Switchboard; ask its operator to add them to SWITCHBOARD_TEAM_ALLOW.`);
    }
    const user = await signInAtIssuer(o.store.team.users, o.admins, `${o.metadata.issuer}#${claims.sub}`, who);
    if (user.disabled) {
      recordSignIn(o.audit, user.id, 'signin.refused', `oidc ${user.login}`);
      return refuse(`${user.login}'s access to this Switchboard is disabled; ask an admin.`);
    }
    o.logger.info('team sign-in', { provider: 'oidc', user: user.id, role: user.role });
    recordSignIn(o.audit, user.id, 'signin', `oidc ${user.login}`);
    await pendings.toPage(res, user.id);
  }

  /** The code exchanged for tokens, and the ID token's claims checked: issuer, audience, lifetime, nonce. */
  async function idTokenClaims(params: URLSearchParams, pending: { verifier: string; nonce: string }): Promise<JWTPayload & { sub: string }> {
    try {
      const response = await oauth.authorizationCodeGrantRequest(o.metadata, client, auth, params, redirectUri, pending.verifier, { ...insecure, signal: AbortSignal.timeout(10_000) });
      const tokens = await oauth.processAuthorizationCodeResponse(o.metadata, client, response, { expectedNonce: pending.nonce, requireIdToken: true });
      return oauth.getValidatedIdTokenClaims(tokens)! as JWTPayload & { sub: string };
    } catch (error) {
      if (error instanceof oauth.ResponseBodyError && error.error === 'invalid_client') {
        throw new Error(`${issuerName} did not accept Switchboard's client: check SWITCHBOARD_TEAM_CLIENT_ID and SWITCHBOARD_TEAM_CLIENT_SECRET.`);
      }
      if (error instanceof oauth.ResponseBodyError) throw new Error(`${issuerName} refused the sign-in (${error.error}${error.error_description ? `: ${error.error_description}` : ''}).`);
      throw new Error(`The sign-in at ${issuerName} could not be checked (${(error as Error).message}).`);
    }
  }

  const safely = guarded(o.logger);
  return [
    { method: 'GET', path: ISSUER_SIGN_IN_PATH, public: true, handle: safely(start) },
    { method: 'GET', path: ISSUER_CALLBACK_PATH, public: true, handle: safely(callback) },
  ];
}

/** A confidential client authenticates as the issuer prefers (HTTP Basic unless it lists only client_secret_post); a public one by PKCE alone. */
function clientAuth(metadata: IssuerMetadata, secret: string | undefined): oauth.ClientAuth {
  if (!secret) return oauth.None();
  const methods = metadata.token_endpoint_auth_methods_supported;
  if (methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')) return oauth.ClientSecretPost(secret);
  return oauth.ClientSecretBasic(secret);
}
