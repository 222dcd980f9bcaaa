import { InputError } from '../errors.js';
import { checkBaseUrl, isLoopbackHost } from '../http/url-guard.js';
import { PROVIDER_RECORDS } from '../providers.js';
import type { Provider } from '../store/types.js';

/** An account's own API host: GitHub Enterprise Server, a Microsoft national cloud, or any host speaking the provider's API. */

/** Where the API lives under a bare host, when a bare host is certainly wrong. */
const ROOT_HINTS: Partial<Record<Provider, (host: string) => string | undefined>> = {
  // GitHub Enterprise Server serves REST under /api/v3; github.com and GHE.com (api.<subdomain>.ghe.com) at the root of an api. host.
  github: (host) => (host.startsWith('api.') ? undefined : `GitHub Enterprise Server serves its API under /api/v3: give https://${host}/api/v3`),
  outlook: (host) => `Microsoft Graph's base URL ends in its version: give https://${host}/v1.0`,
};

/**
 * The `--base-url` of a new account (or the page's "API base URL"), checked and normalised.
 * `name` is how the person gave it, named in every error.
 */
export function accountBaseUrl(provider: Provider, value: string, name = '--base-url', field = 'base-url'): string {
  const url = checkBaseUrl(value, { name, field, example: PROVIDER_RECORDS[provider].baseUrlExample });
  const { host, hostname, pathname } = new URL(url);
  const hint = pathname === '/' && !isLoopbackHost(hostname) ? ROOT_HINTS[provider]?.(host) : undefined;
  if (hint) throw new InputError(`${name}: ${hint}.`, field);
  return url;
}
