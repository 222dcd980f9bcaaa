import {
  ProtocolErrorCode,
  type Server,
  type CallToolRequest,
  type CallToolResult,
  type InputRequiredResult,
  type JSONRPCErrorResponse,
  type JSONRPCNotification,
  type jsonSchemaValidator,
  type ServerContext,
  type Tool as McpTool,
} from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { InputError, ShutdownError, ToolRefusedError } from '../errors.js';
import { personOf } from '../governance/person.js';
import { effectOfAnnotations, personToolsCache } from '../governance/tool-access.js';
import { READ_SCOPE } from '../team/scopes.js';
import { ownEvents, type Approval, type TriggerEvent } from '../store/types.js';
import type { EventsErrorNumbering } from '../config.js';
import type { EventsLimits } from '../events/limits.js';
import type { Logger } from '../log.js';
import { capabilitiesOf, SIGN_IN_INPUT, signInRequest } from './sign-in-request.js';
import { CheckedServer, invalidParams, refuseCursor, RequestError } from './requests.js';
import type { CallContext, CallFacts, Tool, ToolDeps } from '../tool.js';
import { actorOf } from './actor.js';
import { toolCallEntry } from '../governance/tool-call.js';
import { toErrorResult, toMcpTool, toResult } from './tools.js';
import { forOwner } from '../owner.js';
import { isEventsUri, listResources, MAX_SUBSCRIPTIONS, readResource, resourceTemplates, triggerOfUri } from '../resources.js';
import { ownerOf, readOnlyCaller } from './auth.js';
import { EVENTS_CAPABILITIES, serveEvents } from './events.js';
import { eventNote, eventUpdate, noticesFor, type EventNote } from './event-notes.js';
import { framedMessages } from './event-store.js';
import { notifyDirectly } from './streams.js';
import { approvalGate } from './approval.js';
import { createTaskResult, declaresTasks, serveTasks, TASKS_EXTENSION } from './tasks.js';

export type { Server as McpServer } from '@modelcontextprotocol/server';
export { EVENT_META_KEY, EVENT_NOTIFICATION, eventNote, eventUpdate, type EventNote } from './event-notes.js';

/** The protocol family a server instance speaks: 2025-11-25 and before (`legacy`, initialize and sessions) or 2026-07-28 (`modern`). */
export type Era = 'legacy' | 'modern';

export interface ServerDeps extends ToolDeps {
  tools: Tool[];
  /** Where this process serves /oauth/callback, when it does: sign-in links are offered only then. */
  signInBase?: () => string | undefined;
  logger: Logger;
  version: string;
  /** SWITCHBOARD_EVENTS_ERROR_CODES: the numbering the Events extension's errors are sent in (sketch unless set). */
  eventsErrorCodes?: EventsErrorNumbering;
  /** SWITCHBOARD_EVENTS_MAX_SUBSCRIPTIONS: MCP Events subscriptions one person may hold (100 unless set). */
  eventsMaxSubscriptions?: number;
  /** The per-person poll and delivery rates of MCP Events in this process. */
  eventsLimits?: EventsLimits;
  /** How a caller over HTTP without team sign-in is authenticated: SWITCHBOARD_HTTP_TOKEN, or nothing (loopback). */
  httpAuth?: 'static-token' | 'none';
  /** MCP Events timing; tests shorten the TTL floor and the stream heartbeat. */
  eventsTiming?: { minTtlMs?: number; heartbeatMs?: number };
}

const INSTRUCTIONS =
  'Switchboard connects Outlook, GitHub, Vercel and a sales-intelligence API. Tools are named <provider>_<step>; ' +
  'each takes an optional "account" (id or label from accounts_list; without it the provider\'s default account is used). ' +
  'Outlook tools take "mailbox", a shared mailbox\'s address, to act on it instead of the account\'s own. ' +
  'Paged lists return next_cursor: pass it back as "cursor" (it keeps the first call\'s filters) for the next page. ' +
  'List tools take "fields" to return only those fields of each record. ' +
  '<provider>_api_call reaches any path of that provider. A result too large for the token budget comes cut, with next_cursor for the rest.';

