import { InputError } from './errors.js';
import type { TeamRule } from './contracts/team.js';

/** Team mode's settings: who may sign in, who is admin, and an external issuer in the built-in one's place. */

export interface TeamConfig {
  /** SWITCHBOARD_TEAM_ALLOW: who may sign in. */
  allow: TeamRule[];
  /** SWITCHBOARD_TEAM_ADMINS: who is admin (and may sign in); without it, the first person to sign in. */
  admins: TeamRule[];
  /** SWITCHBOARD_TEAM_ISSUER: an external OpenID Connect issuer takes the built-in authorization server's place. */
  external?: ExternalIssuerConfig;
  /** Sandbox mode without SWITCHBOARD_TEAM_ALLOW or _ADMINS: serve lets the sandbox's sample people sign in, and no one else. */
  sandboxPeople?: boolean;
  /** Tests only (no setting): client metadata documents are served on loopback, over TLS with a certificate of this authority. */
  metadataCa?: string;
}

export interface ExternalIssuerConfig {
  /** SWITCHBOARD_TEAM_ISSUER: the issuer, exactly as its discovery document names it. */
  issuer: string;
  /** SWITCHBOARD_TEAM_AUDIENCE: the `aud` of its access tokens for Switchboard; without it, `<public URL>/mcp`. */
  audience?: string;
  /** SWITCHBOARD_TEAM_SCOPE_PREFIX: what the issuer puts before Switchboard's scope names in requests (Entra: `api://<app id>/`). */
  scopePrefix?: string;
  /** SWITCHBOARD_TEAM_CLIENT_ID: Switchboard's own client at the issuer, which signs people in to the Integrations page; without it the page has no sign-in. */
  clientId?: string;
  /** SWITCHBOARD_TEAM_CLIENT_SECRET: that client's secret when it is a confidential client; without it, a public client (PKCE only). */
  clientSecret?: string;
}

/**
 * In sandbox mode team mode needs neither setting: serve takes the listener's own http://127.0.0.1:PORT as the public
 * URL, and only the sandbox's sample people may sign in (its stand-in GitHub and Microsoft vouch for no one else).
 */
export function teamConfig(env: Record<string, string | undefined>, publicUrl: { url: URL; given: string; name: string } | undefined, sandbox: boolean): TeamConfig {
  if (!publicUrl && !sandbox) {
    throw new InputError(
      '--team needs --public-url (or SWITCHBOARD_PUBLIC_URL): the https address people and MCP clients reach this server at, which names the tokens it issues. ' +
        'To try team mode on this machine first: switchboard serve --sandbox --http --team.',
      'public-url',
    );
  }
  const url = publicUrl?.url;
  if (url && (url.pathname !== '/' || url.search || url.hash)) {
    throw new InputError(`--team needs ${publicUrl!.name} to be an origin such as https://switchboard.example.com, without a path; not "${publicUrl!.given}".`, 'public-url');
  }
  const allow = parseTeamRules(env.SWITCHBOARD_TEAM_ALLOW, 'SWITCHBOARD_TEAM_ALLOW');
  const admins = parseTeamRules(env.SWITCHBOARD_TEAM_ADMINS, 'SWITCHBOARD_TEAM_ADMINS');
  const external = externalIssuer(env);
  if (allow.length === 0 && admins.length === 0) {
    if (sandbox && !external) return { allow, admins, sandboxPeople: true };
    throw new InputError(
      '--team needs SWITCHBOARD_TEAM_ALLOW: who may sign in, as a comma list of addresses (ada@example.com), domains (@example.com) and GitHub organizations (github-org:acme).' +
        (sandbox ? ' With SWITCHBOARD_TEAM_ISSUER the sandbox cannot vouch for who signs in, so it names no one by default.' : ''),
      'SWITCHBOARD_TEAM_ALLOW',
    );
  }
  if (external) {
    for (const [setting, rules] of [['SWITCHBOARD_TEAM_ALLOW', allow], ['SWITCHBOARD_TEAM_ADMINS', admins]] as const) {
      const org = rules.find((r) => r.kind === 'github-org');
      if (org) {
        throw new InputError(
          `${setting}: github-org:${org.org} cannot apply with SWITCHBOARD_TEAM_ISSUER, where people sign in at that issuer and not at GitHub; name addresses or domains instead.`,
          setting,
        );
      }
    }
  }
  return { allow, admins, ...(external ? { external } : {}) };
}

