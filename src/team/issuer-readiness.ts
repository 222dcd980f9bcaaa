import { fetch } from 'undici';
import type { ReadinessCheck } from '../http/readiness.js';

/** A probe every few seconds must not become a request to the issuer every few seconds. */
const KEPT_MS = 5_000;
const TIMEOUT_MS = 3_000;

/**
 * Readiness of an external issuer: its published keys (jwks_uri) can be read, without which no access token can be
 * checked. The answer is kept for a while, and a probe waits for at most one read at a time.
 */
export function externalIssuerCheck(jwksUri: string): () => Promise<ReadinessCheck> {
  let kept: { at: number; check: Promise<ReadinessCheck> } | undefined;
  const read = async (): Promise<ReadinessCheck> => {
    try {
      const res = await fetch(jwksUri, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
      const body = res.ok ? ((await res.json().catch(() => undefined)) as { keys?: unknown } | undefined) : (await res.body?.cancel(), undefined);
      if (res.ok && Array.isArray(body?.keys) && body.keys.length > 0) return { ok: true };
      return { ok: false, failed: 'issuer', reason: `the issuer's keys (jwks_uri) answered ${res.ok ? 'without keys' : res.status}: access tokens cannot be checked` };
    } catch (error) {
      const why = (error as Error).name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : 'unreachable';
      return { ok: false, failed: 'issuer', reason: `the issuer's keys (jwks_uri) are ${why}: access tokens cannot be checked` };
    }
  };
  return () => {
    if (!kept || Date.now() - kept.at > KEPT_MS) kept = { at: Date.now(), check: read() };
    return kept.check;
  };
}

/** The built-in authorization server signs with keys loaded from the store at start: it is ready once it has started. */
export const builtInIssuerCheck = async (): Promise<ReadinessCheck> => ({ ok: true });
