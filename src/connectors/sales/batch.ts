import { ProviderError } from '../../errors.js';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, type RetryPolicy } from '../../http/retry.js';
import type { BatchAnswer, Credits, Outcome } from './dialect.js';

export interface BatchRun<Q, R> {
  queries: Q[];
  /** Records per request. */
  size: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** The connector's retry policy; the batch back-off scales from it. */
  policy?: RetryPolicy;
  signal?: AbortSignal;
  send(batch: Q[]): Promise<BatchAnswer<R>>;
  /** Called once per batch as it settles (in completion order), with its first query's index. */
  settled(start: number, outcomes: Outcome<R>[], credits: Credits): Promise<void>;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/**
 * The back-off for a rate-limited batch: the provider's Retry-After when it sends one, else exponential
 * steps with jitter from 2 x the policy's first step; at most 5 attempts and 3 x the policy's budget per batch.
 * Defaults: 0.5, 1, 2, 4 s (jittered) within 30 s.
 */
export function batchBackoff(policy: RetryPolicy = DEFAULT_RETRY_POLICY) {
  return { maxAttempts: 5, baseMs: policy.baseDelayMs * 2, budgetMs: policy.budgetMs * 3 };
}

/** 401/403 fail every batch alike (the key, the plan): stop and fail the call rather than repeat it. */
const isFatal = (error: unknown) => error instanceof ProviderError && (error.status === 401 || error.status === 403);

/**
 * Runs the queries in batches with bounded concurrency. A 429 pauses every worker for the back-off
 * (so they do not all hammer the provider) and retries the batch; when the budget runs out, or a
 * batch fails otherwise, its records become errors and the other batches go on.
 */
export async function runBatches<Q, R>(run: BatchRun<Q, R>): Promise<void> {
  const sleep = run.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = run.random ?? Math.random;
  const backoff = batchBackoff(run.policy);
  const starts: number[] = [];
  for (let i = 0; i < run.queries.length; i += run.size) starts.push(i);
  let next = 0;
  let pauseUntil = 0;
  let fatal: { error: unknown } | undefined;

  const failAll = (n: number, message: string): Outcome<R>[] => Array.from({ length: n }, () => ({ status: 'error', error: message }));

  async function attempt(batch: Q[]): Promise<{ outcomes: Outcome<R>[]; credits: Credits }> {
    let waited = 0;
    for (let n = 1; ; n++) {
      const wait = pauseUntil - Date.now();
      if (wait > 0) await sleep(wait);
      const answer = await run.send(batch);
      if (!('rateLimited' in answer)) return answer;
      const res = answer.rateLimited;
      const step = backoff.baseMs * 2 ** (n - 1);
      const retryAfter = parseRetryAfter(res.headers['retry-after']);
      const delay = Math.round((retryAfter ?? step / 2) + random() * (step / 2));
      if (n >= backoff.maxAttempts || waited + delay > backoff.budgetMs) {
        const body = res.body as { message?: unknown; error?: { message?: unknown } } | null;
        const providerMessage = [body?.error?.message, body?.message].find((m): m is string => typeof m === 'string');
        const error = new ProviderError({ connector: 'sales', status: 429, method: 'POST', path: new URL(res.url).pathname, providerMessage, retryAfterSeconds: Math.ceil((retryAfter ?? delay) / 1000) });
        return { outcomes: failAll(batch.length, `Not looked up: still rate limited after ${n} attempts and ${(waited / 1000).toFixed(1)} s of back-off. ${error.message}`), credits: {} };
      }
      waited += delay;
      pauseUntil = Math.max(pauseUntil, Date.now() + delay);
    }
  }

  async function worker(): Promise<void> {
    while (!fatal && next < starts.length) {
      if (run.signal?.aborted) {
        fatal = { error: run.signal.reason ?? new Error('The call was cancelled.') };
        return;
      }
      const start = starts[next++]!;
      const batch = run.queries.slice(start, start + run.size);
      let result: { outcomes: Outcome<R>[]; credits: Credits };
      try {
        result = await attempt(batch);
      } catch (error) {
        if (isFatal(error) || run.signal?.aborted) {
          fatal ??= { error };
          return;
        }
        result = { outcomes: failAll(batch.length, `Not looked up: ${error instanceof Error ? error.message : String(error)}`), credits: {} };
      }
      await run.settled(start, result.outcomes, result.credits);
    }
  }

  await Promise.all(Array.from({ length: Math.min(run.concurrency, starts.length) }, worker));
  if (fatal) throw fatal.error;
}
