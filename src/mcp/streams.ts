import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventLoopUtilization } from 'node:perf_hooks';
import type { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { header } from '../http/incoming.js';
import { framedEvents, STANDALONE_STREAM, standaloneEvent, streamOf, takeSeqs, type FramedEvents, type SessionEventStore } from './event-store.js';

/** The SSE `retry` a client waits before resuming a dropped stream. */
export const SSE_RETRY_MS = 1_000;

/**
 * Handles a GET's Last-Event-ID before the SDK does; true when it has answered. A GET that resumes the standalone
 * stream replaces the one still open (the client has given up on it, though the server may not have noticed yet,
 * which the SDK would answer 409). Resuming a stream whose request was cancelled gets 204, which tells an SSE client
 * to stop reconnecting: nothing more will come on it. A fresh GET stream starts with a priming event, as the SDK does
 * for POST streams, so a client that loses it before the first notification can still resume.
 */
export function resumeOrPrime(transport: StreamableHTTPServerTransport, events: SessionEventStore, req: IncomingMessage, res: ServerResponse): boolean {
  const lastEventId = header(req, 'last-event-id');
  if (lastEventId) {
    const stream = streamOf(lastEventId);
    if (stream === STANDALONE_STREAM) transport.closeStandaloneSSEStream();
    else if (stream && events.isFinished(stream)) {
      res.writeHead(204, transport.sessionId ? { 'mcp-session-id': transport.sessionId } : {}).end();
      return true;
    }
    if (stream === STANDALONE_STREAM) holdResponse(transport, res);
    return false;
  }
  // As in the SDK: clients before 2025-11-25 cannot take an event with empty data.
  const priming = (header(req, 'mcp-protocol-version') ?? '') < '2025-11-25' ? undefined : `id: ${events.store(STANDALONE_STREAM, {})}\nretry: ${SSE_RETRY_MS}\ndata: \n\n`;
  holdResponse(transport, res, priming);
  return false;
}

/** The Node response under each standalone stream's controller, from its head on: notifications skip the web stream. */
const responses = new WeakMap<ReadableStreamDefaultController<Uint8Array>, ServerResponse>();

function holdResponse(transport: StreamableHTTPServerTransport, res: ServerResponse, priming?: string): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    writeHead(...args);
    if (args[0] !== 200) return res;
    if (priming) res.write(priming);
    const controller = standaloneStreams(transport)?._streamMapping.get(STANDALONE_STREAM)?.controller;
    if (controller) responses.set(controller, res);
    return res;
  }) as typeof res.writeHead;
}

/**
 * The SDK stops a cancelled request's work and, as the specification asks, sends no answer, but leaves the POST
 * stream that would have carried it open for the life of the session. Close it once the cancellation is handled.
 */
export function closeCancelledStreams(transport: StreamableHTTPServerTransport, events: SessionEventStore, body: unknown): void {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (message?.method !== 'notifications/cancelled') continue;
    const requestId: unknown = message.params?.requestId;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') continue;
    const streams = requestStreams(transport);
    const stream = streams?.get(requestId);
    if (stream) events.finish(stream);
    transport.closeSSEStream(requestId);
    streams?.delete(requestId);
  }
}

/** The SDK keeps which stream carries each request to itself (1.32: the web-standard transport's private map). */
function requestStreams(transport: StreamableHTTPServerTransport): Map<string | number, string> | undefined {
  const inner = (transport as unknown as { _webStandardTransport?: { _requestToStreamMapping?: unknown } })._webStandardTransport;
  return inner?._requestToStreamMapping instanceof Map ? inner._requestToStreamMapping : undefined;
}

/** Numbers and frames notifications for one session; those every session is sent alike are framed once (event-notes.ts). */
export function frameMessages(messages: readonly JSONRPCMessage[]): FramedEvents {
  const first = takeSeqs(messages.length);
  return framedEvents(messages.map((message, i) => standaloneEvent(first + i, JSON.stringify(message))).join(''), messages.length, first + messages.length - 1);
}

/** The SDK's stream for messages related to no request (2.x: the web-standard transport's private fields). */
interface StandaloneStreams {
  _standaloneSseStreamId: string;
  _streamMapping: Map<string, { controller?: ReadableStreamDefaultController<Uint8Array>; replayedEventIds?: Set<string> }>;
}

/**
 * How long a session's notifications wait to be written together. While the process has time to spare, none: each
 * goes out in the turn it was sent in. When it is busy (its event loop, measured over the last BUSY_SAMPLE_MS, is
 * busy at least BUSY_AT of the time), up to WRITE_EVERY_MS: one write carries the events of several commits, instead
 * of a write (a system call, and a wake-up of the client) for each, which would take the time commits need.
 */
