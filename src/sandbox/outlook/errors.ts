import { randomUUID } from 'node:crypto';
import type { SandboxResponse } from '../server.js';

/** A Graph error raised inside a handler and answered as `{error:{code,message,innerError}}`. */
export class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function graphError(status: number, code: string, message: string): SandboxResponse {
  const date = new Date().toISOString().slice(0, 19);
  const requestId = randomUUID();
  return {
    status,
    headers: { 'request-id': requestId },
    body: { error: { code, message, innerError: { date, 'request-id': requestId, 'client-request-id': requestId } } },
  };
}