/** Runs one call; `approvedId` when an approval given to its task (tasks/get) was taken for it: the gate is then passed. */
async function callTool(server: Server, deps: ServerDeps, tool: Tool, params: CallToolRequest['params'], ctx: ServerContext, approvedId?: string): Promise<CallToolResult | InputRequiredResult> {
  const started = performance.now();
  const progressToken = params._meta?.progressToken;
  const offered = ctx.mcpReq.inputResponses?.[SIGN_IN_INPUT] !== undefined;
  const facts: CallFacts = {};
  const audit = (outcome: 'ok' | 'error', error?: unknown) =>
    void deps.audit?.record(toolCallEntry(deps, tool, params.arguments, facts, { outcome, error, durationMs: performance.now() - started }));
  // The policy decides before anything reaches a provider: run, ask the caller, wait for an approver, or refuse.
  // tools_call is held by the tool it runs (gateNested), not by itself.
  if (approvedId) facts.approvalId = approvedId;
  else if (deps.policy && tool.name !== DISCOVERY_CALL) {
    const args = params.arguments ?? {};
    const asTask = declaresTasks(ctx) ? (approval: Approval) => createTaskResult(deps, approval, { tool: tool.name, args }) : undefined;
    const gate = await approvalGate(deps, tool, args, ctx, capabilitiesOf(server, ctx), asTask);
    // A task is a result of the tasks extension, which the SDK passes through as it is (resultType "task").
    if ('answer' in gate) return gate.answer as CallToolResult;
    facts.approvalId = gate.approvalId;
  }
  try {
    const call: CallContext = {
      deps,
      facts,
      signal: ctx.mcpReq.signal,
      progress: async (progress, total, message) => {
        if (progressToken === undefined) return;
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total, message } });
      },
    };
    const args = params.arguments;
    const data = deps.results ? await deps.results.call(tool, args, call) : await tool.call(args, call);
    deps.logger.debug('tool call', { tool: tool.name, ms: Math.round(performance.now() - started), ok: true });
    audit('ok');
    // Every result leaves through the redactor: a provider may echo the credential in any body. The data is redacted
    // once, and the text written from it.
    return toResult(deps.redactor.redactDeep(data));
  } catch (error) {
    deps.logger.info('tool call failed', { tool: tool.name, ms: Math.round(performance.now() - started), error: (error as Error)?.name ?? 'Error' });
    audit('error', error);
    if (!(error instanceof Error) || error.name === 'Error' || error.name === 'TypeError') {
      deps.logger.error('unexpected tool failure', { tool: tool.name, message: deps.redactor.redact(String((error as Error)?.stack ?? error)) });
    }
    // The link is offered once per call: a call run again after it fails with the error, saying the link was offered.
    const request = offered || approvedId ? undefined : await signInRequest(server, deps, ctx, error).catch(() => undefined);
    return deps.redactor.redactDeep(request ?? toErrorResult(error, { redactor: deps.redactor, signInOffered: offered }));
  }
}

// Converting every tool's zod schemas costs about 10 ms; the servers of one process share the list (it is only
// serialised), keyed on the tools array so a different set of tools gets its own.
const listedFor = new WeakMap<Tool[], McpTool[]>();
function listedTools(tools: Tool[]): McpTool[] {
  let listed = listedFor.get(tools);
  if (!listed) listedFor.set(tools, (listed = tools.map(toMcpTool)));
  return listed;
}

// The SDK would build an Ajv instance for every server (tens of ms, and a 2026 request builds a server each time) to
// check answers to form elicitation, which this server does not use (it asks for links only); one is built on first use.
let ajv: AjvJsonSchemaValidator | undefined;
const validator: jsonSchemaValidator = { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) };

/**
 * How long a 2026 client may keep a list (the revision's caching hints): the tools and the resource templates are
 * fixed for the life of the process; the resource list changes with every trigger, so it is not kept.
 */
const CACHE_HINTS = {
  'tools/list': { ttlMs: 5 * 60_000, cacheScope: 'private' },
  'resources/templates/list': { ttlMs: 5 * 60_000, cacheScope: 'private' },
  'server/discover': { ttlMs: 5 * 60_000, cacheScope: 'private' },
} as const;

