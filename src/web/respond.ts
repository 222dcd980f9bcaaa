import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../http/incoming.js';
import type { SafeHtml } from './html.js';

const MAX_FORM_BYTES = 64 * 1024;

export function newNonce(): string {
  return randomBytes(18).toString('base64');
}

/** Scripts and styles run only with this response's nonce; nothing may frame the page or send a form elsewhere. */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/**
 * Pages with forms use `same-origin`, which sends nothing to any other origin, as no-referrer does: under
 * no-referrer the browser sends `Origin: null` with a form post, and the listener refuses every post whose
 * Origin is not its own. Pages without forms (the sign-in pop-up) use no-referrer.
 */
export type ReferrerPolicy = 'same-origin' | 'no-referrer';

export function securityHeaders(nonce: string, referrer: ReferrerPolicy = 'same-origin'): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(nonce),
    'x-content-type-options': 'nosniff',
    'referrer-policy': referrer,
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
  };
}

export function sendHtml(
  res: ServerResponse,
  status: number,
  nonce: string,
  body: SafeHtml,
  headers: Record<string, string | string[]> = {},
  referrer: ReferrerPolicy = 'same-origin',
): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...securityHeaders(nonce, referrer), ...headers });
  res.end(body.value);
}

export function redirect(res: ServerResponse, location: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(303, { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff', ...headers });
  res.end();
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

export type Form = Map<string, string[]>;

/** Reads an application/x-www-form-urlencoded body (at most 64 KiB); undefined when it is not one. */
export async function readForm(req: IncomingMessage): Promise<Form | undefined> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const raw = await readBody(req, MAX_FORM_BYTES);
  if (!raw || type !== 'application/x-www-form-urlencoded') return undefined;
  const form: Form = new Map();
  for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) form.set(k, [...(form.get(k) ?? []), v]);
  return form;
}

export function field(form: Form, name: string): string {
  return (form.get(name)?.[0] ?? '').trim();
}

/** The origin the browser used to reach this listener: the public URL when one is set, else http://<Host>. */
export function requestOrigin(req: IncomingMessage, publicUrl: string | undefined): string {
  if (publicUrl) return new URL(publicUrl).origin;
  return `http://${req.headers.host ?? '127.0.0.1'}`;
}

/**
 * A form post must come from this page: the browser's Origin (when sent) must be ours, and
 * Sec-Fetch-Site (when sent) same-origin. The CSRF token is checked on top of this.
 */
export function sameOrigin(req: IncomingMessage, publicUrl: string | undefined): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  const ours = new Set([`http://${req.headers.host}`, `https://${req.headers.host}`]);
  if (publicUrl) ours.add(new URL(publicUrl).origin);
  return ours.has(origin);
}
