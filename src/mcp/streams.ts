import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { header } from '../http/incoming.js';
import { STANDALONE_STREAM, streamOf, type SessionEventStore } from './event-store.js';

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
    return false;
  }
  // As in the SDK: clients before 2025-11-25 cannot take an event with empty data.
  if ((header(req, 'mcp-protocol-version') ?? '') < '2025-11-25') return false;
  const primingId = events.store(STANDALONE_STREAM, {});
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    writeHead(...args);
    if (args[0] === 200) res.write(`id: ${primingId}\nretry: ${SSE_RETRY_MS}\ndata: \n\n`);
    return res;
  }) as typeof res.writeHead;
  return false;
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

/** The JSON of messages every session is sent alike (frozen, so they cannot change), written once for all of them. */
const written = new WeakMap<object, string>();
function jsonOf(message: object): string {
  if (!Object.isFrozen(message)) return JSON.stringify(message);
  let json = written.get(message);
  if (json === undefined) written.set(message, (json = JSON.stringify(message)));
  return json;
}

/** The SDK's stream for messages related to no request (2.x: the web-standard transport's private fields). */
interface StandaloneStreams {
  _standaloneSseStreamId: string;
  _streamMapping: Map<string, { controller?: ReadableStreamDefaultController<Uint8Array>; encoder?: { encode(text: string): Uint8Array }; replayedEventIds?: Set<string> }>;
}

/**
 * A notification related to no request goes to the standalone stream as the SDK would send it (kept in the event
 * store for resumption, then written as an SSE event), without the SDK's four zod parses that tell a response from
 * it: each fails for a notification and builds an Error with its stack, most of the cost of telling a subscribed
 * session of an event. The JSON is written once, for the store's accounting and the stream, and the events of one
 * turn (a batch of events, two notifications each) reach the stream as one chunk. Any other message takes the SDK's
 * own way, after what is pending; so does every message when the SDK's internals are not as expected.
 */
export function sendNotificationsDirectly(transport: StreamableHTTPServerTransport, events: SessionEventStore): void {
  const inner = (transport as unknown as { _webStandardTransport?: Partial<StandaloneStreams> })._webStandardTransport;
  if (typeof inner?._standaloneSseStreamId !== 'string' || !(inner._streamMapping instanceof Map)) return;
  const { _standaloneSseStreamId: streamId, _streamMapping: streams } = inner as StandaloneStreams;
  const send = transport.send.bind(transport);
  let pending: string[] = [];
  const flush = () => {
    const text = pending.join('');
    pending = [];
    const stream = streams.get(streamId);
    if (text && stream?.controller && stream.encoder) stream.controller.enqueue(stream.encoder.encode(text));
  };
  transport.send = async (message, options) => {
    if (!('method' in message) || 'id' in message || options?.relatedRequestId !== undefined) {
      flush();
      return send(message, options);
    }
    const json = jsonOf(message);
    const eventId = events.store(streamId, message, json.length);
    const stream = streams.get(streamId);
    if (!stream?.controller || !stream.encoder || stream.replayedEventIds?.has(eventId)) return;
    if (!pending.length) queueMicrotask(flush);
    pending.push(`event: message\nid: ${eventId}\ndata: ${json}\n\n`);
  };
}