/** A server whose dependencies may still be loading: tools/list needs nothing more than this. */
export interface ServerSetup {
  version: string;
  /** Exactly what tools/list returns (the build's manifest); without it, the list is converted from the tools once they are loaded. */
  listed?: McpTool[];
  /** Everything else, once loaded; each request but initialize, discovery and tools/list waits for it. */
  deps: Promise<ServerDeps>;
  /** Starts loading `deps`, when a request needs them (called again and again: only the first call counts). */
  load?(): void;
  /** A policy may narrow each person's tools: tools/list then waits for `deps`, which hold it. */
  governed?: boolean;
}

/** The MCP surface of one process, for either revision. */
export interface Surface {
  /**
   * A server: one per 2025 session or stdio connection, one per 2026 HTTP request. With `events`, it tells its client
   * of each new event itself: a 2025 client by the vendor notification and, when subscribed, a resource update; a
   * 2026 client over stdio by a resource update on its listen stream. A 2026 request over HTTP lasts one exchange,
   * so the listener publishes the events (watchEvents) to the listen streams instead.
   */
  create(era: Era, options?: { events?: boolean; owner?: string }): Server;
  /** Calls `tell` with each new event until the returned function is called. */
  watchEvents(tell: (note: EventNote) => unknown): () => void;
  /**
   * The error that refuses a 2026 `subscriptions/listen` filter, as 2025 `resources/subscribe` refuses the same URIs
   * (the SDK narrows a filter only by capability); undefined when it may be served.
   */
  refuseListen(filter: unknown, owner: string): Promise<RequestError | undefined>;
  /**
   * Whether a read-only token may call the tool of this name: it changes nothing (annotated readOnlyHint), or it is
   * tools_call, which then runs only tools that change nothing. Undefined for an unknown name.
   */
  readOnlyTool(name: string): Promise<boolean | undefined>;
}

/** The extensions offered: MCP Events in both revisions; tasks (for calls waiting on an approver) in 2026-07-28 only. */
const capabilitiesFor = (era: Era) => (era === 'modern' ? { ...EVENTS_CAPABILITIES, extensions: { ...EVENTS_CAPABILITIES.extensions, [TASKS_EXTENSION]: {} } } : EVENTS_CAPABILITIES);

/** tools_call (--tool-mode discover) reaches every tool; for a read-only caller it runs those that change nothing only. */
const DISCOVERY_CALL = 'tools_call';
const isReadOnly = (tool: McpTool) => tool.annotations?.readOnlyHint === true || tool.name === DISCOVERY_CALL;

