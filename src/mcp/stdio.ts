import { serveStdio as serve, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Readable, Writable } from 'node:stream';
import type { Surface } from './server.js';

/**
 * Serves one client over standard input and output, in whichever revision it opens with: a 2025 initialize pins a
 * 2025 server for the connection, a 2026 request a 2026 one.
 */
export function serveStdio(surface: Surface, stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, onerror: (error: Error) => void): { close(): Promise<void> } {
  const transport = new StdioServerTransport(stdin as Readable, stdout as Writable);
  return serve(({ era }) => surface.create(era, { events: true }), { transport, onerror });
}
