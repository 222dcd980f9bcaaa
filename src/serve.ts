import type { Config } from './config.js';
import { InputError } from './errors.js';
import { isLoopbackHost } from './http/url-guard.js';
import { createLogger } from './log.js';
import { createSurface, type ServerDeps } from './mcp/server.js';
import { serveStdio } from './mcp/stdio.js';
import { Redactor } from './redact.js';
import type { Runtime } from './runtime.js';
import { loadSandbox } from './sandbox/load.js';
import { manifestTools, readToolManifest } from './mcp/tool-manifest.js';
import { VERSION } from './version.js';
import { startTelemetry } from './telemetry/start.js';

export interface ServeIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  /** How to run this CLI again, for the sandbox banner. */
  cli?: string;
  /** The store options serve was given (`--data-dir DIR`), which the commands the sandbox banner prints carry too. */
  storeArgs?: string[];
}

export interface Running {
  close(): Promise<void>;
  /** Resolves once the server has shut down (stdin closed, a signal, or close()); rejects when it could not start. */
  closed: Promise<void>;
}

/**
 * Over stdio, the runtime (tools, store, event log, runner, listener) loads as soon as a request needs it, else once
 * the client has been quiet this long after connecting or after the last answer: loading it at once would compete for
 * the CPU with the client's next request and its reading of the tool list, the moment a desktop assistant waits for.
 * Counting from the answer, not the request, matters on a busy machine: answering the first initialize can itself take
 * longer than this.
 */
const LOAD_WHEN_QUIET_MS = 100;

/**
 * `switchboard serve`: the tools, the store and the chosen transport; in sandbox mode, local stand-in providers too.
 * Over stdio, initialize and tools/list are answered from the build's tool manifest while the rest loads.
 */
export async function serve(config: Config, io: ServeIo): Promise<Running> {
  if (config.team && config.transport !== 'http') throw new InputError('--team protects MCP over HTTP: add --http.', 'team');
  // Refused before anything is opened or written.
  checkListenerExposure(config);
  if (config.sandbox && config.team) config = await (await loadSandbox()).sandboxTeamConfig(config);
  const since = new Date();
  const redactor = new Redactor();
  const logger = createLogger({ level: config.logLevel, redactor });
  const manifest = readToolManifest();
  const listed = manifest && manifestTools(manifest, config);
  const telemetry = await startTelemetry(config.telemetry ?? { otlpMetrics: false, metricsIntervalMs: 60_000, prometheus: false, serviceName: 'switchboard' }, VERSION);
  const options = { redactor, logger, version: VERSION, since, metrics: telemetry.metricsHandler };

  let resolveClosed!: () => void;
  let rejectClosed!: (error: unknown) => void;
  const closed = new Promise<void>((resolve, reject) => ((resolveClosed = resolve), (rejectClosed = reject)));

  if (config.transport === 'http') {
    const { startRuntime } = await import('./runtime.js');
    const mcp = (deps: ServerDeps) => createSurface({ version: VERSION, listed, deps: Promise.resolve(deps) });
    const runtime = await startRuntime(config, { ...options, mcp }).catch(async (error: unknown) => {
      await telemetry.shutdown();
      throw error;
    });
    const url = runtime.listener()!.url;
    const withdraw = runtime.sandbox ? await announceSandbox(runtime, config, `${url}/mcp`, `${url}/`, io) : undefined;
    logger.info('listening', { mcp: `${url}/mcp`, health: `${url}/healthz` });
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        await runtime.drain();
        withdraw?.();
        await runtime.close();
        await telemetry.shutdown();
        resolveClosed();
      })());
    return { close, closed };
  }

  // Over stdio the runtime loads in the background; the requests that need it wait for it.
  const stopping = new AbortController();
  let runtime: Promise<Runtime> | undefined;
  let handOver!: (runtime: Promise<Runtime>) => void;
  const ready = new Promise<Runtime>((resolve) => (handOver = resolve));
  const load = () => {
    clearTimeout(quiet);
    if (runtime || stopping.signal.aborted) return;
    runtime = import('./runtime.js').then(({ startRuntime }) => startRuntime(config, { ...options, signal: stopping.signal }));
    handOver(runtime);
    runtime.then(
      async (r) => {
        const page = r.listener()?.url;
        if (r.sandbox) withdraw = await announceSandbox(r, config, 'stdio', page && `${page}/`, io);
      },
      (error: unknown) => void close(error),
    );
  };
  let withdraw: (() => void) | undefined;
  let quiet: NodeJS.Timeout | undefined;
  const loadWhenQuiet = () => {
    clearTimeout(quiet);
    if (!runtime) quiet = setTimeout(load, LOAD_WHEN_QUIET_MS);
  };
  const deps = ready.then((r) => r.deps);
  // A runtime that cannot start ends serve with its message (close, above); requests waiting for it are answered with it.
  deps.catch(() => undefined);
  const surface = createSurface({ version: VERSION, listed, deps, load, governed: config.policyFile !== undefined });

  let connection: { close(): Promise<void> } | undefined;
  let closing: Promise<void> | undefined;
  const close = (failure?: unknown) =>
    (closing ??= (async () => {
      stopping.abort();
      clearTimeout(quiet);
      // Calls in flight finish and are answered before the transport closes.
      await (await runtime?.catch(() => undefined))?.drain();
      withdraw?.();
      await connection?.close().catch((e: unknown) => logger.warn('shutdown step failed', { message: String(e) }));
      const started = await runtime?.catch(() => undefined);
      await started?.close();
      await telemetry.shutdown();
      if (failure === undefined) resolveClosed();
      else rejectClosed(failure);
    })());

  const refused = (error: Error) => logger.debug('stdio message refused', { message: error.message });
  connection = serveStdio(surface, io.stdin, io.stdout, refused, loadWhenQuiet);
  loadWhenQuiet();
  io.stdin.on('end', () => void close());
  io.stdin.on('close', () => void close());
  return { close: () => close(), closed };
}

/** Prints the sandbox banner and tells other commands run with --sandbox where the stand-ins are; returns what withdraws that. */
async function announceSandbox(runtime: Runtime, config: Config, mcp: string, page: string | undefined, io: ServeIo): Promise<() => void> {
  const { endpointsOf, publishSandbox, sandboxBanner } = await loadSandbox();
  const endpoints = endpointsOf(runtime.sandbox!, mcp, page);
  const withdraw = publishSandbox(runtime.dataDir, endpoints);
  const team = config.team && { allow: config.team.allow, sandboxPeople: !!config.team.sandboxPeople };
  process.stderr.write(sandboxBanner(endpoints, { cli: io.cli ?? 'switchboard', storeArgs: io.storeArgs ?? [], team }) + '\n');
  return withdraw;
}

/** A listener beyond this machine needs SWITCHBOARD_HTTP_TOKEN, or team mode's sign-in. */
function checkListenerExposure(config: Config): void {
  const { host, token } = config.http;
  if (isLoopbackHost(host) || token || config.team) return;
  throw new InputError(
    `Refusing to listen on ${host} (--host) without SWITCHBOARD_HTTP_TOKEN: anyone who can reach it could use your accounts. ` +
      'Set SWITCHBOARD_HTTP_TOKEN to a long random value, or bind 127.0.0.1. Nothing was started or written.',
    'host',
  );
}
