import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import * as oauth from 'oauth4webapi';
import type { ExternalIssuerConfig } from '../config.js';
import { InputError } from '../errors.js';
import type { Logger } from '../log.js';
import type { TeamUser, TeamUserStore } from '../store/types.js';
import { admits, type SignedInIdentity, type TeamRule } from './allow.js';
import type { Verified } from './resource.js';
import { FULL_SCOPE, mayRead, READ_SCOPE, TEAM_SCOPES } from './scopes.js';

/** What the protected resource needs of an external issuer's metadata, as discovered. */
export type IssuerMetadata = oauth.AuthorizationServer & { authorization_endpoint: string; token_endpoint: string; jwks_uri: string };

const SETTING = 'SWITCHBOARD_TEAM_ISSUER';
const CLOCK_TOLERANCE_SECONDS = 30;
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** How long a person found in the store is trusted without writing their sign-in again (login, address, last seen). */
const REFRESH_MS = 5 * 60_000;

/** Reads the issuer's OpenID Connect discovery document once, at start; an unusable one is a settings error. */
export async function discoverIssuer(issuer: string): Promise<IssuerMetadata> {
  const expected = new URL(issuer);
  const where = new URL(`${expected.pathname.replace(/\/$/, '')}/.well-known/openid-configuration`, expected).href;
  let metadata: oauth.AuthorizationServer;
  try {
    const response = await oauth.discoveryRequest(expected, { algorithm: 'oidc', signal: AbortSignal.timeout(10_000), [oauth.allowInsecureRequests]: expected.protocol === 'http:' });
    metadata = await oauth.processDiscoveryResponse(expected, response);
  } catch (error) {
    const found = (error as { cause?: { attribute?: string; body?: { issuer?: unknown } } }).cause;
    if (found?.attribute === 'issuer') {
      throw new InputError(
        `${SETTING}: ${where} names the issuer "${String(found.body?.issuer)}", not "${issuer}". Set ${SETTING} to the issuer exactly as its tokens name it ` +
          '(a multi-tenant address such as Entra\'s /common/v2.0 cannot be used: name your tenant).',
        SETTING,
      );
    }
    throw new InputError(`${SETTING}: the issuer's discovery document ${where} could not be read (${failure(error)}). Check the address and that this server can reach it.`, SETTING);
  }
  for (const field of ['jwks_uri', 'authorization_endpoint', 'token_endpoint'] as const) {
    const value = URL.parse(String(metadata[field] ?? ''));
    if (!value) throw new InputError(`${SETTING}: ${where} names no ${field}; Switchboard needs an OpenID Connect issuer that signs JWT access tokens and serves the authorization code flow.`, SETTING);
    if (value.protocol !== 'https:' && !(expected.protocol === 'http:' && value.hostname === expected.hostname)) {
      throw new InputError(`${SETTING}: ${where} names ${field} ${value.href}, which is not https.`, SETTING);
    }
  }
  return metadata as IssuerMetadata;
}

/** Why a request failed, in a few words: the status the server answered, or the connection's error code. */
function failure(error: unknown): string {
  const { message, cause } = error as { message: string; cause?: unknown };
  if (cause instanceof Response) return `it answered HTTP ${cause.status}`;
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? `${message}: ${code}` : message;
}

/** Switchboard's scope names as the issuer knows them: the same names, after the issuer's prefix when it wants one (Entra). */
export const scopeNames = (prefix = '') => ({ full: `${prefix}${FULL_SCOPE}`, read: `${prefix}${READ_SCOPE}` });

export interface ExternalVerifierOptions {
  metadata: IssuerMetadata;
  settings: ExternalIssuerConfig;
  /** `<public URL>/mcp`: the audience unless the settings name another, and what a verified token is for. */
  resource: string;
  users: TeamUserStore;
  allow: TeamRule[];
  admins: TeamRule[];
  logger: Logger;
}

/**
 * Checks an access token of the external issuer: a JWT signed with one of the keys its jwks_uri publishes (cached, so
 * a request normally costs no network call), of this issuer, for this audience, within its lifetime (30 seconds of
 * clock skew), with Switchboard's scopes; the person it names must be allowed and not disabled. Revoking a token is
 * the issuer's to do: a JWT stays valid until it expires, so `users disable` is the way to stop a person at once.
 */
