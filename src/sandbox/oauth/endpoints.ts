import type { OAuthProvider, OAuthSettings } from '../../config.js';
import { oauthRecord } from '../../providers.js';
import type { SandboxClient } from './state.js';

/** Where each stand-in authorization server answers: the paths of the provider record's endpoints, so a provider's sandbox serves whatever its record says. */

export interface OAuthPaths {
  authorize: string;
  token: string;
  /** RFC 7009 in the sandbox, beside the token endpoint. */
  revoke: string;
  device?: string;
  /** The page where a person approves a device sign-in. */
  verification?: string;
}

/** The tenant the sandbox's settings name where the record's URL has a `{tenant}`. */
const SANDBOX_TENANT = 'common';

/** A record URL's path, without a trailing slash; `{name}` placeholders become `value`, or route parameters `:name`. */
function pathOf(url: string, value?: string): string {
  return new URL(url.replace(/\{(\w+)\}/g, (_, name: string) => value ?? `:${name}`)).pathname.replace(/\/$/, '');
}

/** The route paths of one provider's stand-in authorization server. */
export function oauthPaths(provider: OAuthProvider): OAuthPaths {
  const record = oauthRecord(provider);
  const base = pathOf(record.url);
  const token = base + record.paths.token;
  return {
    // A provider that signs in on an install page has its stand-in sign-in page at <url>/authorize, where config looks for it.
    authorize: base + (record.paths.authorization ?? '/authorize'),
    token,
    revoke: `${token.slice(0, token.lastIndexOf('/'))}/revoke`,
    ...(record.paths.device ? { device: base + record.paths.device } : {}),
    ...(record.deviceVerificationPage ? { verification: pathOf(record.deviceVerificationPage) } : {}),
  };
}

/** What `config.oauth` becomes for one provider against its stand-in at `origin`. */
export function sandboxOAuthSettings(provider: OAuthProvider, origin: string, client: SandboxClient): OAuthSettings {
  const record = oauthRecord(provider);
  return {
    url: origin + pathOf(record.url, SANDBOX_TENANT),
    ...(record.url.includes('{tenant}') ? { tenant: SANDBOX_TENANT } : {}),
    ...(record.paths.authorization ? {} : { authorizeUrl: origin + oauthPaths(provider).authorize }),
    clientId: client.id,
    clientSecret: client.secret,
  };
}
