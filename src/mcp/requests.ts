import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, type Result, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';

/** The MCP code for a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * A JSON-RPC error sent with its message as written. The SDK's McpError writes "MCP error <code>: " into its
 * message, which goes out on the wire, and the client's McpError adds the prefix again.
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

export const invalidParams = (message: string) => new RequestError(ErrorCode.InvalidParams, message);

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type RequestSchema = z.ZodObject<{ method: z.ZodLiteral<string> } & z.ZodRawShape>;

/**
 * Handles one request method, its params checked here: the SDK's own check answers a malformed request with
 * -32603 (internal error) and a dump of the schema's issues, where a caller's mistake is -32602 naming the field.
 */
export function onRequest<S extends RequestSchema>(
  server: Server,
  schema: S,
  handler: (request: z.output<S>, extra: Extra) => Result | Promise<Result>,
): void {
  const method = schema.shape.method.value as string;
  const anyParams = z.object({ method: z.literal(method), params: z.unknown().optional() });
  // Server.setRequestHandler checks tools/call requests itself, before any handler runs; Protocol's does not.
  Protocol.prototype.setRequestHandler.call(server, anyParams, async (request: unknown, extra: Extra) => {
    const parsed = schema.safeParse(request);
    if (!parsed.success) throw invalidParams(`Invalid ${method} request: ${describeIssues(parsed.error)}.`);
    return handler(parsed.data, extra);
  });
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.filter((p) => p !== 'params').join('.') || 'params';
      // JSON has objects where zod speaks of records.
      return `"${field}" ${issue.message.replace(/^Invalid input: /, '').replace(/\brecord\b/, 'object')}`;
    })
    .join('; ');
}

/** These lists are never paginated: any cursor is one this server did not give. */
export function refuseCursor(cursor: string | undefined): void {
  if (cursor !== undefined) throw invalidParams(`"cursor" ${JSON.stringify(cursor.slice(0, 100))} was not given by this server: this list comes whole, so omit cursor.`);
}
