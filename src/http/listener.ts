import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InputError, StoreUnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import { header, type Route } from './incoming.js';
import { answerReadiness, refuseUnavailable, type Readiness } from './readiness.js';
import { requestIdOf, withRequest } from '../telemetry/request-id.js';

/** What a module serves on the listener besides plain routes: a protocol with sessions of its own, closed with the listener. */
export interface Mount {
  routes: Route[];
  /** Sessions open now, reported by /healthz. */
  sessionCount?(): number;
  close?(): Promise<void>;
}

export interface ListenerOptions {
  host: string;
  port: number;
  publicUrl?: string;
  /** When set, every route that is not public needs `Authorization: Bearer <token>` (a route that authenticates its own callers excepted). */
  token?: string;
  routes?: Route[];
  mounts?: Mount[];
  /** GET /readyz answers from this (no token needed, as /healthz); without it /readyz is not served. */
  readiness?: () => Promise<Readiness>;
  /** Why requests that need the store are refused now (it is known damaged); read before each such route. */
  storeRefusal?: () => StoreUnavailableError | undefined;
  logger: Logger;
  version: string;
  /** A client that has not sent its headers (10 s) or its whole request (30 s) by then is answered 408 and dropped. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export interface Listener {
  url: string;
  port: number;
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The one HTTP listener: Host and Origin checks, health and readiness, the token check, and the routes other modules add. */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  const mounts = options.mounts ?? [];
  const routes = [...(options.routes ?? []), ...mounts.flatMap((m) => m.routes)];
  if (!isLoopback(options.host) && !options.token && !routes.some((r) => r.authenticate)) {
    throw new InputError(
      `Refusing to listen on ${options.host} without SWITCHBOARD_HTTP_TOKEN: anyone who can reach it could use your accounts. ` +
        'Set SWITCHBOARD_HTTP_TOKEN to a long random value, or bind 127.0.0.1.',
      'host',
    );
  }
  const publicUrl = options.publicUrl ? new URL(options.publicUrl) : undefined;
  const closeMounts = () => Promise.all(mounts.map((m) => m.close?.()));

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
  const sessions = () => mounts.reduce((sum, m) => sum + (m.sessionCount?.() ?? 0), 0);

  const timeouts = {
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    // How often Node looks for connections past those limits (by default every 30 s, which would let them linger).
    connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs ?? 1_000),
  };
  const server = createHttpServer(timeouts, (req, res) => {
    // Each request is named by the caller's x-request-id when plain, else a fresh one: the log lines it causes carry it.
    const requestId = requestIdOf(req.headers['x-request-id']);
    res.setHeader('x-request-id', requestId);
    return withRequest(requestId, () => answer(req, res));
  });
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const url = new URL(req.url ?? '/', 'http://listener');
      if (!options.token && !hostAllowed(req.headers.host)) return plain(res, 403, `Forbidden: Host ${req.headers.host ?? '(none)'} is not served here.`);
      if (!originAllowed(header(req, 'origin'))) return plain(res, 403, 'Forbidden: cross-origin requests are not accepted.');
      if (url.pathname === '/healthz' && req.method === 'GET') return json(res, 200, { status: 'ok', version: options.version, sessions: sessions() });
      if (url.pathname === '/readyz' && req.method === 'GET' && options.readiness) return answerReadiness(res, await options.readiness(), options.version);
      const route = routes.find(
        (r) =>
          (r.method === req.method || r.method === '*') && (r.path.endsWith('/') && r.path !== '/' ? url.pathname.startsWith(r.path) : url.pathname === r.path),
      );
      if (!route) return plain(res, 404, 'Not found.');
      if (route.authenticate) {
        if (!(await route.authenticate(req, res))) return;
      } else if (!route.public && !tokenOk(req)) {
        res.writeHead(401, { 'www-authenticate': 'Bearer realm="switchboard"', 'content-type': 'text/plain' });
        return void res.end('Unauthorized: send Authorization: Bearer <SWITCHBOARD_HTTP_TOKEN>.');
      }
      const refused = route.usesStore !== false && options.storeRefusal?.();
      if (refused) return refuseUnavailable(res, refused);
      return await route.handle(req, res, url);
    } catch (error) {
      // The store says what failed when it does (logged once, by serve); the answer says so without naming where it is.
      if (error instanceof StoreUnavailableError && !res.headersSent) return refuseUnavailable(res, error);
      options.logger.error('http request failed', { path: req.url?.split('?')[0], message: (error as Error).message });
      if (!res.headersSent) plain(res, 500, 'Internal error.');
      else res.end();
    }
  };

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await closeMounts();
    throw listenError(error as NodeJS.ErrnoException, options.host, options.port);
  }
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    async close() {
      await closeMounts();
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

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
}