export function createSurface(setup: ServerSetup): Surface {
  const needDeps = () => {
    setup.load?.();
    return setup.deps;
  };
  const listTools = async () => setup.listed ?? listedTools((await needDeps()).tools);
  const readOnlyTool = async (name: string) => {
    const tool = (await listTools()).find((t) => t.name === name);
    return tool && isReadOnly(tool);
  };
  let loaded: ServerDeps | undefined;
  setup.deps.then((deps) => (loaded = deps), () => undefined);
  const personTools = personToolsCache();
  /** The policy's tools rules for this person; undefined when none apply (or no policy is in force). */
  const toolsOf = async (owner: string) => {
    const deps = loaded ?? (setup.governed ? await needDeps() : undefined);
    if (!deps?.policy) return undefined;
    return personTools(await deps.policy.current(), owner, () => personOf(deps.store, owner));
  };
  const listFor = async (owner: string) => {
    const tools = await listTools();
    const access = await toolsOf(owner);
    return access ? access.listed(tools, (t) => ({ name: t.name, effect: effectOfAnnotations(t.annotations) })) : tools;
  };
  let byName: Map<string, Tool> | undefined;
  // The owner's view of the store is made when the call first uses it, not here: the deps are not spread after forOwner.
  const toolNamed = async (name: string, owner: string, actor?: (base: ServerDeps) => ServerDeps['actor']) => {
    const access = await toolsOf(owner);
    const base = await needDeps();
    const deps = forOwner({ ...base, ...(access && { refuseTool: access.refusal }), ...(actor && { actor: actor(base) }) }, owner);
    byName ??= new Map(deps.tools.map((t) => [t.name, t]));
    const tool = byName.get(name);
    if (!tool) throw invalidParams(`Unknown tool "${name}"; tools/list shows the ${(await listFor(owner)).length} tools.`);
    return { deps, tool };
  };
  // -32602 in both revisions: 2026-07-28's code for an unknown resource, which the SDK also sends 2025 clients (for -32002).
  const notFound = (uri: string) => new RequestError(ProtocolErrorCode.InvalidParams, `Resource ${uri.slice(0, 200)} not found; resources/list shows what exists.`, { uri });

  /** Throws the error that refuses a subscription to `uri`: only the events URI of an existing trigger of the owner's can be subscribed to. */
  const checkSubscribable = async (uri: string, owner: string) => {
    if (!isEventsUri(uri)) {
      throw invalidParams(`"uri" ${JSON.stringify(uri.slice(0, 200))} cannot be subscribed to: only switchboard://triggers/{id}/events (ids from triggers_list) can.`);
    }
    if (!(await triggerOfUri(forOwner(await needDeps(), owner), uri))) throw notFound(uri);
  };

  const refuseListen = async (filter: unknown, owner: string): Promise<RequestError | undefined> => {
    const uris = (filter as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions;
    if (!Array.isArray(uris)) return undefined;
    if (uris.length > MAX_SUBSCRIPTIONS) return invalidParams(`"resourceSubscriptions" names ${uris.length} URIs; a listen stream may hold ${MAX_SUBSCRIPTIONS}.`);
    for (const uri of uris) {
      if (typeof uri !== 'string') continue;
      const refusal = await checkSubscribable(uri, owner).then(
        () => undefined,
        (error: RequestError) => error,
      );
      if (refusal) return refusal;
    }
    return undefined;
  };

  /** Calls `listener` with each batch of new events (of `owner`'s triggers only, when given) until the returned function is called. */
  const onEvents = (listener: (events: TriggerEvent[]) => void, owner?: string) => {
    let stopped = false;
    let unsubscribe: (() => void) | undefined;
    setup.deps.then(
      (deps) => {
        if (stopped || !deps.triggers) return;
        unsubscribe = deps.triggers.log.subscribe(owner === undefined ? listener : ownEvents(deps.store, owner, (events) => !stopped && listener(events)));
      },
      // Whoever started the loading reports its failure.
      () => undefined,
    );
    return () => {
      stopped = true;
      unsubscribe?.();
    };
  };
  const watchEvents = (tell: (note: EventNote) => unknown) => onEvents((events) => events.forEach((e) => tell(eventNote(e))));

  const create = (era: Era, options: { events?: boolean; owner?: string } = {}) => {
    const server = new CheckedServer(
      { name: 'switchboard', title: 'Switchboard', version: setup.version },
      { capabilities: { tools: {}, resources: { subscribe: true }, ...capabilitiesFor(era) }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator, cacheHints: CACHE_HINTS },
    );

    server.setRequestHandler('tools/list', async ({ params }, ctx) => {
      refuseCursor(params?.cursor);
      const tools = await listFor(ownerOf(ctx));
      return { tools: readOnlyCaller(ctx) ? tools.filter(isReadOnly) : tools };
    });

    const callNamed = async (params: CallToolRequest['params'], ctx: ServerContext, approvedId?: string) => {
      let named: Awaited<ReturnType<typeof toolNamed>>;
      try {
        named = await toolNamed(params.name, ownerOf(ctx), (base) => actorOf(server, ctx, base.httpAuth));
      } catch (error) {
        // A policy that cannot be read (the store is down) refuses the call as the tool itself would have failed.
        if (error instanceof RequestError) throw error;
        return toErrorResult(error);
      }
      const { deps, tool } = named;
      const readOnly = readOnlyCaller(ctx);
      if (readOnly && !(await readOnlyTool(params.name))) {
        const refusal = new InputError(`${params.name} changes something, and this token has scope ${READ_SCOPE} only: sign in again granting scope switchboard.`, 'scope');
        void deps.audit?.record(toolCallEntry(deps, tool, params.arguments, {}, { outcome: 'refused', error: refusal }));
        return toErrorResult(refusal);
      }
      const refusal = deps.refuseTool?.(tool);
      if (refusal) {
        await deps.audit?.record({ action: 'tool.call', actor: deps.actor ?? { owner: deps.owner, auth: 'none' }, tool: tool.name, effect: tool.effect, outcome: 'refused', errorClass: 'ToolRefusedError' });
        return toErrorResult(new ToolRefusedError(refusal, 'name'));
      }
      if (deps.drain?.stopping.aborted) return toErrorResult(new ShutdownError());
      const call = () => callTool(server, readOnly ? { ...deps, readOnly } : deps, tool, params, ctx, approvedId);
      return deps.drain ? deps.drain.run(call) : call();
    };
    server.setRequestHandler('tools/call', ({ params }, ctx) => callNamed(params, ctx));
    if (era === 'modern') {
      const actor = (ctx: ServerContext, deps: ToolDeps) => actorOf(server, ctx, (deps as ServerDeps).httpAuth);
      serveTasks(server, needDeps, actor, async (ctx, name, args, approvalId) => (await callNamed({ name, arguments: args }, ctx, approvalId)) as CallToolResult);
    }

    server.setRequestHandler('resources/list', async ({ params }, ctx) => {
      refuseCursor(params?.cursor);
      return { resources: await listResources(forOwner(await needDeps(), ownerOf(ctx))) };
    });

    server.setRequestHandler('resources/templates/list', async ({ params }) => {
      refuseCursor(params?.cursor);
      return { resourceTemplates: resourceTemplates(await needDeps()) };
    });

    server.setRequestHandler('resources/read', async ({ params: { uri } }, ctx) => {
      const text = await readResource(forOwner(await needDeps(), ownerOf(ctx)), uri);
      if (text === undefined) throw notFound(uri);
      return { contents: [{ uri, mimeType: 'application/json', text }] };
    });

    serveEvents(server, needDeps, async (owner) => (await toolsOf(owner))?.refusal);

    const subscriptions = new Set<string>();
    if (era === 'legacy') {
      server.setRequestHandler('resources/subscribe', async ({ params: { uri } }, ctx) => {
        await checkSubscribable(uri, ownerOf(ctx));
        if (!subscriptions.has(uri) && subscriptions.size >= MAX_SUBSCRIPTIONS) {
          throw invalidParams(`A session may hold ${MAX_SUBSCRIPTIONS} subscriptions; unsubscribe from one before subscribing to ${uri}.`);
        }
        subscriptions.add(uri);
        return {};
      });
      server.setRequestHandler('resources/unsubscribe', ({ params: { uri } }) => {
        subscriptions.delete(uri);
        return {};
      });
    }

    if (options.events) {
      // A 2025 session's notices go to its transport as they are: they need nothing of the protocol layer but the
      // capability this server declares, and the layer would copy each for every session.
      const send = (message: JSONRPCNotification) => server.transport?.send(message).catch(() => undefined);
      const stop =
        era === 'modern'
          ? watchEvents((note) => server.sendResourceUpdated(eventUpdate(note)).catch(() => undefined))
          : onEvents((events) => {
              const batch = noticesFor(events, subscriptions);
              if (!notifyDirectly(server.transport, batch)) for (const [, message] of framedMessages(batch.sse)) send(message as JSONRPCNotification);
            }, options.owner);
      const previous = server.onclose;
      server.onclose = () => {
        stop();
        previous?.();
      };
    }
    return server;
  };
  return { create, watchEvents, refuseListen, readOnlyTool };
}

/** The surface over loaded dependencies: what HTTP serving and tests use. */
export function surfaceOf(deps: ServerDeps): Surface {
  return createSurface({ version: deps.version, listed: listedTools(deps.tools), deps: Promise.resolve(deps) });
}

/** A 2025 server for one client, its events told to it: what tests connect a client to directly. */
export function createServer(deps: ServerDeps): Server {
  return surfaceOf(deps).create('legacy', { events: true });
}

/** The answer that refuses a 2026 listen request whose filter names what cannot be subscribed to; undefined for any other message. */
export async function refusedListen(surface: Surface, message: unknown, owner: string): Promise<JSONRPCErrorResponse | undefined> {
  const request = message as { method?: unknown; id?: unknown; params?: { notifications?: unknown } } | null;
  if (request?.method !== 'subscriptions/listen' || (typeof request.id !== 'string' && typeof request.id !== 'number')) return undefined;
  const error = await surface.refuseListen(request.params?.notifications, owner);
  if (!error) return undefined;
  return { jsonrpc: '2.0', id: request.id, error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } };
}
