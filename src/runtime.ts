import { join } from 'node:path';
import { Agent } from 'undici';
import { composeDeps } from './compose.js';
import { flushAudit, pruneAuditTrail } from './governance/audit-trail.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import { startListener, type Listener } from './http/listener.js';
import { startHttpListener } from './mcp/http.js';
import type { ServerDeps, Surface } from './mcp/server.js';
import type { Redactor } from './redact.js';
import { loadSandbox, type Sandbox } from './sandbox/load.js';
import { openStore } from './store/index.js';
import { EventLog } from './triggers/event-log.js';
import { TRIGGER_KINDS } from './triggers/kinds.js';
import { Runner } from './triggers/runner.js';
import { endSubscriptions } from './events/end.js';
import { subscriptionWork } from './events/subscription-work.js';
import { webhookRoutes } from './triggers/webhooks.js';
import { webRoutes } from './web/index.js';
import { Drain } from './drain.js';
import { keepLease, LISTENER_LEASE, type KeptLease } from './lease.js';
import { storeCheck, type Readiness, type ReadinessCheck } from './http/readiness.js';
import type { Store } from './store/types.js';
import { metricsOnMainListener, metricsRoute, startMetricsListener, type MetricsHandler } from './http/metrics-route.js';

/** Everything `serve` runs besides its stdio transport: sandbox, store, tools, event log, runner and HTTP listener. */
export interface Runtime {
  deps: ServerDeps;
  sandbox?: Sandbox;
  /** The store's directory: the sandbox's own in sandbox mode. */
  dataDir: string;
  /** The HTTP listener while this process runs one: always with --http, on the listener lease holder over stdio. */
  listener(): Listener | undefined;
  /** Stops taking tool calls, ends long polls, and waits for the calls in flight (at most the grace period). */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  redactor: Redactor;
  logger: Logger;
  version: string;
  /** With --http: the MCP server of each new session. Without it, only the listener lease holder listens (webhooks, pages). */
  mcp?: (deps: ServerDeps) => Surface;
  /** Aborted when serve shuts down while the runtime is still starting: it then stops and closes what it started. */
  signal?: AbortSignal;
  /** When serve started: the events received since then reach its clients, even those received while this loaded. */
  since?: Date;
  /** Prometheus text of the metrics, when SWITCHBOARD_METRICS asks for /metrics. */
  metrics?: MetricsHandler;
}

