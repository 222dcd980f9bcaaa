import { randomUUID, timingSafeEqual, createHash } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { SSEServerTransport } from '@modelcontextprotocol/server-legacy/sse';
import { InputError, StoreUnavailableError } from '../errors.js';
import { messageTooDeep } from '../nesting.js';
import { header, readBody, type Route } from '../http/incoming.js';
import { answerReadiness, refuseUnavailable, type Readiness } from '../http/readiness.js';
import type { Logger } from '../log.js';
import type { TeamAuth } from '../team/auth.js';
import { mayWrite } from '../team/scopes.js';
import { protectedResource } from './auth.js';
import { userOf } from './owner.js';
import { PERSONAL_OWNER } from '../store/types.js';
import { SessionEventStore, type EventStoreLimits } from './event-store.js';
import { eventUpdate } from './event-notes.js';
import { refusedListen, type Surface } from './server.js';
import { closeCancelledStreams, resumeOrPrime, sendNotificationsDirectly, SSE_RETRY_MS } from './streams.js';

export interface HttpListenerOptions {
  host: string;
  port: number;
  publicUrl?: string;
  /** When set, every MCP request needs `Authorization: Bearer <token>` (outside team mode). */
  token?: string;
  /** Team mode: MCP requests need an access token of the built-in authorization server instead, and are served as its caller. */
  team?: TeamAuth;
  /** Serve MCP at /mcp (and the legacy /sse + /messages); without it only the other routes answer. */
  mcp?: Surface;
  routes?: Route[];
  /** GET /readyz answers from this (no token needed, as /healthz); without it /readyz is not served. */
  readiness?: () => Promise<Readiness>;
  /** Why requests that need the store are refused now (it is known damaged); read before each such route. */
  storeRefusal?: () => StoreUnavailableError | undefined;
  logger: Logger;
  version: string;
  /** Sessions kept at once (200); at the cap the least recently active idle session makes room for a new one. */
  maxSessions?: number;
  /** A session with no request in flight and no open stream for this long (30 minutes) is closed. */
  sessionIdleMs?: number;
  /** Bounds of each session's replay buffer for resumed streams. */
  eventStore?: EventStoreLimits;
  /** A client that has not sent its headers (10 s) or its whole request (30 s) by then is answered 408 and dropped. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export interface HttpListener {
  url: string;
  port: number;
  sessionCount(): number;
  close(): Promise<void>;
}

interface Session {
  transport: StreamableHTTPServerTransport | SSEServerTransport;
  /** When a response of this session last opened or closed. */
  lastSeen: number;
  /** Responses still open: requests in flight and SSE streams. A session with any is busy: never idle, never evicted. */
  open: number;
  events?: SessionEventStore;
  /** Team mode: the person who opened the session; only they may use it. */
  userId?: string;
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

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The one HTTP listener: MCP over Streamable HTTP (and legacy SSE), health, and the routes other modules add. */
export async function startHttpListener(options: HttpListenerOptions): Promise<HttpListener> {
  if (!isLoopback(options.host) && !options.token && !options.team) {
    throw new InputError(
      `Refusing to listen on ${options.host} without SWITCHBOARD_HTTP_TOKEN: anyone who can reach it could use your accounts. ` +
        'Set SWITCHBOARD_HTTP_TOKEN to a long random value, or bind 127.0.0.1.',
      'host',
    );
  }
  const transports = options.mcp ? await mcpTransports(options.mcp, options.logger) : undefined;
  const resource = options.team && options.mcp ? protectedResource(options.team) : undefined;
  const routes = [...(resource?.routes ?? []), ...(options.routes ?? [])];
  const maxSessions = options.maxSessions ?? 200;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const sessions = new Map<string, Session>();
  const publicUrl = options.publicUrl ? new URL(options.publicUrl) : undefined;
  let port = options.port;

  const hostAllowed = (host: string | undefined) => {
    if (!host) return false;
    const name = host.replace(/:\d+$/, '');
    if (publicUrl && host.toLowerCase() === publicUrl.host.toLowerCase()) return true;
    return isLoopback(name) || name === options.host;
  };
  const originAllowed = (origin: string | undefined) => {
    if (origin === undefined) return true;
    try {
      const o = new URL(origin);
      return isLoopback(o.hostname) || (publicUrl !== undefined && o.origin === publicUrl.origin);
    } catch {
      return false;
    }
  };
  const tokenOk = (req: IncomingMessage) => {
    if (!options.token) return true;
    const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    return timingSafeEqual(digest(given), digest(options.token));
  };

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

  /** The session of this id, when it exists and the caller may use it (in team mode, only the person who opened it). */
  const sessionFor = (id: string | undefined, caller: AuthInfo | undefined) => {
    const session = id ? sessions.get(id) : undefined;
    return session && session.userId === userOf(caller) ? session : undefined;
  };

  /** In team mode, whether the caller's token allows every call in the body: calling a tool that changes something needs full scope. */
  const scopeAllows = async (caller: AuthInfo | undefined, body: unknown) => {
    if (!caller || mayWrite(caller.scopes)) return true;
    for (const message of Array.isArray(body) ? body : [body]) {
      const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
      if (method === 'tools/call' && typeof params?.name === 'string' && (await options.mcp!.readOnlyTool(params.name)) === false) return false;
    }
    return true;
  };

  async function handleMcp(req: IncomingMessage, res: ServerResponse, caller: AuthInfo | undefined): Promise<void> {
    const { StreamableHTTPServerTransport } = transports!;
    const id = header(req, 'mcp-session-id');
    if (req.method === 'POST') {
      const body = await readJson(req, res);
      if (body === undefined) return;
      if (!(await scopeAllows(caller, body))) return resource!.refuseWrite(res);
      if (!(await transports!.isLegacyRequest(await transports!.toWebRequest(req, body), body))) {
        const refused = await refusedListen(options.mcp!, body, userOf(caller) ?? PERSONAL_OWNER);
        return refused ? json(res, 200, refused) : transports!.serveModern(req, res, body);
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
        const session: Session = { transport, lastSeen: Date.now(), open: 0, events, userId: userOf(caller) };
        sessions.set(sessionId, session);
        track(session, res);
        res.once('close', () => {
          if (transport.sessionId === undefined) void closeSession(sessionId);
        });
        await options.mcp!.create('legacy', { events: true, owner: userOf(caller) }).connect(transport);
        return transport.handleRequest(req, res, body);
      }
      const session = sessionFor(id, caller);
      if (!session || !(session.transport instanceof StreamableHTTPServerTransport)) return rpcError(res, 404, -32001, 'Session not found: initialize again.', {}, idOf(body));
      track(session, res);
      await session.transport.handleRequest(req, res, body);
      if (session.events) closeCancelledStreams(session.transport, session.events, body);
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      const session = sessionFor(id, caller);
      if (!id) return rpcError(res, 400, -32000, 'Mcp-Session-Id header required.');
      if (!session || !(session.transport instanceof StreamableHTTPServerTransport)) return rpcError(res, 404, -32001, 'Session not found: initialize again.');
      track(session, res);
      if (req.method === 'GET' && session.events && resumeOrPrime(session.transport, session.events, req, res)) return;
      return session.transport.handleRequest(req, res);
    }
    res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  }

  async function handleLegacySse(req: IncomingMessage, res: ServerResponse, url: URL, caller: AuthInfo | undefined): Promise<void> {
    const { SSEServerTransport } = transports!;
    if (url.pathname === '/sse' && req.method === 'GET') {
      if (!(await makeRoom())) return refuseBusy(res);
      const transport = new SSEServerTransport('/messages', res);
      const session: Session = { transport, lastSeen: Date.now(), open: 0, userId: userOf(caller) };
      sessions.set(transport.sessionId, session);
      track(session, res);
      transport.onclose = () => void sessions.delete(transport.sessionId);
      await options.mcp!.create('legacy', { events: true, owner: userOf(caller) }).connect(transport);
      return;
    }
    if (url.pathname === '/messages' && req.method === 'POST') {
      const session = sessionFor(url.searchParams.get('sessionId') ?? '', caller);
      if (!session || !(session.transport instanceof SSEServerTransport)) return rpcError(res, 404, -32001, 'Session not found: open /sse again.');
      const body = await readJson(req, res);
      if (body === undefined) return;
      if (!(await scopeAllows(caller, body))) return resource!.refuseWrite(res);
      track(session, res);
      return session.transport.handlePostMessage(req, res, body);
    }
    res.writeHead(405).end();
  }

  const timeouts = {
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    // How often Node looks for connections past those limits (by default every 30 s, which would let them linger).
    connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs ?? 1_000),
  };
  const server = createHttpServer(timeouts, async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://listener');
      if (!options.token && !hostAllowed(req.headers.host)) return plain(res, 403, `Forbidden: Host ${req.headers.host ?? '(none)'} is not served here.`);
      if (!originAllowed(header(req, 'origin'))) return plain(res, 403, 'Forbidden: cross-origin requests are not accepted.');
      if (url.pathname === '/healthz' && req.method === 'GET') {
        return json(res, 200, { status: 'ok', version: options.version, sessions: sessions.size });
      }
      if (url.pathname === '/readyz' && req.method === 'GET' && options.readiness) return answerReadiness(res, await options.readiness(), options.version);
      const route = routes.find(
        (r) => r.method === req.method && (r.path.endsWith('/') && r.path !== '/' ? url.pathname.startsWith(r.path) : url.pathname === r.path),
      );
      const isMcp = options.mcp && (url.pathname === '/mcp' || url.pathname === '/sse' || url.pathname === '/messages');
      if (!route && !isMcp) return plain(res, 404, 'Not found.');
      let caller: AuthInfo | undefined;
      if (!route && resource) {
        caller = await resource.authenticate(req, res);
        if (!caller) return;
        // The SDK's transports hand `req.auth` to every handler as `ctx.http.authInfo`.
        (req as IncomingMessage & { auth?: AuthInfo }).auth = caller;
      } else if (!(route?.public ?? false) && !tokenOk(req)) {
        res.writeHead(401, { 'www-authenticate': 'Bearer realm="switchboard"', 'content-type': 'text/plain' });
        return void res.end('Unauthorized: send Authorization: Bearer <SWITCHBOARD_HTTP_TOKEN>.');
      }
      const refused = route?.usesStore !== false && options.storeRefusal?.();
      if (route && refused) return refuseUnavailable(res, refused);
      if (route) return await route.handle(req, res, url);
      if (url.pathname === '/mcp') return await handleMcp(req, res, caller);
      return await handleLegacySse(req, res, url, caller);
    } catch (error) {
      // The store says what failed when it does (logged once, by serve); the answer says so without naming where it is.
      if (error instanceof StoreUnavailableError && !res.headersSent) return refuseUnavailable(res, error);
      options.logger.error('http request failed', { path: req.url?.split('?')[0], message: (error as Error).message });
      if (!res.headersSent) plain(res, 500, 'Internal error.');
      else res.end();
    }
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    clearInterval(sweep);
    throw listenError(error as NodeJS.ErrnoException, options.host, options.port);
  }
  port = (server.address() as AddressInfo).port;
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.keys()].map(closeSession));
      await transports?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Why the listener could not bind, and which flag fixes it. */
function listenError(error: NodeJS.ErrnoException, host: string, port: number): InputError {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new InputError(
        `Cannot listen on ${where}: port ${port} is in use by another process (EADDRINUSE). Stop that process, choose another port with --port N, or use --port 0 for any free one.`,
        'port',
      );
    case 'EACCES':
      return new InputError(`Cannot listen on ${where}: port ${port} needs privileges this process lacks (EACCES). Choose a port from 1024 up with --port N, or --port 0 for any free one.`, 'port');
    case 'EADDRNOTAVAIL':
      return new InputError(`Cannot listen on ${where}: no network interface of this machine has the address ${host} (EADDRNOTAVAIL). Choose one of its addresses with --host, or --host 127.0.0.1.`, 'host');
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new InputError(`Cannot listen on ${where}: the host name ${host} does not resolve (${error.code}). Give an address with --host, e.g. --host 127.0.0.1.`, 'host');
    default:
      return new InputError(`Cannot listen on ${where}: ${error.message}. Choose another address with --host and --port.`, 'port');
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
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

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
}
