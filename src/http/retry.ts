import type { RateLimit } from '../errors.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** The most time, in ms, spent waiting between attempts of one request. */
  budgetMs: number;
  /** First back-off step in ms when the provider gives no Retry-After. */
  baseDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, budgetMs: 10_000, baseDelayMs: 250 };

export interface AttemptOutcome {
  method: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** Time already spent waiting, in ms. */
  waitedMs: number;
  status?: number;
  headers?: Record<string, string>;
  /** Set when no response arrived. `connect` failures never reached the provider. */
  networkError?: 'connect' | 'reset' | 'timeout';
  /** Lower-cased provider message, to spot GitHub's secondary limits. */
  message?: string;
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; retryAfterSeconds?: number };

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * Whether to send the request again, and after how long. 429 is retried for every method;
 * 503, 502, 504 and resets only for idempotent ones, since a POST may have reached the provider.
 */
export function decideRetry(o: AttemptOutcome, policy: RetryPolicy = DEFAULT_RETRY_POLICY, now = Date.now()): RetryDecision {
  const idempotent = IDEMPOTENT.has(o.method.toUpperCase());
  const retryAfterMs = parseRetryAfter(o.headers?.['retry-after'], now);
  const rate = parseRateLimit(o.headers ?? {});
  const exhausted = rate.remaining === 0 && (o.status === 403 || o.status === 429);
  const secondary = (o.status === 403 || o.status === 429) && /secondary rate limit|abuse/.test(o.message ?? '');

  let wantMs: number | undefined;
  if (o.networkError === 'connect') wantMs = backoff(o.attempt, policy);
  else if (o.networkError) wantMs = idempotent ? backoff(o.attempt, policy) : undefined;
  else if (o.status === 429 || exhausted || secondary) {
    if (retryAfterMs !== undefined) wantMs = retryAfterMs;
    else if (exhausted && rate.reset !== undefined) wantMs = Math.max(0, rate.reset * 1000 - now) + 500;
    else if (secondary) wantMs = 60_000;
    else wantMs = backoff(o.attempt, policy);
  } else if (o.status === 503) wantMs = idempotent ? (retryAfterMs ?? backoff(o.attempt, policy)) : undefined;
  else if (o.status === 502 || o.status === 504) wantMs = idempotent ? backoff(o.attempt, policy) : undefined;

  if (wantMs === undefined) return { retry: false, retryAfterSeconds: retryAfterMs !== undefined ? Math.ceil(retryAfterMs / 1000) : undefined };
  if (o.attempt >= policy.maxAttempts || o.waitedMs + wantMs > policy.budgetMs) {
    return { retry: false, retryAfterSeconds: Math.ceil(wantMs / 1000) };
  }
  return { retry: true, delayMs: wantMs };
}

function backoff(attempt: number, policy: RetryPolicy): number {
  const step = policy.baseDelayMs * 2 ** (attempt - 1);
  return Math.round(step / 2 + Math.random() * (step / 2));
}

/** Retry-After as delta seconds (fractional too, as Graph sends) or an HTTP date; ms from now. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function parseRateLimit(headers: Record<string, string>): RateLimit {
  const num = (name: string) => {
    const v = headers[name];
    return v === undefined || v === '' || Number.isNaN(Number(v)) ? undefined : Number(v);
  };
  const rate: RateLimit = {};
  const limit = num('x-ratelimit-limit');
  const remaining = num('x-ratelimit-remaining');
  const reset = num('x-ratelimit-reset');
  if (limit !== undefined) rate.limit = limit;
  if (remaining !== undefined) rate.remaining = remaining;
  if (reset !== undefined) rate.reset = reset;
  if (headers['x-ratelimit-resource']) rate.resource = headers['x-ratelimit-resource'];
  return rate;
}
