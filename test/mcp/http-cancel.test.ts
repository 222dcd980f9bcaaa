import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHttpListener, type HttpListener } from '../../src/mcp/http.js';
import { surfaceOf } from '../../src/mcp/server.js';
import { startHarness, type Harness } from '../harness.js';
import { RawSession, sseEvents, type SseEvent } from './sse.js';

let h: Harness;
let listener: HttpListener | undefined;

beforeAll(async () => {
  h = await startHarness();
  await h.ok('triggers_create', { kind: 'outlook.new_email', config: { filter: 'subject:cancel' } });
});
afterEach(async () => {
  await listener?.close();
  listener = undefined;
});
afterAll(() => h.close());

const listen = async () =>
  (listener = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: surfaceOf(h.deps), logger: h.deps.logger, version: 't' }));

/** A call that would wait a minute: a long poll for events that never come. */
const longPoll = (consumer: string) => ({ name: 'events_next', arguments: { consumer, wait_seconds: 60 } });

describe('a cancelled request', () => {
  it('has its stream closed, and resuming that stream is answered 204 (stop reconnecting)', async () => {
    const { url } = await listen();
    const session = await RawSession.open(`${url}/mcp`);
    const res = await session.post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: longPoll('raw') });
    expect(res.status).toBe(200);
    const stream = sseEvents(res.body!);
    const priming = (await stream.next()).value as SseEvent;
    expect(priming.id).toMatch(/\S/);

    const cancelled = await session.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user stopped it' } });
    expect(cancelled.status).toBe(202);
    const rest: SseEvent[] = [];
    for await (const event of stream) rest.push(event);
    // No answer for a cancelled request, as the specification asks; the stream simply ends.
    expect(rest.filter((e) => e.data)).toEqual([]);

    const resumed = await session.listen(priming.id);
    expect(resumed.status).toBe(204);
    // The session goes on: another request on it is answered.
    await expect(session.request('ping')).resolves.toEqual({});
  }, 20_000);

  it("leaves an SDK client with no open stream, no reconnect loop and no error after it aborts a call", async () => {
    const { url } = await listen();
    const open = new Set<ReadableStreamDefaultReader<Uint8Array>>();
    const resumes: number[] = [];
    // Counts the request streams the client still reads and what its resumptions were answered.
    const counting: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (new Headers(init?.headers).get('last-event-id')) resumes.push(res.status);
      // The client's own GET stream (for notifications) is meant to stay open; only request streams are counted.
      if (init?.method !== 'POST' || !res.body || !res.headers.get('content-type')?.includes('text/event-stream')) return res;
      const reader = res.body.getReader();
      open.add(reader);
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const read = await reader.read().catch(() => ({ done: true as const, value: undefined }));
          if (read.done) {
            open.delete(reader);
            controller.close();
          } else controller.enqueue(read.value);
        },
        cancel: () => void open.delete(reader),
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const errors: Error[] = [];
    const client = new Client({ name: 'canceller', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { fetch: counting });
    await client.connect(transport);
    client.onerror = (error) => void errors.push(error);

    const abort = new AbortController();
    const call = client.callTool(longPoll('sdk'), undefined, { signal: abort.signal });
    for (const end = Date.now() + 5_000; open.size === 0; await new Promise((r) => setTimeout(r, 10))) {
      if (Date.now() > end) throw new Error('the call never opened its stream');
    }
    abort.abort('enough');
    await expect(call).rejects.toThrow();
    for (const end = Date.now() + 10_000; open.size > 0; await new Promise((r) => setTimeout(r, 20))) {
      if (Date.now() > end) throw new Error(`${open.size} stream(s) still open after the cancellation`);
    }
    // The client resumes the closed stream at most once, is told there is nothing more, and stops.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(resumes.every((status) => status === 204)).toBe(true);
    expect(resumes.length).toBeLessThanOrEqual(1);
    expect(errors).toEqual([]);
    await expect(client.listTools()).resolves.toHaveProperty('tools');
    await client.close();
  }, 30_000);
});
