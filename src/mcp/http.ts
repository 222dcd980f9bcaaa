import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { SSEServerTransport } from '@modelcontextprotocol/server-legacy/sse';
import { messageTooDeep } from '../nesting.js';
import { header, readBody, type Route } from '../http/incoming.js';
import { json, startListener, type Listener, type ListenerOptions, type Mount } from '../http/listener.js';
import type { Logger } from '../log.js';
import type { TeamAuth } from '../team/auth.js';
import { mayWrite } from '../team/scopes.js';
import { protectedResource, signedInOwner } from './auth.js';
import { PERSONAL_OWNER } from '../store/types.js';
import { SessionEventStore, type EventStoreLimits } from './event-store.js';
import { eventUpdate } from './event-notes.js';
import { refusedListen, type Surface } from './server.js';
import { closeCancelledStreams, resumeOrPrime, sendNotificationsDirectly, SSE_RETRY_MS } from './streams.js';
import { measuredSessions } from './telemetry.js';

export interface McpHttpOptions {
  mcp: Surface;
  /** Team mode: MCP requests need an access token of the built-in authorization server instead, and are served as its caller. */
  team?: TeamAuth;
  logger: Logger;
  /** Sessions kept at once (200); at the cap the least recently active idle session makes room for a new one. */
  maxSessions?: number;
  /** A session with no request in flight and no open stream for this long (30 minutes) is closed. */
  sessionIdleMs?: number;
  /** Bounds of each session's replay buffer for resumed streams. */
  eventStore?: EventStoreLimits;
}

export interface HttpListener extends Listener {
  sessionCount(): number;
}

