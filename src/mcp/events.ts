import { actorOf, clientInfoOf } from './actor.js';
import type { Server, ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { EventsErrorNumbering } from '../config.js';
import { InputError } from '../errors.js';
import { EventsError, eventsErrors } from '../events/errors.js';
import type { EventType } from '../events/types.js';
import type { EventsContext } from '../events/subscriptions.js';
import type { EventsLimits } from '../events/limits.js';
import type { StreamSink } from '../events/stream.js';
import type { ToolDeps } from '../tool.js';
import type { ToolRefusal } from '../governance/tool-access.js';
import { ownerOf, readOnlyCaller, signedInOwner } from './auth.js';
import { RequestError } from './requests.js';

export const EVENTS_EXTENSION = 'io.modelcontextprotocol/events';

/**
 * How a server offers the MCP Events extension: the SEP reads `extensions`, the deployed clients (ChatGPT, the AI SDK)
 * read a top-level `events`; both are sent, in server/discover and in initialize alike.
 */
export const EVENTS_CAPABILITIES = { events: {}, extensions: { [EVENTS_EXTENSION]: {} } };

/** All 31 types fit one page today; the cursor exists so that a longer list needs no new client. */
export const EVENTS_PAGE_SIZE = 50;

const CURSOR_PREFIX = 'ev1.';
const encodeCursor = (offset: number) => CURSOR_PREFIX + Buffer.from(String(offset)).toString('base64url');

/** The offset a cursor of this server names; -32602 naming "cursor" for anything else. */
function decodeCursor(cursor: string | undefined, total: number, errors: ReturnType<typeof eventsErrors>): number {
  if (cursor === undefined) return 0;
  const digits = cursor.startsWith(CURSOR_PREFIX) ? Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString() : '';
  const offset = /^[1-9]\d{0,5}$/.test(digits) ? Number(digits) : NaN;
  if (!(offset < total)) {
    throw errors.invalidParams(`"cursor" ${JSON.stringify(cursor.slice(0, 100))} was not given by this server (or the list has changed since): omit cursor to list from the start.`, { field: 'cursor' });
  }
  return offset;
}

/** One page of the types, and the cursor of the next when there is more. */
export function pageOf(types: EventType[], cursor: string | undefined, errors = eventsErrors()): { events: EventType[]; nextCursor?: string } {
  const offset = decodeCursor(cursor, types.length, errors);
  const end = offset + EVENTS_PAGE_SIZE;
  return { events: types.slice(offset, end), ...(end < types.length ? { nextCursor: encodeCursor(end) } : {}) };
}

/** The JSON-RPC error an Events handler's failure is sent as: its code in the numbering in force, and its typed data. */
export function eventsRequestError(error: unknown, numbering?: EventsErrorNumbering): unknown {
  if (error instanceof EventsError) return new RequestError(error.code, error.message, error.data);
  if (error instanceof InputError) {
    const invalid = eventsErrors(numbering).invalidParams(error.message, { field: error.field ?? 'params' });
    return new RequestError(invalid.code, invalid.message, invalid.data);
  }
  return error;
}

export interface EventsDeps extends ToolDeps {
  httpAuth?: 'static-token' | 'none';
  eventsErrorCodes?: EventsErrorNumbering;
  eventsMaxSubscriptions?: number;
  /** The per-person poll and delivery rates of this process. */
  eventsLimits?: EventsLimits;
  eventsTiming?: { minTtlMs?: number; heartbeatMs?: number };
}

/** The key under which each notification of a stream names the request that opened it. */
export const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';

/** A stream's notifications, each related to its request (so it travels on that request's SSE stream) and naming it. */
function streamSink(ctx: ServerContext): StreamSink {
  const send = (name: string, params: Record<string, unknown>) =>
    ctx.mcpReq.notify({ method: `notifications/events/${name}`, params: { ...params, _meta: { [SUBSCRIPTION_ID_META_KEY]: ctx.mcpReq.id } } } as never);
  return {
    active: (params) => send('active', params),
    event: (occurrence) => send('event', occurrence),
    heartbeat: (params) => send('heartbeat', params),
    terminated: (params) => send('terminated', params),
  };
}

const listParams = z.looseObject({ cursor: z.string().optional() });
/** Subscribe's params are checked field by field in the extension's order (events/subscriptions.ts), so any object passes here. */
const anyParams = z.looseObject({});
/** The client's own name: from the request in 2026, from initialize in 2025. */
const clientNameOf = (server: Server, ctx: ServerContext): string | undefined => clientInfoOf(server, ctx).name;

/**
 * Who subscribes, and what they may do. The principal is the caller the transport authenticated: the signed-in person
 * in team mode; in personal mode the server's one owner, whom SWITCHBOARD_HTTP_TOKEN authenticates over HTTP (a
 * listener without a token serves loopback only, where every caller is already trusted with every tool) and the
 * process that spawned it over stdio.
 */
function eventsContext(server: Server, deps: EventsDeps, ctx: ServerContext): EventsContext {
  return {
    deps: { ...deps, actor: actorOf(server, ctx, deps.httpAuth) },
    readOnly: deps.readOnly || readOnlyCaller(ctx),
    numbering: deps.eventsErrorCodes,
    maxSubscriptions: deps.eventsMaxSubscriptions,
    minTtlMs: deps.eventsTiming?.minTtlMs,
    limits: deps.eventsLimits,
    signal: ctx.mcpReq.signal,
  };
}

/**
 * The policy's tools rules hold for event types too, each checked as a tool that reads named by its type
 * (`github.new_issue`): a rule allowing only `github_*` hides GitHub's event types unless it allows `github.*` as well.
 */
const asTool = (name: string) => ({ name, effect: 'read' as const });

/** Refuses subscribing to an event type the policy's tools rules hide from this person, as if it did not exist. */
function checkType(refusal: ToolRefusal | undefined, params: { name?: unknown }): void {
  if (refusal && typeof params.name === 'string' && refusal(asTool(params.name))) {
    throw new InputError(`"name": no event type "${params.name.slice(0, 100)}" for you; events/list shows the types you may use.`, 'name');
  }
}

/**
 * Answers the Events extension's requests on `server`, in either revision; `refusalOf` gives each person's tools rules.
 * The work behind each request is imported with it, as the runtime is: a first tools/list waits for none of it (the
 * trigger kinds' schemas, the webhook sender and its HTTP client).
 */
export function serveEvents(server: Server, needDeps: () => Promise<EventsDeps>, refusalOf: (owner: string) => Promise<ToolRefusal | undefined> = async () => undefined): void {
  server.setRequestHandler('events/list', { params: listParams }, async ({ cursor }, ctx: ServerContext) => {
    const deps = await needDeps();
    try {
      const { eventTypes } = await import('../events/types.js');
      const all = await eventTypes(deps, { person: signedInOwner(ctx.http?.authInfo), readOnly: deps.readOnly || readOnlyCaller(ctx) });
      const refusal = await refusalOf(ownerOf(ctx));
      const types = refusal ? all.filter((type) => !refusal(asTool(type.name))) : all;
      return pageOf(types, cursor, eventsErrors(deps.eventsErrorCodes));
    } catch (error) {
      throw eventsRequestError(error, deps.eventsErrorCodes);
    }
  });

  server.setRequestHandler('events/subscribe', { params: anyParams }, async (params, ctx: ServerContext) => {
    const deps = await needDeps();
    try {
      checkType(await refusalOf(ownerOf(ctx)), params);
      const { subscribe } = await import('../events/subscriptions.js');
      return { ...(await subscribe(eventsContext(server, deps, ctx), ownerOf(ctx), { ...params, clientName: clientNameOf(server, ctx) })) };
    } catch (error) {
      throw eventsRequestError(error, deps.eventsErrorCodes);
    }
  });

  server.setRequestHandler('events/poll', { params: anyParams }, async (params, ctx: ServerContext) => {
    const deps = await needDeps();
    try {
      checkType(await refusalOf(ownerOf(ctx)), params);
      const { poll } = await import('../events/poll.js');
      return { ...(await poll(eventsContext(server, deps, ctx), ownerOf(ctx), { ...params, clientName: clientNameOf(server, ctx) })) };
    } catch (error) {
      throw eventsRequestError(error, deps.eventsErrorCodes);
    }
  });

  // A stream is one long request: its notifications go on the request's own SSE stream (or stdio) until it ends.
  server.setRequestHandler('events/stream', { params: anyParams }, async (params, ctx: ServerContext) => {
    const deps = await needDeps();
    try {
      checkType(await refusalOf(ownerOf(ctx)), params);
      const { stream } = await import('../events/stream.js');
      const options = { signal: ctx.mcpReq.signal, stopping: deps.drain?.stopping, heartbeatMs: deps.eventsTiming?.heartbeatMs };
      const run = () => stream(eventsContext(server, deps, ctx), ownerOf(ctx), { ...params, clientName: clientNameOf(server, ctx) }, streamSink(ctx), options);
      // Shutdown waits for the stream as for a tool call: it ends at once on stopping, once its terminated is sent.
      return { ...(await (deps.drain ? deps.drain.run(run) : run())) };
    } catch (error) {
      throw eventsRequestError(error, deps.eventsErrorCodes);
    }
  });

  server.setRequestHandler('events/unsubscribe', { params: anyParams }, async (params, ctx: ServerContext) => {
    const deps = await needDeps();
    try {
      const { unsubscribe } = await import('../events/subscriptions.js');
      return await unsubscribe(eventsContext(server, deps, ctx), ownerOf(ctx), params);
    } catch (error) {
      throw eventsRequestError(error, deps.eventsErrorCodes);
    }
  });
}
