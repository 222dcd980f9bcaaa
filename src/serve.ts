import { join } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Agent } from 'undici';
import { ResponseCache } from './http/client.js';
import { TokenRefresher } from './accounts/refresh.js';
import { createSignIn } from './accounts/sign-in.js';
import { accountsList } from './accounts/tools.js';
import type { Config } from './config.js';
import { connectorTools } from './connectors/index.js';
import { createLogger } from './log.js';
import { startHttpListener, type HttpListener } from './mcp/http.js';
import { discoveryTools } from './mcp/discovery.js';
import { createServer, type ServerDeps } from './mcp/server.js';
import { Redactor } from './redact.js';
import { ResultBudget } from './result-budget.js';
import type { Sandbox } from './sandbox/index.js';
import { openStore } from './store/index.js';
import type { Provider } from './store/types.js';
import type { Tool } from './tool.js';
import { EventLog } from './triggers/event-log.js';
import { TRIGGER_KINDS } from './triggers/kinds.js';
import { Runner } from './triggers/runner.js';
import { triggerTools } from './triggers/tools.js';
import { webhookRoutes } from './triggers/webhooks.js';
import { webRoutes } from './web/index.js';
import { VERSION } from './version.js';

export { VERSION };

export interface Running {
  close(): Promise<void>;
  /** Resolves once the server has shut down (stdin closed, a signal, or close()). */
  closed: Promise<void>;
}

/** The tools a server lists: connector tools for the chosen toolsets, then the platform's; read-only keeps only reads. */
export function buildTools(options: { readOnly: boolean; toolsets?: Provider[] }): Tool[] {
  const platform = [accountsList, ...triggerTools].filter((t) => !options.readOnly || t.effect === 'read');
  return [...connectorTools(options), ...platform];
}

/** `switchboard serve`: store, tools and the chosen transport; in sandbox mode, local stand-in providers too. */
export async function serve(
  config: Config,
  io: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream; /** How to run this CLI again, for the sandbox banner. */ cli?: string },
): Promise<Running> {
  const redactor = new Redactor();
  const logger = createLogger({ level: config.logLevel, redactor });
  let sandbox: Sandbox | undefined;
  let baseUrls = config.baseUrls;
  const dataDir = config.sandbox ? join(config.dataDir, 'sandbox') : config.dataDir;
  if (config.sandbox) {
    // Loaded only when asked for: the stand-in providers are most of the code.
    const { startSandbox } = await import('./sandbox/index.js');
    sandbox = await startSandbox();
    baseUrls = sandbox.baseUrls;
  }
  const store = await openStore({ dataDir, secretKey: config.secretKey, redactor });
  if (sandbox) await (await import('./sandbox/runtime.js')).seedSandboxAccounts(store);

  const dispatcher = new Agent({ connect: { timeout: 10_000 }, keepAliveTimeout: 30_000 });
  // In sandbox mode the sandbox's authorization servers and client ids replace the configured ones.
  const oauth = sandbox ? sandbox.oauthSettings : config.oauth;
  const log = new EventLog(store.events);
  await log.start();
  let runner: Runner | undefined;
  const deps: ServerDeps = {
    store,
    triggers: { kinds: TRIGGER_KINDS, log, publicUrl: config.http.publicUrl, pollSoon: (id) => runner?.pollSoon(id) },
    baseUrls,
    redactor,
    readOnly: config.readOnly,
    dispatcher,
    cache: new ResponseCache(),
    salesCacheDays: config.salesCacheDays,
    results: new ResultBudget({ maxTokens: config.maxResultTokens }),
    signIn: createSignIn({ store, baseUrls, oauth, dispatcher, redactor }),
    tokens: new TokenRefresher({ store, oauth, redactor, logger }),
    // The process serving HTTP also serves the sign-in callback (the lease holder, in stdio mode).
    signInBase: () => (listener ? (config.http.publicUrl ?? listener.url) : undefined),
    logger,
    version: VERSION,
    tools: config.toolMode === 'discover' ? discoveryTools(buildTools(config)) : buildTools(config),
  };

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  const closers: Array<() => Promise<unknown>> = [];
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      for (const c of closers.reverse()) await c().catch((e) => logger.warn('shutdown step failed', { message: String(e) }));
      await runner?.stop();
      log.stop();
      await dispatcher.close().catch(() => undefined);
      await store.close();
      await sandbox?.close();
      resolveClosed();
    })());

  let listener: HttpListener | undefined;
  const listenerOptions = {
    routes: [...webhookRoutes({ store, kinds: TRIGGER_KINDS, log, logger }), ...webRoutes({ deps, config: { ...config, dataDir, baseUrls, oauth }, logger })],
    host: config.http.host,
    port: config.http.port,
    publicUrl: config.http.publicUrl,
    token: config.http.token,
    logger,
    version: VERSION,
  };
  if (config.transport === 'stdio') {
    const server = createServer(deps);
    const transport = new StdioServerTransport(io.stdin as never, io.stdout as never);
    await server.connect(transport);
    closers.push(() => server.close());
    io.stdin.on('end', () => void close());
    io.stdin.on('close', () => void close());
    runner = new Runner({
      store,
      kinds: TRIGGER_KINDS,
      log,
      deps,
      logger,
      // The lease holder also serves webhooks and the Integrations page; a busy port is not fatal here.
      onLeadership: async (leading) => {
        if (leading && !listener) {
          listener = await startHttpListener({ ...listenerOptions, mcp: undefined }).catch((error: Error) => {
            logger.warn('HTTP listener not started', { message: error.message });
            return undefined;
          });
        } else if (!leading && listener) {
          await listener.close();
          listener = undefined;
        }
      },
    });
    closers.push(async () => {
      await runner?.stop();
      await listener?.close();
    });
  } else {
    const http = await startHttpListener({ ...listenerOptions, mcp: () => createServer(deps) });
    listener = http;
    closers.push(() => http.close());
    runner = new Runner({ store, kinds: TRIGGER_KINDS, log, deps, logger });
    closers.push(() => runner!.stop());
    if (sandbox) closers.push(await announceSandbox(sandbox, dataDir, `${http.url}/mcp`, `${http.url}/`, io.cli));
    logger.info('listening', { mcp: `${http.url}/mcp`, health: `${http.url}/healthz` });
  }
  await runner!.start();
  if (sandbox && config.transport === 'stdio') closers.push(await announceSandbox(sandbox, dataDir, 'stdio', listener ? `${listener.url}/` : undefined, io.cli));
  return { close, closed };
}

/** Prints the sandbox banner and tells other commands run with --sandbox where the stand-ins are; returns what withdraws that. */
async function announceSandbox(sandbox: Sandbox, dataDir: string, mcp: string, page: string | undefined, cli = 'switchboard'): Promise<() => Promise<void>> {
  const { endpointsOf, publishSandbox } = await import('./sandbox/runtime.js');
  const { sandboxBanner } = await import('./sandbox/banner.js');
  const endpoints = endpointsOf(sandbox, mcp, page);
  const withdraw = publishSandbox(dataDir, endpoints);
  process.stderr.write(sandboxBanner(endpoints, cli) + '\n');
  return async () => withdraw();
}