interface Session {
  transport: StreamableHTTPServerTransport | SSEServerTransport;
  /** When a response of this session last opened or closed. */
  lastSeen: number;
  /** Responses still open: requests in flight and SSE streams. A session with any is busy: never idle, never evicted. */
  open: number;
  events?: SessionEventStore;
  /** Team mode: the person who opened the session; only they may use it. */
  owner?: string;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** A 2026 listen stream carries a comment this often, so proxies and clients see it alive between events. */
const LISTEN_KEEPALIVE_MS = 15_000;
/** Told to a client refused because every session is busy. */
const RETRY_AFTER_SECONDS = 10;

// Only a listener that serves MCP needs the SDK's HTTP transports: the stdio lease holder's listener does not load them.
async function mcpTransports(surface: Surface, logger: Logger) {
  const [sdk, node, sse] = await Promise.all([import('@modelcontextprotocol/server'), import('@modelcontextprotocol/node'), import('@modelcontextprotocol/server-legacy/sse')]);
  // 2026-07-28 requests: stateless, each served by a server of its own; 2025 clients are told apart and kept in sessions here.
  const modern = sdk.createMcpHandler(({ era }) => surface.create(era), {
    legacy: 'reject',
    keepAliveMs: LISTEN_KEEPALIVE_MS,
    onerror: (error) => logger.debug('mcp request refused', { message: error.message }),
  });
  const stopEvents = surface.watchEvents((note) => {
    const { uri, _meta } = eventUpdate(note);
    modern.bus.publish({ kind: 'resource_updated', uri, params: { _meta } });
  });
  return {
    isLegacyRequest: sdk.isLegacyRequest,
    toWebRequest: node.toWebRequest,
    serveModern: node.toNodeHandler(modern, { maxRequestBodySize: MAX_BODY_BYTES }),
    async close() {
      stopEvents();
      await modern.close();
    },
    SSEServerTransport: sse.SSEServerTransport,
    StreamableHTTPServerTransport: node.NodeStreamableHTTPServerTransport,
  };
}

/** MCP over Streamable HTTP at /mcp (and the legacy /sse + /messages), with its sessions: what the listener serves for the protocol. */
export async function mcpOverHttp(options: McpHttpOptions): Promise<Mount & { sessionCount(): number }> {
  const transports = await mcpTransports(options.mcp, options.logger);
  const resource = options.team ? protectedResource(options.team) : undefined;
  const maxSessions = options.maxSessions ?? 200;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const sessions = measuredSessions<Session>();

  const closeSession = async (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.transport.close().catch(() => undefined);
  };

  // A session stays active while any of its responses is open, and counts as idle from when the last one closed.
  const track = (session: Session, res: ServerResponse) => {
    session.open++;
    session.lastSeen = Date.now();
    res.once('close', () => {
      session.open--;
      session.lastSeen = Date.now();
    });
  };

  /** Closes the least recently active idle session when the table is full; false when every session is busy. */
  const makeRoom = async (): Promise<boolean> => {
    while (sessions.size >= maxSessions) {
      let idlest: [string, Session] | undefined;
      for (const entry of sessions) if (entry[1].open === 0 && (!idlest || entry[1].lastSeen < idlest[1].lastSeen)) idlest = entry;
      if (!idlest) return false;
      options.logger.debug('session evicted to make room', { idleSeconds: Math.round((Date.now() - idlest[1].lastSeen) / 1000) });
      await closeSession(idlest[0]);
    }
    return true;
  };
  const refuseBusy = (res: ServerResponse) =>
    rpcError(res, 503, -32000, `Session limit (${maxSessions}) reached and every session is busy; retry in ${RETRY_AFTER_SECONDS} s.`, {
      'retry-after': String(RETRY_AFTER_SECONDS),
    });

  const sweep = setInterval(() => {
    const cutoff = Date.now() - idleMs;
    for (const [id, s] of sessions) if (s.open === 0 && s.lastSeen < cutoff) void closeSession(id);
  }, Math.min(60_000, idleMs)).unref();

  /** The session of this id, when it exists and the request may use it (in team mode, only the person who opened it). */
  const sessionFor = (id: string | undefined, auth: AuthInfo | undefined) => {
    const session = id ? sessions.get(id) : undefined;
    return session && session.owner === signedInOwner(auth) ? session : undefined;
  };

  /** In team mode, whether the request's token allows every call in the body: calling a tool that changes something needs full scope. */
  const scopeAllows = async (auth: AuthInfo | undefined, body: unknown) => {
    if (!auth || mayWrite(auth.scopes)) return true;
    for (const message of Array.isArray(body) ? body : [body]) {
      const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
      if (method === 'tools/call' && typeof params?.name === 'string' && (await options.mcp.readOnlyTool(params.name)) === false) return false;
    }
    return true;
  };

  async function handleMcp(req: IncomingMessage, res: ServerResponse, auth: AuthInfo | undefined): Promise<void> {
    const { StreamableHTTPServerTransport } = transports;
    const id = header(req, 'mcp-session-id');
    if (req.method === 'POST') {
      const body = await readJson(req, res);
      if (body === undefined) return;
      if (!(await scopeAllows(auth, body))) return resource!.refuseWrite(res);
      if (!(await transports.isLegacyRequest(await transports.toWebRequest(req, body), body))) {
        const refused = await refusedListen(options.mcp, body, signedInOwner(auth) ?? PERSONAL_OWNER);
        return refused ? json(res, 200, refused) : transports.serveModern(req, res, body);
      }
      if (!id) {
        if ((body as { method?: unknown })?.method !== 'initialize') return rpcError(res, 400, -32000, 'No Mcp-Session-Id header: send initialize first.', {}, idOf(body));
        if (!(await makeRoom())) return refuseBusy(res);
        // The session holds its place from the initialize request on, so concurrent ones cannot overshoot the cap.
        const sessionId = randomUUID();
        const events = new SessionEventStore(options.eventStore);
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => sessionId,
          onsessionclosed: (sid) => void sessions.delete(sid),
          eventStore: events,
          retryInterval: SSE_RETRY_MS,
        });
        transport.onclose = () => void sessions.delete(sessionId);
        sendNotificationsDirectly(transport, events);
        const session: Session = { transport, lastSeen: Date.now(), open: 0, events, owner: signedInOwner(auth) };
        sessions.set(sessionId, session);
        track(session, res);
        res.once('close', () => {
          if (transport.sessionId === undefined) void closeSession(sessionId);
        });
        await options.mcp.create('legacy', { events: true, owner: signedInOwner(auth) }).connect(transport);
        return transport.handleRequest(req, res, body);
      }
      const session = sessionFor(id, auth);
      if (!session || !(session.transport instanceof StreamableHTTPServerTransport)) return rpcError(res, 404, -32001, 'Session not found: initialize again.', {}, idOf(body));
      track(session, res);
      await session.transport.handleRequest(req, res, body);
      if (session.events) closeCancelledStreams(session.transport, session.events, body);
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      const session = sessionFor(id, auth);
      if (!id) return rpcError(res, 400, -32000, 'Mcp-Session-Id header required.');
      if (!session || !(session.transport instanceof StreamableHTTPServerTransport)) return rpcError(res, 404, -32001, 'Session not found: initialize again.');
      track(session, res);
      if (req.method === 'GET' && session.events && resumeOrPrime(session.transport, session.events, req, res)) return;
      return session.transport.handleRequest(req, res);
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  }

