import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { toErrorResult } from '../errors.js';
import type { Logger } from '../log.js';
import { toMcpTool, toResult, type Tool, type ToolDeps } from '../tool.js';
import { eventJson } from '../triggers/forward.js';

export interface ServerDeps extends ToolDeps {
  tools: Tool[];
  logger: Logger;
  version: string;
}

const ACCOUNTS_URI = 'switchboard://accounts';
const EVENTS_URI = /^switchboard:\/\/triggers\/([\w-]+)\/events$/;
export const EVENT_NOTIFICATION = 'notifications/switchboard/event';
const eventsUri = (triggerId: string) => `switchboard://triggers/${triggerId}/events`;

const INSTRUCTIONS =
  'Switchboard connects Outlook, GitHub, Vercel and a sales-intelligence API. Tools are named <provider>_<step>; ' +
  'each takes an optional "account" (id or label from accounts_list). <provider>_api_call reaches any path of that provider.';

/** The MCP surface for one client session. Build one per session: SDK servers cannot be shared. */
export function createServer(deps: ServerDeps): Server {
  const server = new Server(
    { name: 'switchboard', title: 'Switchboard', version: deps.version },
    { capabilities: { tools: {}, resources: { subscribe: true } }, instructions: INSTRUCTIONS },
  );
  const byName = new Map(deps.tools.map((t) => [t.name, t]));
  const listed: McpTool[] = deps.tools.map(toMcpTool);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${request.params.name}"; tools/list shows the ${listed.length} tools.`);
    }
    const started = performance.now();
    const progressToken = request.params._meta?.progressToken;
    try {
      const data = await tool.call(request.params.arguments, {
        deps,
        signal: extra.signal,
        progress: async (progress, total, message) => {
          if (progressToken === undefined) return;
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total, message } });
        },
      });
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
      return toErrorResult(error, deps.redactor);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const triggers = deps.triggers ? await deps.store.triggers.list() : [];
    return {
      resources: [
        { uri: ACCOUNTS_URI, name: 'accounts', title: 'Connected accounts', description: 'Connected provider accounts (no secrets)', mimeType: 'application/json' },
        ...triggers.map((t) => ({ uri: eventsUri(t.id), name: `${t.id}-events`, title: `Events of ${t.kind} ${t.id}`, mimeType: 'application/json' })),
      ],
    };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: deps.triggers
      ? [
          {
            uriTemplate: 'switchboard://triggers/{id}/events',
            name: 'trigger-events',
            title: 'Latest events of a trigger',
            description: 'The 20 newest events of a trigger; subscribe to be told of each new one',
            mimeType: 'application/json',
          },
        ]
      : [],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    if (uri === ACCOUNTS_URI) {
      const accounts = await deps.store.accounts.list();
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ accounts }) }] };
    }
    const triggerId = EVENTS_URI.exec(uri)?.[1];
    if (triggerId && deps.triggers && (await deps.store.triggers.get(triggerId))) {
      const events = await deps.store.events.latest(triggerId, 20);
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ events: events.map(eventJson) }) }] };
    }
    throw new McpError(ErrorCode.InvalidParams, `Resource ${uri} not found; resources/list shows what exists.`);
  });

  const subscriptions = new Set<string>();
  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.delete(request.params.uri);
    return {};
  });

  if (deps.triggers) {
    const unsubscribe = deps.triggers.log.subscribe((events) => {
      for (const e of events) {
        const params = { eventId: String(e.id), triggerId: e.triggerId, kind: e.kind, occurredAt: e.occurredAt, summary: e.summary };
        server.notification({ method: EVENT_NOTIFICATION, params }).catch(() => undefined);
        const uri = eventsUri(e.triggerId);
        if (subscriptions.has(uri)) server.sendResourceUpdated({ uri }).catch(() => undefined);
      }
    });
    const previous = server.onclose;
    server.onclose = () => {
      unsubscribe();
      previous?.();
    };
  }

  return server;
}
