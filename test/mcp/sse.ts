/** Raw Streamable HTTP for tests that must control headers (Last-Event-ID) and see every SSE field. */

export interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

const ACCEPT = 'application/json, text/event-stream';
const PROTOCOL = '2025-11-25';

/** Reads SSE events from a response body; comments (keep-alives) are skipped. */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += decoder.decode(read.value, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event: SseEvent = { data: '' };
      let fields = 0;
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        fields++;
        if (name === 'id') event.id = value;
        else if (name === 'retry') event.retry = Number(value);
        else if (name === 'data') event.data += value;
      }
      if (fields > 0) yield event;
    }
  }
}

const MODERN = '2026-07-28';
const envelope = () => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

export type RawAnswer = { status: number; session: string | null; body: { result?: any; error?: { code: number; message: string; data?: any } } };

/** One 2026-07-28 request as the revision lays it out: the envelope in _meta, the method (and name) in headers too. */
export async function postModern(endpoint: string, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const name: Record<string, string> = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-method': method, 'mcp-protocol-version': MODERN, ...name, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta: envelope(), ...params } }),
  });
  return { status: res.status, session: res.headers.get('mcp-session-id'), body: (await res.json()) as RawAnswer['body'] };
}

/** A session opened by hand: initialize, then notifications/initialized. */
export class RawSession {
  private nextId = 1;
  private constructor(
    readonly endpoint: string,
    readonly id: string,
  ) {}

  static async open(endpoint: string): Promise<RawSession> {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    if (res.status !== 200) throw new Error(`initialize answered ${res.status}: ${await res.text()}`);
    await res.text();
    const session = new RawSession(endpoint, res.headers.get('mcp-session-id')!);
    const initialized = await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (initialized.status !== 202) throw new Error(`notifications/initialized answered ${initialized.status}`);
    return session;
  }

  post(message: unknown): Promise<Response> {
    return fetch(this.endpoint, { method: 'POST', headers: this.headers({ 'content-type': 'application/json' }), body: JSON.stringify(message) });
  }

  /** Sends a request and returns its result (the answer's SSE stream ends with it). */
  async request(method: string, params: Record<string, unknown> = {}): Promise<any> {
    const id = this.nextId++;
    const res = await this.post({ jsonrpc: '2.0', id, method, params });
    if (res.status !== 200) throw new Error(`${method} answered ${res.status}: ${await res.text()}`);
    for await (const event of sseEvents(res.body!)) {
      if (!event.data) continue;
      const message = JSON.parse(event.data);
      if (message.id === id) {
        if (message.error) throw new Error(`${method} failed: ${message.error.message}`);
        return message.result;
      }
    }
    throw new Error(`${method}: the stream ended without an answer`);
  }

  /** Opens the standalone GET stream (resuming after `lastEventId` when given); resolves once the headers arrive. */
  listen(lastEventId?: string, signal?: AbortSignal): Promise<Response> {
    return fetch(this.endpoint, { method: 'GET', headers: this.headers(lastEventId ? { 'last-event-id': lastEventId } : {}), signal });
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    return { accept: ACCEPT, 'mcp-session-id': this.id, 'mcp-protocol-version': PROTOCOL, ...extra };
  }
}
