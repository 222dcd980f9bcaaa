import { describe, expect, it } from 'vitest';
import { decideRetry, parseRateLimit, parseRetryAfter, type RetryPolicy } from '../../src/http/retry.js';

const policy: RetryPolicy = { maxAttempts: 4, budgetMs: 10_000, baseDelayMs: 100 };
const now = Date.parse('2026-11-22T12:00:00Z');

describe('parseRetryAfter', () => {
  it('reads whole and fractional seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('2.128', now)).toBe(2128);
  });
  it('reads an HTTP date', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:00:05 GMT', now)).toBe(5000);
  });
  it('ignores nonsense', () => {
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('decideRetry', () => {
  it('retries a 429 for every method after Retry-After', () => {
    expect(decideRetry({ method: 'POST', attempt: 1, waitedMs: 0, status: 429, headers: { 'retry-after': '1.5' } }, policy, now)).toEqual({ retry: true, delayMs: 1500 });
  });
  it('gives up when Retry-After exceeds the budget and says when to retry', () => {
    expect(decideRetry({ method: 'GET', attempt: 1, waitedMs: 0, status: 429, headers: { 'retry-after': '120' } }, policy, now)).toEqual({ retry: false, retryAfterSeconds: 120 });
  });
  it('never retries a POST on 503 or 502', () => {
    expect(decideRetry({ method: 'POST', attempt: 1, waitedMs: 0, status: 503, headers: { 'retry-after': '1' } }, policy, now).retry).toBe(false);
    expect(decideRetry({ method: 'POST', attempt: 1, waitedMs: 0, status: 502 }, policy, now).retry).toBe(false);
  });
  it('retries idempotent methods on 503, 502, 504', () => {
    for (const status of [502, 503, 504]) {
      const d = decideRetry({ method: 'GET', attempt: 1, waitedMs: 0, status }, policy, now);
      expect(d.retry).toBe(true);
    }
    expect(decideRetry({ method: 'PUT', attempt: 1, waitedMs: 0, status: 503, headers: { 'retry-after': '0.2' } }, policy, now)).toEqual({ retry: true, delayMs: 200 });
  });
  it('retries connection resets only for idempotent methods, refused connections for all', () => {
    expect(decideRetry({ method: 'GET', attempt: 1, waitedMs: 0, networkError: 'reset' }, policy, now).retry).toBe(true);
    expect(decideRetry({ method: 'POST', attempt: 1, waitedMs: 0, networkError: 'reset' }, policy, now).retry).toBe(false);
    expect(decideRetry({ method: 'PATCH', attempt: 1, waitedMs: 0, networkError: 'reset' }, policy, now).retry).toBe(false);
    expect(decideRetry({ method: 'POST', attempt: 1, waitedMs: 0, networkError: 'connect' }, policy, now).retry).toBe(true);
  });
  it('stops after the last attempt', () => {
    expect(decideRetry({ method: 'GET', attempt: 4, waitedMs: 0, status: 503 }, policy, now).retry).toBe(false);
  });
  it('does not retry client errors', () => {
    for (const status of [400, 401, 404, 409, 422]) expect(decideRetry({ method: 'GET', attempt: 1, waitedMs: 0, status }, policy, now).retry).toBe(false);
  });
  it('waits for a GitHub primary reset when it is near, and reports it when far', () => {
    const near = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 2) };
    const d = decideRetry({ method: 'GET', attempt: 1, waitedMs: 0, status: 403, headers: near }, policy, now);
    expect(d).toEqual({ retry: true, delayMs: 2500 });
    const far = { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 1800) };
    expect(decideRetry({ method: 'GET', attempt: 1, waitedMs: 0, status: 403, headers: far }, policy, now)).toEqual({ retry: false, retryAfterSeconds: 1801 });
  });
  it('treats a GitHub secondary limit without Retry-After as at least 60 s', () => {
    const d = decideRetry({ method: 'POST', attempt: 1, waitedMs: 0, status: 403, message: 'you have exceeded a secondary rate limit' }, policy, now);
    expect(d).toEqual({ retry: false, retryAfterSeconds: 60 });
  });
  it('a 403 that is not a rate limit is not retried', () => {
    expect(decideRetry({ method: 'GET', attempt: 1, waitedMs: 0, status: 403, headers: { 'x-ratelimit-remaining': '4000' } }, policy, now).retry).toBe(false);
  });
  it('backs off exponentially with jitter inside the step', () => {
    const delays = [1, 2, 3].map((attempt) => (decideRetry({ method: 'GET', attempt, waitedMs: 0, status: 502 }, policy, now) as { delayMs: number }).delayMs);
    expect(delays[0]).toBeGreaterThanOrEqual(50);
    expect(delays[0]).toBeLessThanOrEqual(100);
    expect(delays[2]).toBeGreaterThanOrEqual(200);
    expect(delays[2]).toBeLessThanOrEqual(400);
  });
});

describe('parseRateLimit', () => {
  it('reads x-ratelimit headers', () => {
    expect(parseRateLimit({ 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': '1700000000', 'x-ratelimit-resource': 'core' })).toEqual({
      limit: 5000,
      remaining: 4999,
      reset: 1700000000,
      resource: 'core',
    });
  });
});
