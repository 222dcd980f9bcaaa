import { createHash } from 'node:crypto';
import { providerRecord, type Provider } from '../providers.js';
import type { Routes, SandboxHandler, SandboxRequest, SandboxResponse } from './server.js';

/** The path the provider's base URL ends in (Graph's /v1.0, or nothing): where its stand-in serves its API. */
export function apiBasePath(provider: Provider): string {
  return new URL(providerRecord(provider).baseUrl).pathname.replace(/\/$/, '');
}

/** Runs around every handler of a route table: auth, rate-limit headers, conditional requests. */
export type Middleware = (req: SandboxRequest, next: SandboxHandler) => Promise<SandboxResponse>;

export function withMiddleware(routes: Routes, middleware: Middleware): Routes {
  return Object.fromEntries(
    Object.entries(routes).map(([key, handler]) => [key, (req: SandboxRequest) => middleware(req, handler)]),
  );
}

/** The first value of a request header (Node lower-cases the names). */
export function header(req: SandboxRequest, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The token of `Authorization: Bearer <token>` (GitHub also takes `token <token>`). */
export function bearerToken(req: SandboxRequest, schemes: string[] = ['bearer']): string | undefined {
  const value = header(req, 'authorization');
  if (!value) return undefined;
  const [scheme, token] = value.trim().split(/\s+/, 2);
  return scheme && token && schemes.includes(scheme.toLowerCase()) ? token : undefined;
}

/** The origin the client used to reach this sandbox, so links point back at it. */
export function originOf(req: SandboxRequest): string {
  return `http://${header(req, 'host') ?? '127.0.0.1'}`;
}

/** A query parameter read case-insensitively (`$orderBy` and `$orderby` are the same option). */
export function queryParam(req: SandboxRequest, name: string): string | undefined {
  const want = name.toLowerCase();
  for (const [k, v] of req.query) if (k.toLowerCase() === want) return v;
  return undefined;
}

/** Builds a query string keeping `$` and `,` readable, as providers do in their next links. */
export function buildQuery(params: Array<[string, string]>): string {
  return params
    .map(([k, v]) => `${encodeURIComponent(k).replace(/%24/g, '$')}=${encodeURIComponent(v).replace(/%2C/gi, ',')}`)
    .join('&');
}

export function sha1(data: string | Buffer): string {
  return createHash('sha1').update(data).digest('hex');
}

/** Deterministic-looking hex ids: `hexId('dpl', 7)`. */
export function hexId(seed: string, length = 24): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, length);
}

export function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Clamped positive integer from a query value. */
export function intParam(value: string | undefined, fallback: number, min: number, max: number): number {
  const n = value === undefined ? NaN : Number.parseInt(value, 10);
  if (!Number.isFinite(n)) return fallback;
  return Math.min(max, Math.max(min, n));
}
