import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { flushAudit } from '../src/governance/audit-trail.js';
import { composeDeps } from '../src/compose.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startListener } from '../src/http/listener.js';
import { startHttpListener, type HttpListener } from '../src/mcp/http.js';
import { createServer, surfaceOf, type ServerDeps } from '../src/mcp/server.js';
import { Redactor } from '../src/redact.js';
import { startSandbox, type Sandbox } from '../src/sandbox/index.js';
import { serverTools } from '../src/registry.js';
import { openStore } from '../src/store/index.js';
import { EventLog } from '../src/triggers/event-log.js';
import { TRIGGER_KINDS } from '../src/triggers/kinds.js';
import { webhookRoutes } from '../src/triggers/webhooks.js';
import type { Tool } from '../src/tool.js';
import type { Provider, Store } from '../src/store/types.js';

export interface Harness {
  client: Client;
  sandbox: Sandbox;
  store: Store;
  deps: ServerDeps;
  dataDir: string;
  logs: string[];
  /** With `listen`: the base URL of the webhook listener. */
  listenerUrl?: string;
  /** Calls a tool and checks that no secret leaked into the result. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** The structured content of a successful call; fails the test on an error result. */
  ok<T = any>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** The text of an error result; fails the test on success. */
  fails(name: string, args?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/** A secret that is valid at the GitHub sandbox and must never be seen anywhere. */
export const CANARY = 'ghp_CANARY0000secret0000do0not0leak';

/** Everything a test needs: the sandbox providers, a store with one account each, and a real MCP client. */
export interface HarnessOptions {
  readOnly?: boolean;
  toolsets?: Provider[];
  /** Tools to list besides the registry's (for tools not wired in yet). */
  extraTools?: Tool[];
  /** Start an HTTP listener on 127.0.0.1 serving the webhook routes, and use it as the public URL. */
  listen?: boolean;
  /** The result budget in tokens (the server's default, 25,000, when absent). */
  maxResultTokens?: number;
  /** The store in this PostgreSQL database instead of the SQLite file in the data dir. */
  databaseUrl?: string;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const sandbox = await startSandbox();
  sandbox.states.github.tokens.add(CANARY);
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-test-'));
  const redactor = new Redactor();
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const store = await openStore({ dataDir, databaseUrl: options.databaseUrl, secretKey: 'test-secret-key', redactor });
  for (const account of sandbox.accounts) await store.accounts.add({ ...account, label: 'sample' });
  await store.accounts.add({ provider: 'github', label: 'canary', identity: 'canary', secret: { kind: 'token', token: CANARY } });

  const log = new EventLog(store.events, 50);
  await log.start();
  const logger = createLogger({ stream, level: 'debug', redactor });
  const settings = { ...loadConfig({}), oauth: sandbox.oauthSettings, readOnly: options.readOnly ?? false, toolsets: options.toolsets, maxResultTokens: options.maxResultTokens ?? 25_000 };
  const deps = composeDeps(
    settings,
    { store, log, baseUrls: sandbox.baseUrls, redactor, logger, version: 'test' },
    {
      retry: { maxAttempts: 3, budgetMs: 2_000, baseDelayMs: 5 },
      // Extra tools win over registry tools of the same name, so tests keep working once the tools are wired in.
      ...(options.extraTools && { tools: [...serverTools(settings).filter((t) => !options.extraTools?.some((x) => x.name === t.name)), ...options.extraTools] }),
    },
  );
  const listener = options.listen
    ? await startListener({ host: '127.0.0.1', port: 0, routes: webhookRoutes({ store, kinds: TRIGGER_KINDS, log, logger }), logger, version: 'test' })
    : undefined;
  if (listener) deps.triggers!.publicUrl = listener.url;
  const server = createServer(deps);
  // Every structuredContent a test sees is checked against its tool's outputSchema by a strict validator.
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { jsonSchemaValidator: strictOutputValidator() });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  await client.listTools();

  const secrets = [CANARY, ...sandbox.accounts.flatMap((a) => [a.secret.token, a.secret.apiKey].filter((s): s is string => !!s))];
  const assertNoSecret = (text: string) => {
    for (const s of secrets) expect(text, 'a secret leaked').not.toContain(s);
  };

  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    assertNoSecret(JSON.stringify(result));
    return result;
  };

  return {
    client,
    sandbox,
    store,
    deps,
    dataDir,
    logs,
    listenerUrl: listener?.url,
    call,
    async ok(name, args) {
      const result = await call(name, args);
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      return result.structuredContent as any;
    },
    async fails(name, args) {
      const result = await call(name, args);
      expect(result.isError, `${name} should have failed`).toBe(true);
      return (result.content[0] as { text: string }).text;
    },
    async close() {
      assertNoSecret(logs.join(''));
      await client.close();
      await server.close();
      log.stop();
      await listener?.close();
      await flushAudit(deps.audit);
      await store.close();
      await sandbox.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Ajv for JSON Schema 2020-12 in strict mode, with formats: what a careful client would check results with. */
export function strictOutputValidator(): AjvJsonSchemaValidator {
  const ajv = new Ajv2020({ strict: true, allErrors: true, validateFormats: true });
  addFormats(ajv);
  return new AjvJsonSchemaValidator(ajv);
}

/** A harness behind a real HTTP listener on 127.0.0.1: `endpoint` is its /mcp URL; `close` stops both. */
export async function startHttpHarness(options: HarnessOptions = {}): Promise<{ h: Harness; listener: HttpListener; endpoint: string; close(): Promise<void> }> {
  const h = await startHarness(options);
  const listener = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: surfaceOf(h.deps), logger: h.deps.logger, version: 't' });
  return {
    h,
    listener,
    endpoint: `${listener.url}/mcp`,
    async close() {
      await listener.close();
      await h.close();
    },
  };
}
