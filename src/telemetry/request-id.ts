import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** The request a log line belongs to: the HTTP request's id, and the MCP request's JSON-RPC id inside it. */
export interface RequestScope {
  requestId: string;
  mcpRequestId?: string;
}

const scope = new AsyncLocalStorage<RequestScope>();

/** A caller's own `x-request-id` is kept when it is a plain token; anything else gets a fresh id. */
const GIVEN_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export function requestIdOf(given: string | string[] | null | undefined): string {
  return typeof given === 'string' && GIVEN_ID.test(given) ? given : randomUUID();
}

export function withRequest<T>(requestId: string, run: () => T): T {
  return scope.run({ requestId }, run);
}

/** Inside an HTTP request the MCP request keeps its request id; over stdio it gets one of its own. */
export function withMcpRequest<T>(mcpRequestId: string, run: () => T): T {
  const outer = scope.getStore();
  return scope.run({ requestId: outer?.requestId ?? randomUUID(), mcpRequestId }, run);
}

export function currentRequest(): RequestScope | undefined {
  return scope.getStore();
}
