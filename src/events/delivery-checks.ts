import { InputError } from '../errors.js';
import { ALLOW_PRIVATE_SETTING, checkForwardUrl, hostRefusal, type ForwardPolicy } from '../http/forward-guard.js';

export const SECRET_FIELD = 'delivery.secret';
export const URL_FIELD = 'delivery.url';
export const MIN_SECRET_BYTES = 24;
export const MAX_SECRET_BYTES = 64;
export const MAX_CALLBACK_URL_LENGTH = 2_048;
const SECRET_PREFIX = 'whsec_';
const STANDARD_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const LOOPBACK_LITERALS = new Set(['127.0.0.1', '[::1]']);

/** The client's signing secret as Standard Webhooks and the deployed clients write it; the error never repeats it. */
export function checkWebhookSecret(secret: unknown): string {
  const rule = `"${SECRET_FIELD}" must be "${SECRET_PREFIX}" followed by standard padded base64 of ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} random bytes`;
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) {
    throw new InputError(`${rule}; the value given does not start with "${SECRET_PREFIX}".`, SECRET_FIELD);
  }
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!STANDARD_BASE64.test(encoded) || encoded.length % 4 !== 0) {
    throw new InputError(`${rule}; what follows "${SECRET_PREFIX}" is not padded standard base64 (A-Z a-z 0-9 + /, "=" padding; base64url is refused).`, SECRET_FIELD);
  }
  const bytes = Buffer.from(encoded, 'base64').length;
  if (bytes < MIN_SECRET_BYTES || bytes > MAX_SECRET_BYTES) {
    throw new InputError(`${rule}; it decodes to ${bytes} bytes.`, SECRET_FIELD);
  }
  return secret;
}

/**
 * Why a callback's scheme is refused: plain http reaches only the loopback literals the clients' own test receivers
 * listen on, unless the operator allows private networks.
 */
function schemeRefusal(url: URL, allowPrivate: boolean): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return `${url.protocol} is not https`;
  if (LOOPBACK_LITERALS.has(url.hostname) || allowPrivate) return undefined;
  return `plain http is accepted only to http://127.0.0.1 or http://[::1] (or with ${ALLOW_PRIVATE_SETTING}=1); use https`;
}

/** Why a callback may not be sent to, judged without DNS (the dispatcher checks each address it connects to). */
export function callbackRefusal(url: URL, allowPrivate: boolean): string | undefined {
  return schemeRefusal(url, allowPrivate) ?? hostRefusal(url, allowPrivate);
}

/** A webhook callback URL as given, checked as forward URLs are and held to https; kept byte for byte. */
export async function checkCallbackUrl(url: unknown, allowPrivate: boolean, resolve?: ForwardPolicy['resolve']): Promise<string> {
  if (typeof url !== 'string' || url.length === 0) throw new InputError(`"${URL_FIELD}" is required: the https URL events are POSTed to.`, URL_FIELD);
  if (url.length > MAX_CALLBACK_URL_LENGTH) {
    throw new InputError(`"${URL_FIELD}" is ${url.length} characters long; at most ${MAX_CALLBACK_URL_LENGTH} are accepted.`, URL_FIELD);
  }
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const scheme = parsed?.protocol === 'http:' ? schemeRefusal(parsed, allowPrivate) : undefined;
  if (scheme) throw new InputError(`"${URL_FIELD}" is refused: ${scheme}.`, URL_FIELD);
  await checkForwardUrl(url, { allowPrivate, resolve }, URL_FIELD);
  return url;
}
