import type { ServerResponse } from 'node:http';
import type { StoreUnavailableError } from '../errors.js';

/** One part of readiness: fine, or which part of it failed and why (never where the store is: anyone may read it). */
export interface ReadinessCheck {
  ok: boolean;
  failed?: string;
  reason?: string;
}

/** Whether this process should be sent traffic, part by part (`store`, and `lease` where the listener rides on one). */
export interface Readiness {
  checks: Record<string, ReadinessCheck>;
}

/** GET /readyz: 200 when every check passes, else 503 with each check's state. */
export function answerReadiness(res: ServerResponse, readiness: Readiness, version: string): void {
  const ready = Object.values(readiness.checks).every((check) => check.ok);
  const body = { status: ready ? 'ready' : 'not ready', version, checks: readiness.checks };
  res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
}

/** The store check of readiness, from the store's known problem. */
export function storeCheck(problem: StoreUnavailableError | undefined): ReadinessCheck {
  return problem ? { ok: false, failed: problem.part, reason: problem.summary } : { ok: true };
}

/** A request that needs the store while it cannot serve: 503 and why, in the words anyone reaching the listener may read. */
export function refuseUnavailable(res: ServerResponse, problem: StoreUnavailableError): void {
  res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(`Service unavailable: ${problem.summary}`);
}
