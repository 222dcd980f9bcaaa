import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SandboxRequest {
  method: string;
  /** Path without the query string, as sent (still percent-encoded). */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  body: any;
}

export interface SandboxResponse {
  status?: number;
  headers?: Record<string, string>;
  /** Objects are sent as JSON; strings and Buffers as they are. */
  body?: unknown;
}

/** One request and the answer it got, as sent on the wire. */
export interface SandboxExchange {
  request: SandboxRequest;
  /** The route key that answered, or undefined for a miss. */
  route?: string;
  /** Whether a test's `use` or `once` answered instead of the sandbox's own route. */
  injected: boolean;
  status: number;
  headers: Record<string, string>;
  /** The answer's body as sent (JSON bodies already serialized). */
  payload?: Buffer | string;
}

export type SandboxHandler = (req: SandboxRequest) => SandboxResponse | Promise<SandboxResponse>;

/** A route table keyed 'METHOD /path/:param'; a `*rest` segment matches the rest of the path. */
export type Routes = Record<string, SandboxHandler>;

export interface SandboxServer {
  name: string;
  url: string;
  /** Every request received, in order. */
  requests: SandboxRequest[];
  /** The answers given, in order: the last EXCHANGES_KEPT of them, so a long-running sandbox does not grow without end. */
  exchanges: SandboxExchange[];
  /** Requests that matched no route (answered 501). */
  misses: SandboxRequest[];
  /** Replace or add one route until reset(). */
  use(key: string, handler: SandboxHandler): void;
  /** Answer the next `times` requests matching `key` with `response`, then fall back to the route. */
  once(key: string, response: SandboxResponse, times?: number): void;
  reset(): void;
  close(): Promise<void>;
}

interface CompiledRoute {
  key: string;
  method: string;
  pattern: RegExp;
  names: string[];
}

function compile(key: string): CompiledRoute {
  const [method, path] = key.split(' ', 2);
  if (!method || !path) throw new Error(`Route key must be 'METHOD /path': ${key}`);
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) {
        names.push(segment.slice(1));
        return '([^/]+)';
      }
      if (segment.startsWith('*')) {
        names.push(segment.slice(1));
        return '(.+)';
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { key, method, pattern: new RegExp(`^${source}/?$`), names };
}

export const EXCHANGES_KEPT = 5_000;

/** Starts a stand-in provider: a real HTTP server on 127.0.0.1 with state kept by its route handlers. */
export async function startSandboxServer(name: string, routes: Routes, port = 0, onMiss?: (request: SandboxRequest) => void): Promise<SandboxServer> {
  const base = new Map(Object.entries(routes));
  let overrides = new Map<string, SandboxHandler>();
  let queued = new Map<string, SandboxResponse[]>();
  const requests: SandboxRequest[] = [];
  const exchanges: SandboxExchange[] = [];
  const misses: SandboxRequest[] = [];
  let compiled: CompiledRoute[] = [];
  const recompile = () => {
    compiled = [...new Set([...overrides.keys(), ...base.keys(), ...queued.keys()])].map(compile);
    // Literal segments win over parameters: '/me/messages/delta' before '/me/messages/:id'.
    compiled.sort((a, b) => specificity(b) - specificity(a));
  };
  recompile();

  const http: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const rawBody = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://sandbox');
      const request: SandboxRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        params: {},
        query: url.searchParams,
        headers: req.headers,
        rawBody,
        body: parseJson(rawBody),
      };
      requests.push(request);
      const match = findRoute(compiled, request.method, url.pathname);
      let response: SandboxResponse;
      let injected = false;
      if (!match) {
        misses.push(request);
        unchecked.add(server);
        onMiss?.(request);
        response = { status: 501, body: { error: { code: 'NotImplemented', message: `${name} sandbox has no route for ${request.method} ${url.pathname}` } } };
      } else {
        request.params = match.params;
        const pending = queued.get(match.key);
        const override = overrides.get(match.key);
        injected = !!pending?.length || !!override;
        const handler = override ?? base.get(match.key);
        try {
          if (pending?.length) response = pending.shift()!;
          else if (handler) response = await handler(request);
          else response = { status: 501 };
        } catch (error) {
          response = { status: 500, body: { error: { code: 'SandboxFailure', message: String(error) } } };
        }
      }
      const { status, headers, payload } = encode(response);
      exchanges.push({ request, route: match?.key, injected, status, headers, payload });
      if (exchanges.length > EXCHANGES_KEPT) exchanges.splice(0, exchanges.length - EXCHANGES_KEPT);
      res.writeHead(status, headers);
      res.end(payload);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port: actual } = http.address() as AddressInfo;

  const server: SandboxServer = {
    name,
    url: `http://127.0.0.1:${actual}`,
    requests,
    exchanges,
    misses,
    use(key, handler) {
      overrides.set(key, handler);
      recompile();
    },
    once(key, response, times = 1) {
      queued.set(key, [...(queued.get(key) ?? []), ...Array.from({ length: times }, () => response)]);
      recompile();
    },
    reset() {
      overrides = new Map();
      queued = new Map();
      requests.length = 0;
      exchanges.length = 0;
      misses.length = 0;
      recompile();
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
  return server;
}

/** Servers with misses not yet taken by takeMisses(), closed ones included. */
const unchecked = new Set<SandboxServer>();
/** Misses of sandboxes in other processes, as reported by whoever reads their output. */
const reported: string[] = [];

/** Notes a miss of a sandbox in another process (its 'sandbox has no route' log line), as 'name METHOD /path'. */
export function reportMiss(description: string): void {
  reported.push(description);
}

/**
 * Every miss since the last call, as 'name METHOD /path': this process's sandbox servers' and those reported from
 * other processes; then forgets them. A test that provokes a miss on purpose clears that server's `misses`.
 */
export function takeMisses(): string[] {
  const found = [...unchecked].flatMap((s) => s.misses.splice(0).map((r) => `${s.name} ${r.method} ${r.path}`));
  unchecked.clear();
  return [...found, ...reported.splice(0)];
}

function specificity(route: CompiledRoute): number {
  const path = route.key.slice(route.key.indexOf(' ') + 1);
  return path.split('/').reduce((n, s) => n + (s.startsWith(':') ? 1 : s.startsWith('*') ? 0 : 3), 0);
}

function findRoute(routes: CompiledRoute[], method: string, path: string) {
  for (const route of routes) {
    if (route.method !== method) continue;
    const m = route.pattern.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    route.names.forEach((n, i) => (params[n] = decodePath(m[i + 1] ?? '')));
    return { key: route.key, params };
  }
  return undefined;
}

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function parseJson(raw: Buffer): any {
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

function encode(response: SandboxResponse): { status: number; headers: Record<string, string>; payload?: Buffer | string } {
  const status = response.status ?? 200;
  const headers: Record<string, string> = { ...response.headers };
  let payload: Buffer | string | undefined;
  if (response.body === undefined || response.body === null) payload = undefined;
  else if (Buffer.isBuffer(response.body) || typeof response.body === 'string') payload = response.body;
  else {
    payload = JSON.stringify(response.body);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  return { status, headers, payload };
}
