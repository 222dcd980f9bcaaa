import { request } from 'undici';

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON when the body is JSON, else the text (undefined when empty). */
  body: any;
  raw: Buffer;
}

export interface HttpOptions {
  headers?: Record<string, string>;
  body?: unknown;
}

/** One real HTTP request to a sandbox on 127.0.0.1. */
export async function http(method: string, url: string, options: HttpOptions = {}): Promise<HttpResult> {
  const hasBody = options.body !== undefined;
  const res = await request(url, {
    method: method as 'GET',
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...options.headers },
    body: hasBody ? (typeof options.body === 'string' ? options.body : JSON.stringify(options.body)) : undefined,
  });
  const raw = Buffer.from(await res.body.arrayBuffer());
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  let body: any = undefined;
  if (raw.length) {
    const text = raw.toString('utf8');
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: res.statusCode, headers, body, raw };
}

/** A caller bound to a base URL and credentials: `api('GET', '/me')`. */
export function client(base: string, auth: Record<string, string>) {
  return (method: string, path: string, options: HttpOptions = {}) =>
    http(method, path.startsWith('http') ? path : base + path, { ...options, headers: { ...auth, ...options.headers } });
}