  async function handleLegacySse(req: IncomingMessage, res: ServerResponse, url: URL, auth: AuthInfo | undefined): Promise<void> {
    const { SSEServerTransport } = transports;
    if (url.pathname === '/sse' && req.method === 'GET') {
      if (!(await makeRoom())) return refuseBusy(res);
      const transport = new SSEServerTransport('/messages', res);
      const session: Session = { transport, lastSeen: Date.now(), open: 0, owner: signedInOwner(auth) };
      sessions.set(transport.sessionId, session);
      track(session, res);
      transport.onclose = () => void sessions.delete(transport.sessionId);
      await options.mcp.create('legacy', { events: true, owner: signedInOwner(auth) }).connect(transport);
      return;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const session = sessionFor(url.searchParams.get('sessionId') ?? '', auth);
      if (!session || !(session.transport instanceof SSEServerTransport)) return rpcError(res, 404, -32001, 'Session not found: open /sse again.');
      const body = await readJson(req, res);
      if (body === undefined) return;
      if (!(await scopeAllows(auth, body))) return resource!.refuseWrite(res);
      track(session, res);
      return session.transport.handlePostMessage(req, res, body);
    }
    res.writeHead(405).end();
  }

  const handle = (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const auth = (req as IncomingMessage & { auth?: AuthInfo }).auth;
    return url.pathname === '/mcp' ? handleMcp(req, res, auth) : handleLegacySse(req, res, url, auth);
  };
  const authenticate = resource
    ? async (req: IncomingMessage, res: ServerResponse) => {
        const auth = await resource.authenticate(req, res);
        // The SDK's transports hand `req.auth` to every handler as `ctx.http.authInfo`.
        if (auth) (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
        return auth !== undefined;
      }
    : undefined;
  const endpoints = ['/mcp', '/sse', '/messages'].map((path): Route => ({ method: '*', path, usesStore: false, authenticate, handle }));

  return {
    routes: [...(resource?.routes ?? []), ...endpoints],
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.keys()].map(closeSession));
      await transports.close();
    },
  };
}

/** The listener serving MCP besides the routes it is given. */
export async function startHttpListener(options: ListenerOptions & McpHttpOptions): Promise<HttpListener> {
  const mcp = await mcpOverHttp(options);
  return { ...(await startListener({ ...options, mounts: [mcp] })), sessionCount: mcp.sessionCount };
}

/** Reads a JSON body; answers 400 or 413 itself and resolves undefined when it cannot. */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const raw = await readBody(req, MAX_BODY_BYTES);
  if (!raw) {
    rpcError(res, 413, -32600, `Request body over ${MAX_BODY_BYTES} bytes.`);
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    rpcError(res, 400, -32700, 'Parse error: the body is not JSON.');
    return undefined;
  }
  const tooDeep = messageTooDeep(body);
  if (tooDeep) rpcError(res, 400, -32600, tooDeep, {}, idOf(body));
  return tooDeep ? undefined : body;
}

function rpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}, id: string | number | null = null): void {
  json(res, status, { jsonrpc: '2.0', error: { code, message }, id }, headers);
}

/** The id of the request a body holds, which an error about it must echo; null for a notification, a batch or no id. */
function idOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
