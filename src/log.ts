import type { Writable } from 'node:stream';
import type { Redactor } from './redact.js';
import { currentRequest } from './telemetry/request-id.js';
import { activeSpanIds } from './telemetry/trace.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * JSON lines on stderr (stdout belongs to the stdio protocol), with every known secret removed. A line written while
 * a request is handled names it (request_id, and mcp_request_id inside an MCP request), and the active span's ids.
 */
export function createLogger(options: { stream?: Writable; level?: Level; redactor?: Redactor } = {}): Logger {
  const stream = options.stream ?? process.stderr;
  const min = ORDER[options.level ?? 'info'];
  const write = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    const request = currentRequest();
    const scope = request && { request_id: request.requestId, ...(request.mcpRequestId !== undefined && { mcp_request_id: request.mcpRequestId }) };
    const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields, ...scope, ...activeSpanIds() });
    stream.write((options.redactor ? options.redactor.redact(line) : line) + '\n');
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