export function externalVerifier(o: ExternalVerifierOptions) {
  const keys = createRemoteJWKSet(new URL(o.metadata.jwks_uri), { timeoutDuration: 5_000 });
  const audience = o.settings.audience ?? o.resource;
  const prefix = o.settings.scopePrefix ?? '';
  const known = new Map<string, { id: string; at: number; login: string; email: string | null }>();

  async function personOf(subject: string, who: SignedInIdentity): Promise<TeamUser | undefined> {
    const email = who.emails[0] ?? null;
    const seen = known.get(subject);
    if (seen && Date.now() - seen.at < REFRESH_MS && seen.login === who.login && seen.email === email) {
      const user = await o.users.get(seen.id);
      if (user) return user;
    }
    const user = await signInAtIssuer(o.users, o.admins, subject, who);
    known.set(subject, { id: user.id, at: Date.now(), login: who.login, email });
    return user;
  }

  return async (token: string): Promise<Verified> => {
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, keys, {
        issuer: o.metadata.issuer,
        audience,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      const refusal = refusalOf(error, o.metadata.issuer, audience);
      if (refusal) return { invalid: refusal };
      o.logger.warn('access token not verified: the issuer\'s keys could not be read', { jwks: o.metadata.jwks_uri, message: (error as Error).message });
      throw error;
    }
    const scopes = teamScopes(claims, prefix);
    const names = scopeNames(prefix);
    if (!mayRead(scopes)) return { insufficient: `This token allows no call; it needs scope ${names.read} or ${names.full}` };
    const who = identityOf(claims);
    if (!(await admits([...o.allow, ...o.admins], who))) {
      o.logger.info('team caller refused', { provider: 'oidc', login: who.login });
      return { invalid: `${who.emails[0] ?? who.login} may not use this Switchboard; ask its operator to add them to SWITCHBOARD_TEAM_ALLOW` };
    }
    const user = await personOf(`${o.metadata.issuer}#${claims.sub}`, who);
    if (!user || user.disabled) return { invalid: 'The person this access token was issued to may no longer sign in' };
    const clientId = [claims.client_id, claims.azp, claims.appid, claims.cid].find((c): c is string => typeof c === 'string') ?? '';
    // Accepted until its expiry plus the clock skew allowed (the MCP layer refuses a token past `expiresAt`).
    return { caller: { owner: user.id, clientId, scopes, token, expiresAt: claims.exp! + CLOCK_TOLERANCE_SECONDS, resource: o.resource } };
  };
}

/** Why a token is refused, or undefined when the failure is not the token's (the key set could not be fetched). */
function refusalOf(error: unknown, issuer: string, audience: string): string | undefined {
  if (error instanceof errors.JWTExpired) return 'The access token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return `Token was not issued for this resource (its audience is not ${audience})`;
    if (error.claim === 'iss') return `The access token was not issued by ${issuer}`;
    if (error.claim === 'nbf' || error.claim === 'iat') return 'The access token is not valid yet';
    return `The access token's ${error.claim} claim is missing or unusable`;
  }
  const unverified = [errors.JWSSignatureVerificationFailed, errors.JWKSNoMatchingKey, errors.JWKSMultipleMatchingKeys, errors.JWSInvalid, errors.JWTInvalid, errors.JOSEAlgNotAllowed, errors.JOSENotSupported];
  if (unverified.some((kind) => error instanceof kind)) return `The access token is not a JWT signed by ${issuer}`;
  return undefined;
}

/** Switchboard's scopes a token carries: `scope` (space separated) or `scp` (Entra: a string; Okta: an array), with or without the issuer's prefix. */
function teamScopes(claims: JWTPayload, prefix: string): string[] {
  const listed = [claims.scope, claims.scp].flatMap((value) => (typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : []));
  const names = listed.filter((s): s is string => typeof s === 'string').map((s) => (prefix && s.startsWith(prefix) ? s.slice(prefix.length) : s));
  return [...new Set(names.filter((s) => (TEAM_SCOPES as readonly string[]).includes(s)))];
}

/** Records the sign-in of a person the issuer vouched for, kept by `<issuer>#<sub>`; admin when SWITCHBOARD_TEAM_ADMINS admits them. */
export async function signInAtIssuer(users: TeamUserStore, admins: TeamRule[], subject: string, who: SignedInIdentity): Promise<TeamUser> {
  const role = admins.length ? ((await admits(admins, who)) ? 'admin' : 'member') : undefined;
  return users.signIn({ provider: 'oidc', subject, login: who.login, email: who.emails[0] ?? null, role });
}

/** Who a token (access or ID) names: its addresses (email unless marked unverified, upn, preferred_username when an address) for the allow rules. */
export function identityOf(claims: JWTPayload): SignedInIdentity {
  const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);
  const email = claims.email_verified === false ? undefined : text(claims.email);
  const login = text(claims.preferred_username) ?? text(claims.email) ?? text(claims.upn) ?? String(claims.sub);
  const emails = [email, text(claims.upn), text(claims.preferred_username)].filter((e): e is string => !!e && /^[^\s@]+@[^\s@]+$/.test(e)).map((e) => e.toLowerCase());
  return { provider: 'oidc', subject: String(claims.sub), login, emails: [...new Set(emails)] };
}
