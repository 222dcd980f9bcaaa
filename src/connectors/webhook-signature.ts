import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** Compares an HMAC signature header with the one computed over the raw body, in constant time. */
export function signatureMatches(algorithm: 'sha256' | 'sha1', secret: string, raw: Buffer, given: string | undefined, prefix: string): boolean {
  if (!given || !given.startsWith(prefix)) return false;
  const expected = Buffer.from(prefix + createHmac(algorithm, secret).update(raw).digest('hex'));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** One header's value; the first when it was sent more than once. */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The body as a JSON object, or undefined when it is not one. */
export function jsonObject(raw: Buffer): Record<string, any> | undefined {
  try {
    const value = JSON.parse(raw.toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
