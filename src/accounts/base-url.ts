import { InputError } from '../errors.js';
import { checkBaseUrl, isLoopbackHost } from '../http/url-guard.js';
import { providerRecord } from '../providers.js';
import type { Provider } from '../store/types.js';

/** An account's own API host: GitHub Enterprise Server, a Microsoft national cloud, or any host speaking the provider's API. */

/** Where the API lives under a bare host, when a bare host is certainly wrong. */
function bareHostHint(provider: Provider, host: string): string | undefined {
  const hint = providerRecord(provider).bareHostHint;
  if (!hint || (hint.unlessHostStartsWith && host.startsWith(hint.unlessHostStartsWith))) return undefined;
  return hint.text.replace('{host}', host);
}

/**
 * The `--base-url` of a new account (or the page's "API base URL"), checked and normalised.
 * `name` is how the person gave it, named in every error.
 */
export function accountBaseUrl(provider: Provider, value: string, name = '--base-url', field = 'base-url'): string {
  const url = checkBaseUrl(value, { name, field, example: providerRecord(provider).baseUrlExample });
  const { host, hostname, pathname } = new URL(url);
  const hint = pathname === '/' && !isLoopbackHost(hostname) ? bareHostHint(provider, host) : undefined;
  if (hint) throw new InputError(`${name}: ${hint}.`, field);
  return url;
}
