import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { randomUUID } from 'node:crypto';
import { AccountError, ShutdownError } from '../errors.js';
import type { Provider } from '../store/types.js';
import type { Logger } from '../log.js';
import { invalidParams, onRequest, refuseCursor, RequestError, RESOURCE_NOT_FOUND } from './requests.js';
import type { CallContext, Tool, ToolDeps } from '../tool.js';
import { toErrorResult, toMcpTool, toResult } from './tools.js';

/** One client session's MCP server, as createServer and createLazyServer build it. */
export type McpServer = Server;

export interface ServerDeps extends ToolDeps {
  tools: Tool[];
  /** Where this process serves /oauth/callback, when it does: sign-in links are offered only then. */
  signInBase?: () => string | undefined;
  logger: Logger;
  version: string;
}

const ACCOUNTS_URI = 'switchboard://accounts';
const EVENTS_URI = /^switchboard:\/\/triggers\/([\w-]+)\/events$/;
/** One per trigger is all a session needs; the bound keeps a client from growing the set without end. */
const MAX_SUBSCRIPTIONS = 1000;
export const EVENT_NOTIFICATION = 'notifications/switchboard/event';
const eventsUri = (triggerId: string) => `switchboard://triggers/${triggerId}/events`;

const INSTRUCTIONS =
  'Switchboard connects Outlook, GitHub, Vercel and a sales-intelligence API. Tools are named <provider>_<step>; ' +
  'each takes an optional "account" (id or label from accounts_list; without it the provider\'s default account is used). ' +
  'Outlook tools take "mailbox", a shared mailbox\'s address, to act on it instead of the account\'s own. ' +
  'Paged lists return next_cursor: pass it back as "cursor" (it keeps the first call\'s filters) for the next page. ' +
  'List tools take "fields" to return only those fields of each record. ' +
  '<provider>_api_call reaches any path of that provider. A result too large for the token budget comes cut, with next_cursor for the rest.';

/**
 * URL-mode elicitation: when an account needs a new sign-in and the client can open links, send it one.
 * The link starts the same sign-in as the Integrations page, with its callback on this process.
 */
async function offerSignIn(server: Server, deps: ServerDeps, error: unknown): Promise<boolean> {
  const target = error instanceof AccountError ? error.reconnect : undefined;
  const base = deps.signInBase?.();
  if (!target || !base || !deps.signIn || target.provider === 'sales') return false;
  if (!server.getClientCapabilities()?.elicitation?.url) return false;
  const provider = target.provider as Provider;
  const { url } = await deps.signIn.beginSignIn(provider, { redirectUri: `${base}/oauth/callback/${provider}`, label: target.label });
  const answer = await server.elicitInput({
    mode: 'url',
    message: `The ${provider} account "${target.label}" needs a new sign-in. Open the link to sign in again.`,
    url,
    elicitationId: randomUUID(),
  });
  return answer.action === 'accept';
}

async function callTool(
  server: Server,
  deps: ServerDeps,
  tool: Tool,
  params: CallToolRequest['params'],
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): Promise<CallToolResult> {
  const started = performance.now();
  const progressToken = params._meta?.progressToken;
  try {
    const ctx: CallContext = {
      deps,
      signal: extra.signal,
      progress: async (progress, total, message) => {
        if (progressToken === undefined) return;
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total, message } });
      },
    };
    const args = params.arguments;
    const data = deps.results ? await deps.results.call(tool, args, ctx) : await tool.call(args, ctx);
    deps.logger.debug('tool call', { tool: tool.name, ms: Math.round(performance.now() - started), ok: true });
    return toResult(data);
  } catch (error) {
    deps.logger.info('tool call failed', {
      tool: tool.name,
      ms: Math.round(performance.now() - started),
      error: (error as Error)?.name ?? 'Error',
    });
    if (!(error instanceof Error) || error.name === 'Error' || error.name === 'TypeError') {
      deps.logger.error('unexpected tool failure', { tool: tool.name, message: deps.redactor.redact(String((error as Error)?.stack ?? error)) });
    }
    const offered = await offerSignIn(server, deps, error).catch(() => false);
    return toErrorResult(error, { redactor: deps.redactor, signInOffered: offered });
  }
}

// Converting every tool's zod schemas costs about 10 ms per session; sessions of one process share the
// list (it is only serialised), keyed on the tools array so a different set of tools gets its own.
const listedFor = new WeakMap<Tool[], McpTool[]>();
function listedTools(tools: Tool[]): McpTool[] {
  let listed = listedFor.get(tools);
  if (!listed) listedFor.set(tools, (listed = tools.map(toMcpTool)));
  return listed;
}

// The SDK builds an Ajv instance for every server (tens of ms at start-up, and again for each HTTP session) to check
// answers to form elicitation, which this server does not use (it elicits by URL only); one is built on first use.
let ajv: AjvJsonSchemaValidator | undefined;
const validator: jsonSchemaValidator = { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) };

/** A server whose dependencies may still be loading: initialize and tools/list need nothing more than this. */
export interface ServerSetup {
  version: string;
  /** Exactly what tools/list returns (the build's manifest); without it, the list is converted from the tools once they are loaded. */
  listed?: McpTool[];
  /** Everything else, once loaded; each request but initialize and tools/list waits for it. */
  deps: Promise<ServerDeps>;
  /** Starts loading `deps`, when a request needs them (called again and again: only the first call counts). */
  load?(): void;
  /** Told of each tools/list request, which needs no `deps`: the client is busy with the answer for a moment. */
  onListTools?(): void;
}

/** The MCP surface for one client session. Build one per session: SDK servers cannot be shared. */
export function createServer(deps: ServerDeps): Server {
  return createLazyServer({ version: deps.version, listed: listedTools(deps.tools), deps: Promise.resolve(deps) });
}

