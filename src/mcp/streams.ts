import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
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

/** A notification as SSE: the message, and its data line ending the event (the id line goes before it). */
export interface SseFrame {
  message: JSONRPCMessage;
  data: Buffer;
}

const EVENT_LINE = Buffer.from('event: message\n');

/** Frames a notification; one that every session is sent alike is framed once for all of them (event-notes.ts). */
export function frameOf(message: JSONRPCMessage): SseFrame {
  return { message, data: Buffer.from(`data: ${JSON.stringify(message)}\n\n`) };
}

/** The SDK's stream for messages related to no request (2.x: the web-standard transport's private fields). */
interface StandaloneStreams {
  _standaloneSseStreamId: string;
  _streamMapping: Map<string, { controller?: ReadableStreamDefaultController<Uint8Array>; replayedEventIds?: Set<string> }>;
}

/**
 * A session's notifications are written at most this often: at a trickle each goes out at once, under load one write
 * carries the events of several commits, instead of a write (a system call, and a wake-up of the client) for each.
 */
const WRITE_EVERY_MS = 5;

type Notifier = (frames: readonly SseFrame[]) => void;
const notifiers = new WeakMap<object, Notifier>();

/** Sends framed notifications through the session's direct path (sendNotificationsDirectly); false when it has none. */
export function notifyDirectly(transport: object | undefined, frames: readonly SseFrame[]): boolean {
  const notify = transport && notifiers.get(transport);
  if (!notify) return false;
  notify(frames);
  return true;
}

/**
 * A notification related to no request goes to the standalone stream as the SDK would send it (kept in the event
 * store for resumption, then written as an SSE event), without the SDK's four zod parses that tell a response from
 * it: each fails for a notification and builds an Error with its stack, most of the cost of telling a subscribed
 * session of an event. A batch of events is framed once for every session and kept in the event store as one entry;
 * what is sent within WRITE_EVERY_MS reaches the stream as one chunk. Any other message takes the SDK's own way, after
 * what is pending; so does every message when the SDK's internals are not as expected.
 */
export function sendNotificationsDirectly(transport: StreamableHTTPServerTransport, events: SessionEventStore): void {
  const inner = (transport as unknown as { _webStandardTransport?: Partial<StandaloneStreams> })._webStandardTransport;
  if (typeof inner?._standaloneSseStreamId !== 'string' || !(inner._streamMapping instanceof Map)) return;
  const { _standaloneSseStreamId: streamId, _streamMapping: streams } = inner as StandaloneStreams;
  const send = transport.send.bind(transport);
  let pending: Buffer[] = [];
  // What is pending belongs to the stream it was framed for: a stream that replaced it replays it from the store.
  let pendingFor: ReadableStreamDefaultController<Uint8Array> | undefined;
  let scheduled = false;
  let lastWrite = 0;
  const flush = () => {
    scheduled = false;
    if (!pending.length) return;
    const chunk = Buffer.concat(pending);
    pending = [];
    const controller = streams.get(streamId)?.controller;
    if (!controller || controller !== pendingFor) return;
    lastWrite = Date.now();
    controller.enqueue(chunk);
  };
  const notify = (frames: readonly SseFrame[]) => {
    if (!frames.length) return;
    const bytes = frames.reduce((n, frame) => n + frame.data.length, 0);
    const first = events.storeMany(
      streamId,
      frames.map((frame) => frame.message),
      bytes,
    );
    const stream = streams.get(streamId);
    if (!stream?.controller) return;
    if (stream.controller !== pendingFor) {
      pending = [];
      pendingFor = stream.controller;
    }
    frames.forEach((frame, i) => {
      const id = `${first + i}_${streamId}`;
      if (!stream.replayedEventIds?.has(id)) pending.push(EVENT_LINE, Buffer.from(`id: ${id}\n`, 'latin1'), frame.data);
    });
    if (scheduled) return;
    scheduled = true;
    const wait = lastWrite + WRITE_EVERY_MS - Date.now();
    if (wait > 0) setTimeout(flush, wait);
    else setImmediate(flush);
  };
  notifiers.set(transport, notify);
  transport.send = async (message, options) => {
    if (!('method' in message) || 'id' in message || options?.relatedRequestId !== undefined) {
      flush();
      return send(message, options);
    }
    notify([frameOf(message)]);
  };
}
