import type { Dispatcher } from 'undici';
import { InputError, ProviderError, UnexpectedAnswerError, type ProviderErrorInit, type RateLimit } from '../errors.js';
import { DEFAULT_RETRY_POLICY, decideRetry, parseRateLimit, type RetryPolicy } from './retry.js';
import { resolveEndpoint } from './url-guard.js';
import { observeAttempt } from './provider-telemetry.js';

// undici takes longer to load than anything else on a tool call's path: it loads with the first request, not at start-up.
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiOptions {
  connector: string;
  baseUrl: string;
  defaultHeaders?: Record<string, string>;
  /** Credentials, added as the very last step before sending. */
  auth: () => Record<string, string> | Promise<Record<string, string>>;
  /** Query parameters every request carries unless the caller set them (Vercel `teamId`). */
  defaultQuery?: Record<string, string>;
  /** Called once on a 401; resolve true when the credential was renewed and the request may be sent again. */
  onUnauthorized?: () => Promise<boolean>;
  dispatcher?: Dispatcher;
  retry?: RetryPolicy;
  maxResponseBytes?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  sleep?: (ms: number) => Promise<void>;
  /** Called before each request is sent, retries included; throwing stops it unsent (a budget reached). */
  beforeSend?: (request: { method: HttpMethod; path: string; attempt: number }) => Promise<void>;
  /** Revalidate GETs with If-None-Match; a 304 answers from here and costs no quota. */
  cache?: ResponseCache;
  /** Separates cache entries of different accounts. */
  cacheScope?: string;
}

export interface CachedResponse {
  etag: string;
  body: unknown;
  bodyEncoding: BodyEncoding;
  headers: Record<string, string>;
}

/** A bounded map from URL to the last response with an ETag. */
export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>();
  constructor(private readonly maxEntries = 500) {}

  get(key: string): CachedResponse | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: CachedResponse): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}

export interface ApiRequest {
  method: HttpMethod;
  /** A path such as /me/messages?$top=5, or a same-origin next-page link. */
  endpoint: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** The input field the endpoint came from, named in errors. */
  endpointField?: string;
  /** Answer the status instead of throwing for these non-2xx statuses (e.g. 304, 404 on a probe). */
  acceptStatus?: number[];
}

export type BodyEncoding = 'json' | 'text' | 'base64' | 'none';

export interface ApiResponse {
  status: number;
  /** Answered from the ETag cache after the provider said 304 Not Modified. */
  fromCache?: boolean;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  bodyEncoding: BodyEncoding;
  rateLimit: RateLimit;
}

