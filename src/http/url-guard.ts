import ipaddr from 'ipaddr.js';
import { InputError } from '../errors.js';

export const MAX_ENDPOINT_LENGTH = 2048;

/**
 * Turns a caller's endpoint into a URL under `base`, or refuses it before anything is sent.
 * Accepted: a path starting with '/' (with an optional query), or an absolute URL on the
 * base's own origin and path (a provider's next-page link).
 */
export function resolveEndpoint(base: URL, endpoint: unknown, field = 'endpoint'): URL {
  if (typeof endpoint !== 'string' || endpoint.length === 0) {
    throw new InputError(`"${field}" must be a non-empty path such as /me/messages.`, field);
  }
  if (endpoint.length > MAX_ENDPOINT_LENGTH) {
    throw new InputError(`"${field}" is ${endpoint.length} characters; at most ${MAX_ENDPOINT_LENGTH} are accepted.`, field);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(endpoint)) {
    throw new InputError(`"${field}" contains a control character (such as CR or LF); remove it.`, field);
  }
  if (/[^\u0020-\u007e]/.test(endpoint)) {
    throw new InputError(`"${field}" contains a non-ASCII character; percent-encode it (for example é as %C3%A9).`, field);
  }
  if (endpoint.includes('\\')) throw new InputError(`"${field}" contains a backslash; use '/' between path segments.`, field);
  if (endpoint.includes('#')) throw new InputError(`"${field}" contains '#'; fragments are not sent to APIs, remove it.`, field);

  const basePath = base.pathname.replace(/\/+$/, '');
  let pathAndQuery: string;
  if (endpoint.startsWith('//')) {
    throw new InputError(`"${field}" starts with '//', which names another host; give a path such as /me/messages.`, field);
  } else if (endpoint.startsWith('/')) {
    pathAndQuery = endpoint;
  } else if (/^[a-z][a-z0-9+.-]*:/i.test(endpoint)) {
    pathAndQuery = sameOriginRemainder(base, basePath, endpoint, field);
  } else {
    throw new InputError(`"${field}" must start with '/', for example /${endpoint.slice(0, 40)}.`, field);
  }

  const queryAt = pathAndQuery.indexOf('?');
  const path = queryAt === -1 ? pathAndQuery : pathAndQuery.slice(0, queryAt);
  checkPathSegments(path, field);

  const url = new URL(base.origin + basePath + pathAndQuery);
  if (url.origin !== base.origin || url.username || url.password || !url.pathname.startsWith(basePath + '/')) {
    throw new InputError(`"${field}" does not stay on ${base.origin}${basePath}; give a path under it.`, field);
  }
  return url;
}

function sameOriginRemainder(base: URL, basePath: string, endpoint: string, field: string): string {
  let absolute: URL;
  try {
    absolute = new URL(endpoint);
  } catch {
    throw new InputError(`"${field}" is not a valid URL; give a path such as /me/messages.`, field);
  }
  const prefix = base.origin + basePath + '/';
  if (absolute.origin !== base.origin || absolute.username || absolute.password || !endpoint.startsWith(prefix)) {
    throw new InputError(
      `"${field}" points to ${absolute.origin}, but this connector only reaches ${base.origin}${basePath}; give a path such as /me/messages.`,
      field,
    );
  }
  return endpoint.slice(base.origin.length + basePath.length);
}

/** Refuses dot segments and empty segments, however deeply they are percent-encoded. */
function checkPathSegments(path: string, field: string): void {
  let decoded = path;
  for (let i = 0; i < 4; i++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      throw new InputError(`"${field}" has a malformed percent-encoding; encode '%' as %25.`, field);
    }
    if (next === decoded) break;
    decoded = next;
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(decoded)) {
    throw new InputError(`"${field}" encodes a control character or backslash; remove it.`, field);
  }
  const segments = decoded.split('/').slice(1);
  if (segments.some((s, i) => s === '.' || s === '..' || (s === '' && i < segments.length - 1))) {
    throw new InputError(`"${field}" contains '.', '..' or '//' path segments (possibly percent-encoded); give a plain path.`, field);
  }
}

const FORBIDDEN_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'host',
  'api_key',
  'api-key',
  'x-api-key',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Lower-cases caller headers and refuses credentials, hop-by-hop headers and injected line breaks. */
export function checkCallerHeaders(headers: Record<string, string> | undefined, field = 'headers'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(headers ?? {})) {
    const name = rawName.toLowerCase();
    if (!TOKEN.test(name)) throw new InputError(`"${field}" has an invalid header name ${JSON.stringify(rawName.slice(0, 60))}.`, field);
    if (FORBIDDEN_HEADERS.has(name)) {
      const why = ['authorization', 'proxy-authorization', 'cookie', 'api_key', 'api-key', 'x-api-key'].includes(name)
        ? 'credentials are attached from the connected account; never send them yourself'
        : 'it is set by the HTTP client';
      throw new InputError(`"${field}.${rawName}" is not accepted: ${why}. Remove it.`, `${field}.${rawName}`);
    }
    if (typeof value !== 'string') throw new InputError(`"${field}.${rawName}" must be a string.`, `${field}.${rawName}`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value) || /[^\u0000-\u00ff]/.test(value)) {
      throw new InputError(`"${field}.${rawName}" contains a line break, control or non-Latin-1 character; remove it.`, `${field}.${rawName}`);
    }
    out[name] = value;
  }
  return out;
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and localhost: where plain http is allowed, for tests and the sandbox. */
export function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === 'loopback';
}

/**
 * An account's own API base URL, normalised (no trailing slash), or an error naming `name` and the fix.
 * https only (http on loopback), no credentials, query or fragment. The value is never echoed whole: it may hold a secret.
 */
export function checkBaseUrl(value: string, o: { name: string; field: string; example: string }): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new InputError(`${o.name} must be an absolute https URL such as ${o.example}.`, o.field);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InputError(`${o.name} must be an https URL such as ${o.example}; ${url.protocol} URLs are not accepted.`, o.field);
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (url.username || url.password) {
    throw new InputError(
      `${o.name} must not hold a user name or password (user:password@); the account's token is attached to every call. Give https://${url.host}${path}.`,
      o.field,
    );
  }
  if (url.search || url.hash || value.trim().endsWith('?') || value.trim().endsWith('#')) {
    throw new InputError(`${o.name} takes no query (?...) or fragment (#...); give only the API root, such as ${o.example}.`, o.field);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new InputError(`${o.name} must use https (plain http only on 127.0.0.1, [::1] or localhost): give https://${url.host}${path}.`, o.field);
  }
  return url.origin + path;
}
