import type { IncomingMessage, ServerResponse } from 'node:http';

/** A route the one HTTP listener serves: MCP, webhooks, the Integrations page, sign-in callbacks. */
export interface Route {
  /** The request method, or '*' for a route that answers every method (405 itself for those it refuses). */
  method: string;
  /** Exact path ('/' is exact: the Integrations page), or a prefix ending in '/'. */
  path: string;
  /** Webhook and OAuth routes are reached by providers and browsers, not with the bearer token. */
  public?: boolean;
  /** False for a route that answers without the store: it is served while the store is refused. */
  usesStore?: false;
  /** Checks the caller itself instead of the listener's token (team mode's access tokens); false once it has answered the request. */
  authenticate?(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> | void;
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The whole request body, or undefined when it is over `maxBytes` (the rest is still read, so the answer arrives). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    req.on('error', () => resolve(undefined));
    req.on('end', () => resolve(size > maxBytes ? undefined : Buffer.concat(chunks)));
  });
}
