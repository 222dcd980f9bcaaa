import { serveStdio as serve, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { ProtocolErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { messageTooDeep } from '../nesting.js';
import type { Readable, Writable } from 'node:stream';
import { PERSONAL_OWNER } from '../store/types.js';
import { refusedListen, type Surface } from './server.js';

/**
 * Serves one client over standard input and output, in whichever revision it opens with: a 2025 initialize pins a
 * 2025 server for the connection, a 2026 request a 2026 one. `onSent` is told of each message as it is written.
 */
export function serveStdio(
  surface: Surface,
  stdin: NodeJS.ReadableStream,
  stdout: NodeJS.WritableStream,
  onerror: (error: Error) => void,
  onSent?: () => void,
): { close(): Promise<void> } {
  const transport = new StdioServerTransport(stdin as Readable, stdout as Writable);
  if (onSent) {
    const send = transport.send.bind(transport);
    transport.send = (...args) => {
      const sent = send(...args);
      onSent();
      return sent;
    };
  }
  // A message nested too deep and a listen request whose filter names what cannot be subscribed to are answered here;
  // every other message passes on.
  let deliver: StdioServerTransport['onmessage'];
  const receive = (message: JSONRPCMessage) => {
    const tooDeep = messageTooDeep(message);
    if (tooDeep) return refuse(message, tooDeep);
    if ((message as { method?: unknown }).method !== 'subscriptions/listen') return deliver?.(message);
    void refusedListen(surface, message, PERSONAL_OWNER).then((refused) => (refused ? transport.send(refused) : deliver?.(message)), onerror);
  };
  const refuse = (message: JSONRPCMessage, text: string) => {
    const id = (message as { id?: unknown }).id;
    if (typeof id !== 'string' && typeof id !== 'number') return onerror(new Error(text));
    void transport.send({ jsonrpc: '2.0', id, error: { code: ProtocolErrorCode.InvalidRequest, message: text } }).catch(onerror);
  };
  Object.defineProperty(transport, 'onmessage', { get: () => receive, set: (handler: StdioServerTransport['onmessage']) => (deliver = handler) });
  return serve(({ era }) => surface.create(era, { events: true }), { transport, onerror });
}