function externalIssuer(env: Record<string, string | undefined>): ExternalIssuerConfig | undefined {
  const value = env.SWITCHBOARD_TEAM_ISSUER?.trim();
  const audience = env.SWITCHBOARD_TEAM_AUDIENCE?.trim() || undefined;
  const scopePrefix = env.SWITCHBOARD_TEAM_SCOPE_PREFIX?.trim() || undefined;
  const clientId = env.SWITCHBOARD_TEAM_CLIENT_ID?.trim() || undefined;
  const clientSecret = env.SWITCHBOARD_TEAM_CLIENT_SECRET?.trim() || undefined;
  const given = { SWITCHBOARD_TEAM_AUDIENCE: audience, SWITCHBOARD_TEAM_SCOPE_PREFIX: scopePrefix, SWITCHBOARD_TEAM_CLIENT_ID: clientId, SWITCHBOARD_TEAM_CLIENT_SECRET: clientSecret };
  if (!value) {
    const stray = Object.entries(given).find(([, v]) => v)?.[0];
    if (stray) throw new InputError(`${stray} goes with SWITCHBOARD_TEAM_ISSUER (an external issuer); the built-in authorization server needs none of these.`, stray);
    return undefined;
  }
  if (clientSecret && !clientId) {
    throw new InputError(
      'SWITCHBOARD_TEAM_CLIENT_SECRET goes with SWITCHBOARD_TEAM_CLIENT_ID: set the client id of Switchboard\'s registration at the issuer too, or leave the secret out.',
      'SWITCHBOARD_TEAM_CLIENT_SECRET',
    );
  }
  const fix = 'the https URL of an OpenID Connect issuer, such as https://login.microsoftonline.com/<tenant id>/v2.0';
  const url = URL.parse(value);
  if (!url || !['https:', 'http:'].includes(url.protocol)) throw new InputError(`SWITCHBOARD_TEAM_ISSUER must be ${fix}; not "${value}".`, 'SWITCHBOARD_TEAM_ISSUER');
  if (url.protocol === 'http:' && !['127.0.0.1', 'localhost'].includes(url.hostname)) {
    throw new InputError(`SWITCHBOARD_TEAM_ISSUER must use https (http only on this machine, 127.0.0.1 or localhost); not "${value}".`, 'SWITCHBOARD_TEAM_ISSUER');
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new InputError(`SWITCHBOARD_TEAM_ISSUER must be ${fix}, without a query, fragment or credentials; not "${value}".`, 'SWITCHBOARD_TEAM_ISSUER');
  }
  for (const [setting, one] of [['SWITCHBOARD_TEAM_AUDIENCE', audience], ['SWITCHBOARD_TEAM_SCOPE_PREFIX', scopePrefix], ['SWITCHBOARD_TEAM_CLIENT_ID', clientId]] as const) {
    if (one && /\s/.test(one)) throw new InputError(`${setting} must be one value without spaces, not "${one}".`, setting);
  }
  return {
    issuer: value,
    ...(audience ? { audience } : {}),
    ...(scopePrefix ? { scopePrefix } : {}),
    ...(clientId ? { clientId } : {}),
    ...(clientSecret ? { clientSecret } : {}),
  };
}

const ADDRESS = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;
const DOMAIN = /^@[a-z0-9-]+(\.[a-z0-9-]+)+$/;
const ORG = /^github-org:([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))$/;

/** A comma list of rules (SWITCHBOARD_TEAM_ALLOW, SWITCHBOARD_TEAM_ADMINS); a rule that is none of the three forms is refused by name. */
export function parseTeamRules(value: string | undefined, setting: string): TeamRule[] {
  const rules: TeamRule[] = [];
  for (const raw of (value ?? '').split(',')) {
    const item = raw.trim().toLowerCase();
    if (!item) continue;
    const org = ORG.exec(item)?.[1];
    if (org) rules.push({ kind: 'github-org', org });
    else if (DOMAIN.test(item)) rules.push({ kind: 'domain', domain: item.slice(1) });
    else if (ADDRESS.test(item)) rules.push({ kind: 'address', address: item });
    else {
      throw new InputError(
        `${setting}: "${raw.trim()}" is not an address (ada@example.com), a domain (@example.com) or a GitHub organization (github-org:acme).`,
        setting,
      );
    }
  }
  return rules;
}
