import type { CallToolResult, Tool as McpTool, ToolAnnotations } from '@modelcontextprotocol/server';
import { errorMessage, type ErrorMessageOptions } from '../errors.js';
import { inputJsonSchema, outputJsonSchema } from '../schema.js';
import type { Tool } from '../tool.js';

/**
 * readOnlyHint on reads, destructiveHint on every tool that changes something; the other hints only where
 * they differ from the MCP defaults (readOnlyHint and idempotentHint false, openWorldHint true), to save tokens.
 */
function annotationsFor(tool: Pick<Tool, 'effect' | 'idempotent' | 'connector'>): ToolAnnotations {
  const annotations: ToolAnnotations = tool.effect === 'read' ? { readOnlyHint: true } : { destructiveHint: tool.effect === 'delete' };
  if (tool.effect !== 'read' && tool.idempotent) annotations.idempotentHint = true;
  if (tool.connector === undefined) annotations.openWorldHint = false;
  return annotations;
}

/** The one place a tool becomes what tools/list shows: zod to JSON Schema, annotations from effect. */
export function toMcpTool(tool: Tool): McpTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputJsonSchema(tool.input) as McpTool['inputSchema'],
    outputSchema: outputJsonSchema(tool.output) as McpTool['outputSchema'],
    annotations: annotationsFor(tool),
  };
}

/** Every successful result: structured content plus the same JSON as text, for older clients. */
export function toResult(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

/** Every failed call: the one error text (errorMessage) as an isError result. */
export function toErrorResult(error: unknown, options?: ErrorMessageOptions): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: errorMessage(error, options) }] };
}