/** Starts the runtime; on any failure closes whatever it had started, then throws. */
export async function startRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const { redactor, logger } = options;
  const closers: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const c of closers.splice(0).reverse()) await c().catch((e) => logger.warn('shutdown step failed', { message: String(e) }));
  };
  const checkStillWanted = () => {
    if (options.signal?.aborted) throw new Error('serve was shut down while starting');
  };

  let listener: Listener | undefined;
  const shutdown = new Drain();
  const metrics = options.metrics;
  const metricsHere = metrics && metricsOnMainListener({ ...config.http, metricsPort: config.telemetry?.metricsPort });
  try {
    if (metrics && config.telemetry?.metricsPort !== undefined) {
      const own = await startMetricsListener(metrics, config.telemetry.metricsPort, logger, options.version);
      if (own) closers.push(() => own.close());
    }
    let sandbox: Sandbox | undefined;
    let baseUrls = config.baseUrls;
    const dataDir = config.sandbox ? join(config.dataDir, 'sandbox') : config.dataDir;
    if (config.sandbox) {
      // Loaded only when asked for: the stand-in providers are most of the code.
      const { logMisses, startSandbox } = await loadSandbox();
      checkStillWanted();
      const started = await startSandbox({ onMiss: logMisses(logger) });
      closers.push(() => started.close());
      sandbox = started;
      baseUrls = started.baseUrls;
      checkStillWanted();
    }
    // The sandbox's sample accounts stay in its own SQLite store, never in a shared database.
    const store = await openStore({ dataDir, databaseUrl: config.sandbox ? undefined : config.databaseUrl, secretKey: config.secretKey, redactor });
    closers.push(() => store.close());
    // A store that fails its full check (a damaged page, another schema) is refused before anything listens: served,
    // it would answer some requests and fail others.
    const problem = await store.health.checkThoroughly();
    if (problem) throw problem;
    closers.push(watchStoreHealth(store, logger));
    if (sandbox) await (await loadSandbox()).seedSandboxAccounts(store);
    if (sandbox && config.team) await (await loadSandbox()).seedSandboxTeam(store);
    checkStillWanted();

    const dispatcher = new Agent({ connect: { timeout: 10_000 }, keepAliveTimeout: 30_000 });
    closers.push(() => dispatcher.close());
    // In sandbox mode the sandbox's authorization servers and client ids replace the configured ones.
    const oauth = sandbox ? sandbox.oauthSettings : config.oauth;
    const log = new EventLog(store.events);
    await log.start(options.since);
    closers.push(async () => log.stop());
    const deps = composeDeps(
      { ...config, oauth },
      { store, log, baseUrls, redactor, logger, version: options.version, dispatcher, pollSoon: (id) => runner.pollSoon(id) },
      {
        drain: shutdown,
        // The process serving HTTP also serves the sign-in callback (the listener lease holder, in stdio mode).
        signInBase: () => (listener ? (config.http.publicUrl ?? listener.url) : undefined),
      },
    );
    // Pushed before the servers stop, so it runs after them: the records of their last calls are written before the store closes.
    closers.push(() => flushAudit(deps.audit));
    // Team mode protects MCP over HTTP: only a process that serves it runs the authorization server.
    const team =
      config.team && options.mcp
        ? await (await import('./team/index.js')).startTeamAuth({
            ...config.team,
            publicUrl: config.http.publicUrl!,
            store,
            oauth,
            baseUrls,
            dispatcher,
            redactor,
            logger,
            allowPrivate: config.forwardAllowPrivate,
            sandbox: !!sandbox,
            onGrantRevoked: (owner: string) => endSubscriptions(deps, { owner }, 'grant_revoked', config.eventsErrorCodes),
            audit: deps.audit,
          })
        : undefined;
    const runner = new Runner({
      store,
      kinds: TRIGGER_KINDS,
      log,
      deps,
      logger,
      publicUrl: config.http.publicUrl,
      eventRetentionDays: config.eventRetentionDays,
      subscriptions: subscriptionWork({ deps, logger, rate: deps.eventsLimits?.deliveries }),
      upkeep: () => pruneAuditTrail({ store, days: config.auditRetentionDays, logger }),
    });
    let lease: KeptLease | undefined;
    const readiness = async (): Promise<Readiness> => ({
      checks: {
        store: storeCheck(await store.health.check()),
        ...(lease && { lease: leaseCheck(lease) }),
        ...(team && { issuer: await team.readiness() }),
        shutdown: shutdown.stopping.aborted ? { ok: false, reason: 'shutting down: the calls in flight finish, no new ones are taken' } : { ok: true },
      },
    });
    const listenerOptions = {
      readiness,
      storeRefusal: () => store.health.refusal(),
      routes: [
        ...(metricsHere ? [metricsRoute(metrics)] : []),
        ...(team?.routes ?? []),
        ...webhookRoutes({ store, kinds: TRIGGER_KINDS, log, logger, groupCommit: config.webhookGroupCommit, requestPoll: (id) => runner.requestPoll(id) }),
        ...webRoutes({ deps, config: { ...config, dataDir, baseUrls, oauth }, logger, sandboxCredentials: sandbox && (await loadSandbox()).sandboxCredentials() }),
      ],
      host: config.http.host,
      port: config.http.port,
      publicUrl: config.http.publicUrl,
      token: config.http.token,
      logger,
      version: options.version,
    };
    checkStillWanted();

    const mcp = options.mcp;
    if (mcp) {
      const http = await startHttpListener({ ...listenerOptions, mcp: mcp(deps), team });
      listener = http;
      closers.push(() => http.close());
    } else {
      // Over stdio several processes may share a data dir (one per assistant window) and one port: the holder of
      // the listener lease serves webhooks, the Integrations page and sign-in callbacks. Not serving is not fatal.
      lease = await keepLease(store, LISTENER_LEASE, {
        logger,
        onChange: async (held) => {
          if (held && !listener) {
            listener = await startListener(listenerOptions).catch((error: Error) => {
              logger.warn('HTTP listener not started: this process holds the listener lease, but no process serves webhooks, the Integrations page or sign-in callbacks', {
                message: error.message,
              });
              return undefined;
            });
          } else if (!held && listener) {
            await listener.close();
            listener = undefined;
          }
        },
      });
      const kept = lease;
      closers.push(() => kept.stop());
    }
    closers.push(() => runner.stop());
    await runner.start();
    const drain = async () => {
      if (!(await shutdown.drain(config.shutdownGraceMs))) logger.warn('shutdown grace period over with tool calls still running', { graceMs: config.shutdownGraceMs });
      // Let the answers of the last calls reach their transports before those close.
      await new Promise((resolve) => setTimeout(resolve, 20));
    };
    return { deps, sandbox, dataDir, listener: () => listener, drain, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The cheap check every few seconds besides readiness probes (one small query), so a failure and its end are logged once each. */
const STORE_CHECK_MS = 5_000;

/** Logs each change of the store's health, with the file or database and the fix; returns what stops that. */
function watchStoreHealth(store: Store, logger: Logger): () => Promise<void> {
  const stop = store.health.onChange((problem) => {
    if (problem) logger.error('store failing', { part: problem.part, message: problem.message });
    else logger.info('store serving again');
  });
  const timer = setInterval(() => void store.health.check(), STORE_CHECK_MS).unref();
  return async () => {
    clearInterval(timer);
    stop();
  };
}

/** Over stdio the listener runs on the lease holder: once renewals fail past the lease's life, another process may serve instead. */
function leaseCheck(lease: KeptLease): ReadinessCheck {
  if (lease.current) return { ok: true };
  const since = lease.renewedAt ? `last renewed ${Math.round((Date.now() - lease.renewedAt) / 1000)} s ago` : 'never held';
  return { ok: false, reason: `this process no longer holds the listener lease (${since}); another process may serve webhooks and the page` };
}
