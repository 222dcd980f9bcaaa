import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { flushAudit } from '../../src/governance/audit-trail.js';
import { composeDeps } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startListener, type Listener } from '../../src/http/listener.js';
import { Redactor } from '../../src/redact.js';
import { SANDBOX_API_KEYS, SANDBOX_TOKENS, sandboxCredentials, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/index.js';
import type { Store } from '../../src/store/types.js';
import type { ToolDeps } from '../../src/tool.js';
import { EventLog } from '../../src/triggers/event-log.js';
import { TRIGGER_KINDS } from '../../src/triggers/kinds.js';
import { Runner } from '../../src/triggers/runner.js';
import { webhookRoutes } from '../../src/triggers/webhooks.js';
import { webRoutes, type WebDeps } from '../../src/web/index.js';

export interface WebServer {
  url: string;
  sandbox: Sandbox;
  dataDir: string;
  databaseUrl?: string;
  store: Store;
  deps: ToolDeps;
  runner: Runner;
  logs: string[];
  /** Every secret the server knows of; none may ever reach a page. */
  secrets: string[];
  close(): Promise<void>;
}

export interface WebServerOptions {
  token?: string;
  signIn?: WebDeps['signIn'];
  http?: boolean;
  sandbox?: boolean;
  /** Sandbox mode's sample credentials on the page, as serve --sandbox gives them. */
  sandboxCredentials?: boolean;
  /** The store in this PostgreSQL database instead of the data dir's SQLite file. */
  databaseUrl?: string;
  /** Another instance of `sameAs`: on its store (a store of its own, opened on the same database or data dir) and its sandbox. */
  sameAs?: WebServer;
}

/** The page's routes on a real listener, in process: sandbox providers, a store with one sample account each, a runner. */
export async function startWebServer(options: WebServerOptions = {}): Promise<WebServer> {
  // Without options.signIn, the page signs in with the real browser sign-in against the sandbox's authorization servers.
  const shared = options.sameAs;
  const sandbox = shared?.sandbox ?? (await startSandbox());
  const dataDir = shared?.dataDir ?? mkdtempSync(join(tmpdir(), 'switchboard-web-'));
  const databaseUrl = shared?.databaseUrl ?? options.databaseUrl;
  const redactor = new Redactor();
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ stream, level: 'debug', redactor });
  const secretKey = 'web-test-secret-key';
  const store = await openStore({ dataDir, databaseUrl, secretKey, redactor });
  if (!shared) for (const account of sandbox.accounts) await store.accounts.add(account);
  const log = new EventLog(store.events, 20);
  await log.start();
  const config = {
    ...loadConfig({ SWITCHBOARD_SECRET_KEY: secretKey, ...(options.token ? { SWITCHBOARD_HTTP_TOKEN: options.token } : {}) }, { 'data-dir': dataDir, http: options.http, sandbox: options.sandbox }),
    baseUrls: sandbox.baseUrls,
  };
  const deps = composeDeps(
    { ...config, oauth: sandbox.oauthSettings },
    { store, log, baseUrls: sandbox.baseUrls, redactor, logger, version: 'test', pollSoon: (id) => runner.pollSoon(id) },
    { retry: { maxAttempts: 2, budgetMs: 1_000, baseDelayMs: 5 } },
  );
  const runner = new Runner({ store, kinds: TRIGGER_KINDS, log, deps, logger, tickMs: 20 });
  const listener: Listener = await startListener({
    host: '127.0.0.1',
    port: 0,
    token: options.token,
    routes: [...webhookRoutes({ store, kinds: TRIGGER_KINDS, log, logger }), ...webRoutes({ deps, config, logger, signIn: options.signIn, sandboxCredentials: options.sandboxCredentials ? sandboxCredentials() : undefined })],
    logger,
    version: 'test',
  });
  await runner.start();
  return {
    url: listener.url,
    sandbox,
    dataDir,
    databaseUrl,
    store,
    deps,
    runner,
    logs,
    secrets: [...Object.values(SANDBOX_TOKENS), ...Object.values(SANDBOX_API_KEYS), secretKey, ...(options.token ? [options.token] : [])],
    async close() {
      await runner.stop();
      log.stop();
      await listener.close();
      await flushAudit(deps.audit);
      await store.close();
      if (shared) return;
      await sandbox.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
