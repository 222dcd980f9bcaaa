// A bare SDK v2 server with one tool: 2026-07-28 requests served stateless by createMcpHandler through toNodeHandler,
// 2025 clients in sessions of the SDK's Node transport: at /mcp without an event store, at /mcp-resumable with one
// (resumable streams, as Switchboard keeps them). The tool (BARE_TOOL, "ping" by default) answers BARE_RESULT (JSON),
// so that request and answer can match a Switchboard tool's byte for byte.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';

const tool = process.env.BARE_TOOL ?? 'ping';
const result = JSON.parse(process.env.BARE_RESULT ?? '{"content":[{"type":"text","text":"{\\"status\\":200}"}]}');

function bare() {
  const server = new McpServer({ name: 'bare', version: '1' });
  server.registerTool(tool, { description: tool }, async () => result);
  return server;
}

/** The least an event store does: every event kept, replayed after the one a client names. */
class MemoryEventStore {
  events = [];
  async storeEvent(streamId, message) {
    this.events.push({ id: `${this.events.length}_${streamId}`, streamId, message });
    return this.events.at(-1).id;
  }
  async getStreamIdForEventId(id) {
    return this.events.find((e) => e.id === id)?.streamId;
  }
  async replayEventsAfter(lastId, { send }) {
    const last = this.events.findIndex((e) => e.id === lastId);
    const streamId = this.events[last]?.streamId;
    for (const e of this.events.slice(last + 1)) if (e.streamId === streamId && Object.keys(e.message).length) await send(e.id, e.message);
    return streamId;
  }
}

const serveModern = toNodeHandler(createMcpHandler(bare, { legacy: 'reject' }));
const sessions = new Map();

async function serveLegacy(req, res) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  const id = req.headers['mcp-session-id'];
  let transport = id ? sessions.get(id) : undefined;
  if (!transport) {
    const resumable = req.url.startsWith('/mcp-resumable') ? { eventStore: new MemoryEventStore(), retryInterval: 1000 } : {};
    transport = new NodeStreamableHTTPServerTransport({ ...resumable, sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => sessions.set(sid, transport) });
    await bare().connect(transport);
  }
  await transport.handleRequest(req, res, body);
}

// A 2026-07-28 client names its revision in a header on every request; a 2025 one sends initialize without it first.
const http = createServer((req, res) => (req.headers['mcp-protocol-version'] === '2026-07-28' ? serveModern(req, res) : serveLegacy(req, res)));
http.listen(0, '127.0.0.1', () => process.stderr.write(`  MCP endpoint: http://127.0.0.1:${http.address().port}/mcp\n`));