export interface PreparedRequest {
  method: HttpMethod;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface Api {
  readonly connector: string;
  readonly baseUrl: URL;
  request(req: ApiRequest): Promise<ApiResponse>;
  /** Rate-limit headers of the latest response. */
  readonly rateLimit: RateLimit;
  /** The latest call answered with success, so a tool that cannot read that answer can say which call it was. */
  readonly lastAnswered: { method: string; path: string } | undefined;
  /** The provider's HTTP status of the latest response, whatever it was; undefined before any answer. */
  readonly lastStatus: number | undefined;
  /** What `request` would send, with credentials shown as [redacted]. Sends nothing. */
  prepare(req: ApiRequest): Promise<PreparedRequest>;
  get<T = any>(endpoint: string, query?: ApiRequest['query']): Promise<T>;
  post<T = any>(endpoint: string, body?: unknown, query?: ApiRequest['query']): Promise<T>;
  patch<T = any>(endpoint: string, body?: unknown): Promise<T>;
  put<T = any>(endpoint: string, body?: unknown): Promise<T>;
  delete<T = any>(endpoint: string): Promise<T>;
  /** The same client, credentials included, under another path of the same origin. */
  under(basePath: string): Api;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** One provider client for one account: URL confinement, credentials, retries and error shapes in one place. */
export function createApi(options: ApiOptions): Api {
  const base = new URL(options.baseUrl);
  const policy = options.retry ?? DEFAULT_RETRY_POLICY;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  function buildUrl(req: ApiRequest): URL {
    const url = resolveEndpoint(base, req.endpoint, req.endpointField);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    for (const [k, v] of Object.entries(options.defaultQuery ?? {})) if (!url.searchParams.has(k)) url.searchParams.set(k, v);
    return url;
  }

  function buildHeaders(req: ApiRequest): Record<string, string> {
    const headers: Record<string, string> = { 'user-agent': 'switchboard/0.1', ...options.defaultHeaders };
    for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
    if (req.body !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
    return headers;
  }

  function encodeBody(req: ApiRequest): string | undefined {
    if (req.body === undefined) return undefined;
    return typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
  }

  let lastRateLimit: RateLimit = {};
  let lastAnswered: Api['lastAnswered'];
  let lastStatus: number | undefined;

  async function send(req: ApiRequest): Promise<ApiResponse> {
    const url = buildUrl(req);
    const body = encodeBody(req);
    const cacheKey = `${options.cacheScope ?? ''} ${url.href} ${req.headers?.accept ?? ''}`;
    const revalidate = options.cache && req.method === 'GET' && !Object.keys(req.headers ?? {}).some((h) => /^if-/i.test(h));
    const cached = revalidate ? options.cache!.get(cacheKey) : undefined;
    let waitedMs = 0;
    let refreshed = false;
    const fail = (init: Omit<ProviderErrorInit, 'connector' | 'method' | 'path'>) =>
      new ProviderError({ connector: options.connector, method: req.method, path: url.pathname, ...init });
    const pause = async (ms: number) => {
      waitedMs += ms;
      await sleep(ms);
    };
    for (let attempt = 1; ; attempt++) {
      await options.beforeSend?.({ method: req.method, path: url.pathname, attempt });
      const headers = { ...buildHeaders(req), ...(cached ? { 'if-none-match': cached.etag } : {}), ...(await options.auth()) };
      let outcome: Awaited<ReturnType<typeof once>>;
      try {
        outcome = await observeAttempt(options.connector, req.method, url, attempt - 1, () => once(url, req.method, headers, body));
      } catch (error) {
        if (error instanceof InputError || options.signal?.aborted) throw error;
        const kind = networkKind(error);
        const decision = decideRetry({ method: req.method, attempt, waitedMs, networkError: kind }, policy);
        if (decision.retry) {
          await pause(decision.delayMs);
          continue;
        }
        throw fail({ status: 0, providerMessage: kind === 'timeout' ? `no answer within ${timeoutMs / 1000} s` : networkMessage(error) });
      }
      const { status, headers: resHeaders } = outcome;
      lastStatus = status;
      if (Object.keys(outcome.rateLimit).length) lastRateLimit = outcome.rateLimit;
      if (status === 304 && cached) {
        lastAnswered = { method: req.method, path: url.pathname };
        return { ...outcome, status: 200, fromCache: true, body: cached.body, bodyEncoding: cached.bodyEncoding, headers: { ...cached.headers, ...resHeaders } };
      }
      if (revalidate && status === 200 && resHeaders.etag && JSON.stringify(outcome.body ?? null).length < 1_000_000) {
        options.cache!.set(cacheKey, { etag: resHeaders.etag, body: outcome.body, bodyEncoding: outcome.bodyEncoding, headers: resHeaders });
      }
      if (status === 401 && options.onUnauthorized && !refreshed) {
        refreshed = true;
        if (await options.onUnauthorized()) continue;
      }
      if ((status >= 200 && status < 300) || req.acceptStatus?.includes(status)) {
        lastAnswered = { method: req.method, path: url.pathname };
        return outcome;
      }
      const { code, message } = errorDetails(outcome.body);
      const decision = decideRetry({ method: req.method, attempt, waitedMs, status, headers: resHeaders, message: message?.toLowerCase() }, policy);
      if (decision.retry) {
        await pause(decision.delayMs);
        continue;
      }
      throw fail({
        status,
        code,
        providerMessage: message,
        retryAfterSeconds: decision.retryAfterSeconds,
        rateLimit: outcome.rateLimit,
        body: outcome.body,
      });
    }
  }

  async function once(url: URL, method: HttpMethod, headers: Record<string, string>, body: string | undefined): Promise<ApiResponse> {
    const { request } = await loadUndici();
    const deadline = AbortSignal.timeout(timeoutMs);
    const res = await request(url, {
      method,
      headers,
      body,
      dispatcher: options.dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: options.signal ? AbortSignal.any([options.signal, deadline]) : deadline,
    });
    const flat = flattenHeaders(res.headers);
    const declared = Number(flat['content-length']);
    if (declared > maxBytes) {
      res.body.destroy();
      throw tooLarge(declared);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += chunk.length;
      if (size > maxBytes) {
        res.body.destroy();
        throw tooLarge(size);
      }
      chunks.push(chunk as Buffer);
    }
    const raw = Buffer.concat(chunks);
    const { body: parsed, encoding } = decodeBody(raw, flat['content-type']);
    return { status: res.statusCode, url: url.href, headers: flat, body: parsed, bodyEncoding: encoding, rateLimit: parseRateLimit(flat) };
  }

  function tooLarge(bytes: number): InputError {
    return new InputError(
      `The ${options.connector} response is ${bytes} bytes, over the ${maxBytes}-byte cap; ask for less (fewer fields with $select or select, a smaller page size or limit).`,
    );
  }

  async function json<T>(req: ApiRequest): Promise<T> {
    return (await send(req)).body as T;
  }

  return {
    connector: options.connector,
    baseUrl: base,
    request: send,
    get rateLimit() {
      return lastRateLimit;
    },
    get lastAnswered() {
      return lastAnswered;
    },
    get lastStatus() {
      return lastStatus;
    },
    async prepare(req) {
      const url = buildUrl(req);
      const headers = buildHeaders(req);
      for (const name of Object.keys(await options.auth())) headers[name] = '[redacted]';
      return { method: req.method, url: url.href, headers, ...(req.body !== undefined ? { body: req.body } : {}) };
    },
    get: (endpoint, query) => json({ method: 'GET', endpoint, query }),
    post: (endpoint, body, query) => json({ method: 'POST', endpoint, body, query }),
    patch: (endpoint, body) => json({ method: 'PATCH', endpoint, body }),
    put: (endpoint, body) => json({ method: 'PUT', endpoint, body }),
    delete: (endpoint) => json({ method: 'DELETE', endpoint }),
    under: (basePath) => createApi({ ...options, baseUrl: base.origin + basePath }),
  };
}

export function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function decodeBody(raw: Buffer, contentType = ''): { body: unknown; encoding: BodyEncoding } {
  if (raw.length === 0) return { body: null, encoding: 'none' };
  const type = contentType.toLowerCase();
  if (type.includes('json')) {
    try {
      return { body: JSON.parse(raw.toString('utf8')), encoding: 'json' };
    } catch {
      return { body: raw.toString('utf8'), encoding: 'text' };
    }
  }
  if (type === '' || type.startsWith('text/') || type.includes('xml') || type.includes('javascript') || type.includes('x-www-form-urlencoded')) {
    const text = raw.toString('utf8');
    if (!text.includes('\uFFFD')) return { body: text, encoding: 'text' };
  }
  return { body: raw.toString('base64'), encoding: 'base64' };
}

function errorDetails(body: unknown): { code?: string; message?: string } {
  if (!body || typeof body !== 'object') return typeof body === 'string' && body.length < 300 ? { message: body } : {};
  const b = body as { error?: unknown; message?: unknown; error_description?: unknown };
  if (b.error && typeof b.error === 'object') {
    const e = b.error as { code?: unknown; message?: unknown };
    return { code: stringOr(e.code), message: stringOr(e.message) };
  }
  const message = stringOr(b.message) ?? stringOr(b.error_description);
  const details = validationDetails((b as { errors?: unknown }).errors);
  return { code: stringOr(b.error), message: details ? `${message ?? 'Validation failed'}: ${details}`.slice(0, 500) : message };
}

/** GitHub's 422 says what was wrong only in errors[]: messages, or resource/field/code objects, or plain strings. */
function validationDetails(errors: unknown): string {
  if (!Array.isArray(errors)) return '';
  return errors
    .map((e) => {
      if (typeof e === 'string') return e;
      const o = (e ?? {}) as Record<string, unknown>;
      if (typeof o.message === 'string') return o.message;
      const parts = [typeof o.field === 'string' && `"${o.field}"`, typeof o.code === 'string' && o.code.replace(/_/g, ' '), o.value !== undefined && `(${JSON.stringify(o.value)})`];
      return parts.filter(Boolean).join(' ');
    })
    .filter(Boolean)
    .join('; ');
}

function stringOr(v: unknown): string | undefined {
  return typeof v === 'string' ? v.slice(0, 500) : typeof v === 'number' ? String(v) : undefined;
}

function networkKind(error: unknown): 'connect' | 'reset' | 'timeout' {
  const code = (error as { code?: string })?.code ?? '';
  const name = (error as { name?: string })?.name;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || name === 'TimeoutError' || name === 'AbortError') return 'timeout';
  if (code === 'ECONNREFUSED' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'connect';
  return 'reset';
}

function networkMessage(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return [e.code, e.message].filter(Boolean).join(' ').slice(0, 200) || 'network error';
}

/**
 * Runs code that reads a provider's answers. A TypeError after a successful answer means the answer lacked what the
 * code reads: say which call it was, not "Cannot read properties of undefined".
 */
export async function readingAnswers<T>(api: Api, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const answered = api.lastAnswered;
    if (error instanceof TypeError && answered) throw new UnexpectedAnswerError(api.connector, answered.method, answered.path, error);
    throw error;
  }
}
