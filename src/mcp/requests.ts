import { ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { observeRequest } from './telemetry.js';

/**
 * A JSON-RPC error sent with its message as written. The SDK's ProtocolError writes "MCP error <code>: " into its
 * message, which goes out on the wire, and the client adds the prefix again.
 */
export class RequestError extends Error {
  override name = 'RequestError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const invalidParams = (message: string) => new RequestError(ProtocolErrorCode.InvalidParams, message);

const cursor = z.object({ cursor: z.string().optional() }).optional();
const uri = z.object({ uri: z.string() });
/** The params of each request this server answers, as far as its handlers read them; the rest passes untouched. */
const PARAMS = {
  'tools/list': cursor,
  'tools/call': z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional(), _meta: z.object({ progressToken: z.union([z.string(), z.number()]).optional() }).optional() }),
  'resources/list': cursor,
  'resources/templates/list': cursor,
  'resources/read': uri,
  'resources/subscribe': uri,
  'resources/unsubscribe': uri,
  'events/list': cursor,
} as const;
type Method = keyof typeof PARAMS;

/**
 * The SDK's server, each request's params checked before the SDK's own check: that answers a malformed request with
 * a dump of the schema's issues (tools/call) or -32603, internal error (the rest), where a caller's mistake is -32602
 * naming the field. Every request is observed (a span, the operation-duration figure, its id on log lines).
 */
export class CheckedServer extends Server {
  protected override _wrapHandler(method: string, handler: Parameters<Server['_wrapHandler']>[1]): ReturnType<Server['_wrapHandler']> {
    const wrapped = method === 'tools/call' ? passingTasks(handler, (inner) => super._wrapHandler(method, inner)) : super._wrapHandler(method, handler);
    const schema = PARAMS[method as Method];
    const checked: typeof wrapped = schema
      ? (request, ctx) => {
          const parsed = schema.safeParse(request.params);
          if (!parsed.success) throw invalidParams(`Invalid ${method} request: ${describeIssues(parsed.error)}.`);
          return wrapped(request, ctx);
        }
      : wrapped;
    return (request, ctx) => observeRequest(method, request, ctx, () => checked(request, ctx)) as ReturnType<typeof wrapped>;
  }
}

type Handler = Parameters<Server['_wrapHandler']>[1];

/**
 * The SDK checks a tools/call result against CallToolResult, which a task (the tasks extension's CreateTaskResult,
 * resultType "task") is not: the SDK is handed an empty result to check and the task is answered in its place.
 */
function passingTasks(handler: Handler, wrap: (inner: Handler) => ReturnType<Server['_wrapHandler']>): ReturnType<Server['_wrapHandler']> {
  const tasks = new WeakMap<object, unknown>();
  const wrapped = wrap(async (request, ctx) => {
    const result = await handler(request, ctx);
    if ((result as { resultType?: unknown }).resultType !== 'task') return result;
    tasks.set(request, result);
    return { content: [] };
  });
  return async (request, ctx) => {
    const result = await wrapped(request, ctx);
    return (tasks.get(request) as typeof result | undefined) ?? result;
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.join('.') || 'params';
      // JSON has objects where zod speaks of records.
      return `"${field}" ${issue.message.replace(/^Invalid input: /, '').replace(/\brecord\b/, 'object')}`;
    })
    .join('; ');
}

/** These lists are never paginated: any cursor is one this server did not give. */
export function refuseCursor(cursor: string | undefined): void {
  if (cursor !== undefined) throw invalidParams(`"cursor" ${JSON.stringify(cursor.slice(0, 100))} was not given by this server: this list comes whole, so omit cursor.`);
}