const WRITE_EVERY_MS = 20;
const BUSY_AT = 0.5;
const BUSY_SAMPLE_MS = 100;
// Taken from the first write on, not at import (the first covers the time since the process started): reading the
// event loop's use loads perf_hooks, which serve does not need before its tools/list answer.
let loopSample: { elu: EventLoopUtilization; at: number; busy: boolean } | undefined;

function writeDelay(): number {
  const now = performance.now();
  if (!loopSample || now - loopSample.at >= BUSY_SAMPLE_MS) {
    const elu = performance.eventLoopUtilization();
    const since = loopSample ? performance.eventLoopUtilization(elu, loopSample.elu) : elu;
    loopSample = { elu, at: now, busy: since.utilization >= BUSY_AT };
  }
  return loopSample.busy ? WRITE_EVERY_MS : 0;
}

function standaloneStreams(transport: StreamableHTTPServerTransport): StandaloneStreams | undefined {
  const inner = (transport as unknown as { _webStandardTransport?: Partial<StandaloneStreams> })._webStandardTransport;
  if (typeof inner?._standaloneSseStreamId !== 'string' || !(inner._streamMapping instanceof Map)) return undefined;
  return inner as StandaloneStreams;
}

type Notifier = (batch: FramedEvents) => void;
const notifiers = new WeakMap<object, Notifier>();

/** Sends notifications through the session's direct path (sendNotificationsDirectly); false when it has none. */
export function notifyDirectly(transport: object | undefined, batch: FramedEvents): boolean {
  const notify = transport && notifiers.get(transport);
  if (!notify) return false;
  notify(batch);
  return true;
}

/**
 * A notification related to no request goes to the standalone stream as the SDK would send it (kept in the event
 * store for resumption, then written as an SSE event), without the SDK's four zod parses that tell a response from
 * it: each fails for a notification and builds an Error with its stack, most of the cost of telling a subscribed
 * session of an event. A batch of events is framed once for every session, its bytes copied into each session's
 * event store and written as they are; what is sent within writeDelay() is written together, straight to the Node
 * response once the web stream under it is empty (hono pipes each chunk a microtask after it is queued, so the order
 * holds). Any other message, and the SDK's keep-alives, take the SDK's own way, after what is pending; so does every
 * message when the SDK's internals are not as expected.
 */
export function sendNotificationsDirectly(transport: StreamableHTTPServerTransport, events: SessionEventStore): void {
  const inner = standaloneStreams(transport);
  if (!inner) return;
  const { _standaloneSseStreamId: streamId, _streamMapping: streams } = inner;
  const send = transport.send.bind(transport);
  let pending: Buffer[] = [];
  // What is pending belongs to the stream it was framed for: a stream that replaced it replays it from the store.
  let pendingFor: ReadableStreamDefaultController<Uint8Array> | undefined;
  let scheduled = false;
  let lastWrite = 0;
  // The response whose socket is full: what is sent meanwhile waits in `pending` (each batch's framed buffer, shared
  // by every session) and goes out in one write when it drains, rather than piling up write after write in the response.
  let drainOf: ServerResponse | undefined;
  const flush = (force = false) => {
    scheduled = false;
    if (!pending.length) return;
    const controller = streams.get(streamId)?.controller;
    if (!controller || controller !== pendingFor) {
      pending = [];
      return;
    }
    const res = responses.get(controller);
    const direct = res !== undefined && controller.desiredSize! > 0 && !res.destroyed && !res.writableEnded;
    if (direct && res.writableNeedDrain && !force) {
      if (drainOf === res) return;
      drainOf = res;
      res.once('drain', () => {
        if (drainOf !== res) return;
        drainOf = undefined;
        flush();
      });
      return;
    }
    // One write, one HTTP chunk: a chunk per batch costs more, in the response's framing, than copying them together.
    const chunk = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    pending = [];
    lastWrite = Date.now();
    if (direct && !res.writableNeedDrain) res.write(chunk);
    else controller.enqueue(chunk);
  };
  const notify = (batch: FramedEvents) => {
    if (!batch.count) return;
    events.keepFramed(batch);
    const stream = streams.get(streamId);
    if (!stream?.controller) return;
    if (stream.controller !== pendingFor) {
      pending = [];
      pendingFor = stream.controller;
    }
    // Kept before the stream was resumed, and so replayed on it already.
    if (stream.replayedEventIds?.has(`${batch.last}_${streamId}`)) return;
    pending.push(batch.sse);
    if (scheduled) return;
    scheduled = true;
    const wait = lastWrite + writeDelay() - Date.now();
    if (wait > 0) setTimeout(flush, wait);
    else setImmediate(flush);
  };
  notifiers.set(transport, notify);
  transport.send = async (message, options) => {
    if (!('method' in message) || 'id' in message || options?.relatedRequestId !== undefined) {
      flush(true);
      return send(message, options);
    }
    notify(frameMessages([message]));
  };
}
