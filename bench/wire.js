// MCP clients for the benchmarks, by revision: the SDK clients, and tools/call POSTed with undici (no SDK client),
// so the server's share of a call can be told from the client's.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, request } from 'undici';

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';

/** A 2025-11-25 client (SDK v1): initialize, then a session. */
export async function legacyClient(mcpUrl, name = 'bench') {
  const client = new Client({ name, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  if (client.transport.protocolVersion !== LEGACY) throw new Error(`expected ${LEGACY}, negotiated ${client.transport.protocolVersion}`);
  return client;
}

/** A 2026-07-28 client (SDK v2) pinned to that revision: no initialize, no session, every request stands alone. */
export async function modernClient(mcpUrl, name = 'bench') {
  const client = new ClientV2({ name, version: '1' }, { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(new TransportV2(new URL(mcpUrl)));
  return client;
}

/** A JSON-RPC answer: the body itself, or the first `data:` line when the server streamed it. */
function answer(text) {
  return JSON.parse(/^data: (.+)$/m.exec(text)?.[1] ?? text);
}

/**
 * tools/call POSTed with undici on a keep-alive pool, as a 2026 client sends it (what `modernClient` puts on the
 * wire): the revision, client info and capabilities in `_meta`, the method and tool name in headers as well.
 * Without `sessionId`; with it, as a 2025 client sends it on that session.
 */
export function rawToolCall(mcpUrl, tool, { sessionId, connections = 1 } = {}) {
  const dispatcher = new Agent({ connections, keepAliveTimeout: 30_000 });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (sessionId) Object.assign(headers, { 'mcp-session-id': sessionId, 'mcp-protocol-version': LEGACY });
  else Object.assign(headers, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': tool });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const params = sessionId ? { name: tool, arguments: {} } : { name: tool, arguments: {}, _meta: meta };
  let id = 0;
  /** One call; resolves with its result, throws on an error answer. */
  const call = async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params });
    const res = await request(mcpUrl, { method: 'POST', dispatcher, headers, body });
    const text = await res.body.text();
    const message = res.statusCode === 200 ? answer(text) : undefined;
    if (!message?.result || message.result.isError) throw new Error(`${tool}: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
    return message.result;
  };
  return { call, close: () => dispatcher.close() };
}