/** Serves one client over standard input and output. */
export async function connectStdio(server: Server, stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream): Promise<void> {
  await server.connect(new StdioServerTransport(stdin as never, stdout as never));
}

/** As createServer, for a process that answers its first requests before it has loaded its tools and store. */
export function createLazyServer(setup: ServerSetup): Server {
  const server = new Server(
    { name: 'switchboard', title: 'Switchboard', version: setup.version },
    { capabilities: { tools: {}, resources: { subscribe: true } }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator },
  );
  const needDeps = () => {
    setup.load?.();
    return setup.deps;
  };
  const listTools = async () => setup.listed ?? listedTools((await needDeps()).tools);
  let byName: Map<string, Tool> | undefined;

  onRequest(server, ListToolsRequestSchema, async (request) => {
    refuseCursor(request.params?.cursor);
    setup.onListTools?.();
    return { tools: await listTools() };
  });

  onRequest(server, CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const deps = await needDeps();
    byName ??= new Map(deps.tools.map((t) => [t.name, t]));
    const tool = byName.get(request.params.name);
    if (!tool) {
      const listed = await listTools();
      throw invalidParams(`Unknown tool "${request.params.name}"; tools/list shows the ${listed.length} tools.`);
    }
    if (deps.drain?.stopping.aborted) {
      return toErrorResult(new ShutdownError());
    }
    const call = () => callTool(server, deps, tool, request.params, extra);
    // Every result leaves through the redactor, success or not: a provider may echo the credential in any body.
    return deps.redactor.redactDeep(await (deps.drain ? deps.drain.run(call) : call()));
  });

  onRequest(server, ListResourcesRequestSchema, async (request) => {
    refuseCursor(request.params?.cursor);
    const deps = await needDeps();
    const triggers = deps.triggers ? await deps.store.triggers.list() : [];
    return {
      resources: [
        { uri: ACCOUNTS_URI, name: 'accounts', title: 'Connected accounts', description: 'Connected provider accounts (no secrets)', mimeType: 'application/json' },
        ...triggers.map((t) => ({ uri: eventsUri(t.id), name: `${t.id}-events`, title: `Events of ${t.kind} ${t.id}`, mimeType: 'application/json' })),
      ],
    };
  });

  onRequest(server, ListResourceTemplatesRequestSchema, async (request) => {
    refuseCursor(request.params?.cursor);
    if (!(await needDeps()).triggers) return { resourceTemplates: [] };
    return {
      resourceTemplates: [
        {
          uriTemplate: 'switchboard://triggers/{id}/events',
          name: 'trigger-events',
          title: 'Latest events of a trigger',
          description: 'The 20 newest events of a trigger; subscribe to be told of each new one',
          mimeType: 'application/json',
        },
      ],
    };
  });

  /** The trigger an events URI names, when it exists; other URIs are not this server's. */
  const triggerOf = async (deps: ServerDeps, uri: string) => {
    const triggerId = EVENTS_URI.exec(uri)?.[1];
    return triggerId && deps.triggers && (await deps.store.triggers.get(triggerId)) ? triggerId : undefined;
  };
  const notFound = (uri: string) =>
    new RequestError(RESOURCE_NOT_FOUND, `Resource ${uri.slice(0, 200)} not found; resources/list shows what exists.`, { uri });

  onRequest(server, ReadResourceRequestSchema, async (request) => {
    const deps = await needDeps();
    const { uri } = request.params;
    if (uri === ACCOUNTS_URI) {
      // Loaded here, not at start-up: the tool modules are not needed to answer initialize and tools/list.
      const { describeAccount } = await import('../accounts/tools.js');
      const accounts = (await deps.store.accounts.list()).map(describeAccount);
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ accounts }) }] };
    }
    const triggerId = await triggerOf(deps, uri);
    if (!triggerId) throw notFound(uri);
    const events = await deps.store.events.latest(triggerId, 20);
    const { eventJson } = await import('../triggers/forward.js');
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ events: events.map(eventJson) }) }] };
  });

  const subscriptions = new Set<string>();
  onRequest(server, SubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    if (!EVENTS_URI.test(uri)) {
      throw invalidParams(`"uri" ${JSON.stringify(uri.slice(0, 200))} cannot be subscribed to: only switchboard://triggers/{id}/events (ids from triggers_list) can.`);
    }
    if (!(await triggerOf(await needDeps(), uri))) throw notFound(uri);
    if (!subscriptions.has(uri) && subscriptions.size >= MAX_SUBSCRIPTIONS) {
      throw invalidParams(`A session may hold ${MAX_SUBSCRIPTIONS} subscriptions; unsubscribe from one before subscribing to ${uri}.`);
    }
    subscriptions.add(uri);
    return {};
  });
  onRequest(server, UnsubscribeRequestSchema, (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });

  let closed = false;
  let unsubscribe: (() => void) | undefined;
  const previous = server.onclose;
  server.onclose = () => {
    closed = true;
    unsubscribe?.();
    previous?.();
  };
  setup.deps.then(
    (deps) => {
      if (closed || !deps.triggers) return;
      unsubscribe = deps.triggers.log.subscribe((events) => {
        for (const e of events) {
          const params = { eventId: String(e.id), triggerId: e.triggerId, kind: e.kind, occurredAt: e.occurredAt, summary: e.summary };
          server.notification({ method: EVENT_NOTIFICATION, params }).catch(() => undefined);
          const uri = eventsUri(e.triggerId);
          if (subscriptions.has(uri)) server.sendResourceUpdated({ uri }).catch(() => undefined);
        }
      });
    },
    // Whoever started the loading reports its failure.
    () => undefined,
  );

  return server;
}
