import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as an OTLP/HTTP JSON export carries it, its attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  status?: { code?: number };
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  resource: Record<string, unknown>;
  /** The whole export this span came in, as sent: what a secret scan reads. */
  raw: string;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}
type KeyValues = Array<{ key: string; value: AnyValue }> | undefined;

const valueOf = (v: AnyValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue ?? v.arrayValue?.values?.map(valueOf);
const flat = (kvs: KeyValues) => Object.fromEntries((kvs ?? []).map(({ key, value }) => [key, valueOf(value)]));

/** The test's OTLP receiver: a node:http server on 127.0.0.1 taking http/json exports of spans and metrics. */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly bodies: string[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        this.bodies.push(raw);
        if (req.url === '/v1/traces') this.takeSpans(raw);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private takeSpans(raw: string): void {
    const body = JSON.parse(raw) as {
      resourceSpans?: Array<{ resource?: { attributes?: KeyValues }; scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }>;
    };
    for (const rs of body.resourceSpans ?? []) {
      const resource = flat(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          this.spans.push({
            traceId: s.traceId as string,
            spanId: s.spanId as string,
            parentSpanId: (s.parentSpanId as string) || undefined,
            name: s.name as string,
            kind: s.kind as number,
            status: s.status as { code?: number },
            attributes: flat(s.attributes as KeyValues),
            events: ((s.events as Array<{ name: string; attributes: KeyValues }>) ?? []).map((e) => ({ name: e.name, attributes: flat(e.attributes) })),
            resource,
            raw,
          });
        }
      }
    }
  }

  /** Waits until a span satisfying `match` has arrived (exports are batched: up to a few seconds). */
  async span(match: (span: ReceivedSpan) => boolean, timeoutMs = 15_000): Promise<ReceivedSpan> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.spans.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no such span within ${timeoutMs} ms; received: ${this.spans.map((s) => s.name).join(', ') || 'none'}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
