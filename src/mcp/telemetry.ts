import type { JSONRPCRequest, ServerContext } from '@modelcontextprotocol/server';
import { instruments } from '../telemetry/metrics.js';
import { withMcpRequest } from '../telemetry/request-id.js';
import { contextFrom, errorType, failSpan, inSpan, recordGetter, SpanKind, tracingOn, type Attributes, type Context } from '../telemetry/trace.js';

const headersGetter = {
  keys: (headers: Headers) => [...headers.keys()],
  get: (headers: Headers, key: string) => headers.get(key) ?? undefined,
};

/**
 * Where a request's trace continues from: the `traceparent` and `tracestate` of its `_meta` (SEP-414), else its HTTP
 * request's headers, else whatever is active.
 */
function parentOf(request: JSONRPCRequest, ctx: ServerContext): Context | undefined {
  const meta = (request.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  if (meta && typeof meta.traceparent === 'string') return contextFrom(meta, recordGetter);
  const headers = ctx.http?.req?.headers;
  return headers?.has('traceparent') ? contextFrom(headers, headersGetter) : undefined;
}

/**
 * One MCP request, as the MCP semantic conventions describe it: a server span named `{method} {tool}` and the
 * operation-duration figure. A tool result with isError counts as a failure (error.type tool_error).
 */
export async function observeRequest(method: string, request: JSONRPCRequest, ctx: ServerContext, handle: () => Promise<unknown>): Promise<unknown> {
  const metrics = instruments();
  if (!tracingOn() && !metrics) return withMcpRequest(String(request.id), handle);
  const started = performance.now();
  const tool = method === 'tools/call' ? (request.params as { name?: unknown } | undefined)?.name : undefined;
  const attributes: Attributes = {
    'mcp.method.name': method,
    ...(typeof tool === 'string' && { 'gen_ai.tool.name': tool.slice(0, 100), 'gen_ai.operation.name': 'execute_tool' }),
    'network.transport': ctx.http ? 'tcp' : 'pipe',
  };
  let failure: string | undefined;
  try {
    return await withMcpRequest(String(request.id), () =>
      inSpan(
        typeof tool === 'string' ? `${method} ${tool.slice(0, 100)}` : method,
        {
          kind: SpanKind.SERVER,
          parent: parentOf(request, ctx),
          attributes: { ...attributes, 'jsonrpc.request.id': String(request.id), ...(ctx.sessionId && { 'mcp.session.id': ctx.sessionId }) },
        },
        async (span) => {
          const result = await handle();
          if ((result as { isError?: unknown } | undefined)?.isError === true) failSpan(span, (failure = 'tool_error'));
          return result;
        },
      ),
    );
  } catch (error) {
    failure = errorType(error);
    throw error;
  } finally {
    metrics?.operationDuration.record((performance.now() - started) / 1000, { ...attributes, ...(failure && { 'error.type': failure }) });
  }
}

/**
 * The sessions of the HTTP transport, as a map that measures them: sessions open now (a gauge) and each session's
 * length when it ends (mcp.server.session.duration). A plain map while metrics are off.
 */
export function measuredSessions<V>(): Map<string, V> {
  const metrics = instruments();
  if (!metrics) return new Map();
  const opened = new Map<string, number>();
  const sessions = new (class extends Map<string, V> {
    override set(key: string, value: V): this {
      if (!opened.has(key)) opened.set(key, performance.now());
      return super.set(key, value);
    }
    override delete(key: string): boolean {
      const since = opened.get(key);
      if (since !== undefined) {
        opened.delete(key);
        metrics!.sessionDuration.record((performance.now() - since) / 1000, { 'network.transport': 'tcp' });
      }
      return super.delete(key);
    }
  })();
  metrics.sessions.addCallback((result) => result.observe(sessions.size));
  return sessions;
}
