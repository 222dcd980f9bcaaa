import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { expect } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { openStore, type SqliteStore } from '../../src/store/index.js';
import { http } from '../sandbox/http.js';
import { CLI, runCli } from './cli.js';

export type Revision = '2026-07-28' | '2025-11-25';
export const REVISIONS: Revision[] = ['2026-07-28', '2025-11-25'];

/** What a client learns of an event, in the vendor notification (2025) or a resource update's `_meta` (both). */
export interface EventNote {
  eventId: string;
  triggerId: string;
  kind: string;
  occurredAt: string;
  summary: string;
}

/** A data dir with an Outlook and a sales account and one trigger, added through the CLI, and the store it holds. */
export interface Setup {
  env: Record<string, string>;
  store: SqliteStore;
  triggerId: string;
  eventsUri: string;
  /** Commits an event to the trigger straight into the shared store, as a poller of another process would. */
  commit(summary: string): Promise<EventNote>;
  setOutlookStatus(status: 'active' | 'needs_reconnect'): Promise<void>;
  close(): Promise<void>;
}

export async function setUp(sandbox: Sandbox, name: string): Promise<Setup> {
  const dataDir = mkdtempSync(join(tmpdir(), `switchboard-e2e-${name}-`));
  const oauth = sandbox.oauthSettings;
  const env = {
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_OUTLOOK_BASE_URL: sandbox.baseUrls.outlook,
    SWITCHBOARD_SALES_BASE_URL: sandbox.baseUrls.sales,
    SWITCHBOARD_OUTLOOK_OAUTH_URL: oauth.outlook.url,
    SWITCHBOARD_OUTLOOK_CLIENT_ID: oauth.outlook.clientId!,
    // The end of each tool call is logged at debug level: how a test sees that the server stopped a cancelled one.
    SWITCHBOARD_LOG_LEVEL: 'debug',
  };
  const secretOf = (p: string) => sandbox.accounts.find((a) => a.provider === p)!.secret;
  for (const [provider, flag, secret] of [
    ['outlook', '--token-stdin', secretOf('outlook').token!],
    ['sales', '--api-key-stdin', secretOf('sales').apiKey!],
  ]) {
    const added = await runCli(['accounts', 'add', provider!, flag!], { env, stdin: secret });
    expect(added.code, added.stderr).toBe(0);
  }
  const trigger = await runCli(['triggers', 'add', 'outlook.new_email'], { env });
  expect(trigger.code, trigger.stderr).toBe(0);
  const triggerId = /Created trigger (trg_[0-9a-f]+)/.exec(trigger.stdout)![1]!;
  const store = await openStore({ dataDir });
  const outlook = (await store.accounts.list({ provider: 'outlook' }))[0]!;
  let n = 0;
  return {
    env,
    store,
    triggerId,
    eventsUri: `switchboard://triggers/${triggerId}/events`,
    async commit(summary) {
      n++;
      const [event] = await store.triggers.commit(triggerId, { events: [{ dedupeKey: `${name}-${n}`, occurredAt: new Date().toISOString(), summary, payload: { n } }] });
      return { eventId: String(event!.id), triggerId, kind: 'outlook.new_email', occurredAt: event!.occurredAt, summary };
    },
    setOutlookStatus: (status) => store.accounts.setStatus(outlook.id, status),
    async close() {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type Endpoint = { url: string } | { env: Record<string, string> };

/** One client of either revision, driven through the same few calls. */
export interface Connection {
  revision: Revision;
  /** The SDK's client, for the calls both SDKs spell alike (listTools, listResources, readResource). */
  client: any;
  /** The protocol revision the connection settled on. */
  negotiated(): string | undefined;
  call(name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal; onprogress?: (p: Progress) => void }): Promise<CallToolResult>;
  /** Starts taking the trigger's events: a listen stream (2026) or a resource subscription (2025). */
  watch(uri: string): Promise<void>;
  /** Every `notifications/resources/updated`, with the event its `_meta` carries. */
  updates: Array<{ uri: string; note?: EventNote }>;
  /** Every `notifications/switchboard/event` (2025 only). */
  vendorNotes: EventNote[];
  /** Every message from the server since connecting, in the order the transport read them. */
  inbound: Array<Record<string, any>>;
  /** Each sign-in link offered by URL elicitation, and what the person does with it before the client answers. */
  links: Array<{ message: string; url: string }>;
  onLink?: (url: string) => Promise<void>;
  /** The serving process's log (over stdio, the client's child; over HTTP, the caller has it). */
  stderr(): string;
  close(): Promise<void>;
}

const VendorEvent = z.object({ method: z.literal('notifications/switchboard/event'), params: z.object({}).passthrough() });
const noteOf = (meta: unknown) => (meta as Record<string, EventNote> | undefined)?.['switchboard/event'];

/** Keeps every message the transport hands the client, before the client dispatches it. */
function recordInbound(transport: { onmessage?: (message: any, extra?: any) => void }, inbound: Connection['inbound']): void {
  const dispatch = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    inbound.push(message);
    dispatch(message, extra);
  };
}

type Parts = Pick<Connection, 'client' | 'negotiated' | 'call' | 'watch' | 'close'>;

/**
 * Connects a client of `revision`: over HTTP to `url`, over stdio to a `serve --port 0` child of its own. A 2026
 * client is pinned to 2026-07-28 unless `mode` says otherwise; both declare URL elicitation.
 */
export async function connect(revision: Revision, endpoint: Endpoint, mode: 'auto' | { pin: string } = { pin: '2026-07-28' }): Promise<Connection> {
  const seen = { updates: [] as Connection['updates'], vendorNotes: [] as EventNote[], inbound: [] as Connection['inbound'], links: [] as Connection['links'] };
  let stderr = '';
  let connection: Connection | undefined;
  const offer = async (params: { message: string; url: string }) => {
    seen.links.push({ message: params.message, url: params.url });
    await connection?.onLink?.(params.url);
    return { action: 'accept' as const };
  };
  const onUpdate = (params: { uri: string; _meta?: unknown }) => void seen.updates.push({ uri: params.uri, note: noteOf(params._meta) });
  const stdio = 'env' in endpoint ? { command: process.execPath, args: [CLI, 'serve', '--port', '0'], env: { PATH: process.env.PATH ?? '', ...endpoint.env }, stderr: 'pipe' as const } : undefined;
  const url = 'url' in endpoint ? new URL(endpoint.url) : undefined;
  const capabilities = { elicitation: { url: {} } };

  let parts: Parts;
  if (revision === '2026-07-28') {
    const client = new ModernClient({ name: 'e2e-2026', version: '1' }, { versionNegotiation: { mode }, capabilities });
    client.setRequestHandler('elicitation/create', (req) => offer(req.params as { message: string; url: string }));
    client.setNotificationHandler('notifications/resources/updated', (n) => onUpdate(n.params));
    const transport = stdio ? new ModernStdio(stdio) : new ModernHttp(url!);
    if (transport instanceof ModernStdio) transport.stderr!.on('data', (d) => (stderr += d));
    await client.connect(transport);
    recordInbound(transport, seen.inbound);
    parts = {
      client,
      negotiated: () => client.getNegotiatedProtocolVersion(),
      call: (name, args, options) => client.callTool({ name, arguments: args }, options) as Promise<CallToolResult>,
      watch: async (uri) => void (await client.listen({ resourceSubscriptions: [uri] })),
      close: () => client.close(),
    };
  } else {
    const client = new LegacyClient({ name: 'e2e-2025', version: '1' }, { capabilities });
    client.setRequestHandler(ElicitRequestSchema, (req) => offer(req.params as { message: string; url: string }));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => onUpdate(n.params));
    client.setNotificationHandler(VendorEvent, (n) => void seen.vendorNotes.push(n.params as unknown as EventNote));
    // Over HTTP a 2025 client takes notifications on the GET stream it opens after initialize: wait for that to answer.
    let streamOpen!: () => void;
    const streamOpened = new Promise<void>((resolve) => (streamOpen = resolve));
    const opening: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if ((init?.method ?? 'GET') === 'GET' && res.status === 200) streamOpen();
      return res;
    };
    const transport: LegacyStdio | LegacyHttp = stdio ? new LegacyStdio(stdio) : new LegacyHttp(url!, { fetch: opening });
    if (transport instanceof LegacyStdio) {
      transport.stderr!.on('data', (d) => (stderr += d));
      streamOpen();
    }
    // The client hands the version the server chose to its transport (which over stdio has no use for it).
    let negotiated: string | undefined;
    const setVersion = transport instanceof LegacyHttp ? transport.setProtocolVersion.bind(transport) : undefined;
    Object.assign(transport, {
      setProtocolVersion: (version: string) => {
        negotiated = version;
        setVersion?.(version);
      },
    });
    await client.connect(transport);
    recordInbound(transport, seen.inbound);
    parts = {
      client,
      negotiated: () => negotiated,
      call: (name, args, options) => client.callTool({ name, arguments: args }, undefined, options) as Promise<CallToolResult>,
      watch: async (uri) => {
        await streamOpened;
        await client.subscribeResource({ uri });
      },
      close: () => client.close(),
    };
  }
  connection = { revision, ...seen, ...parts, stderr: () => stderr };
  return connection;
}

/** The text of a result's first content block. */
export const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** Does what a person does with a sign-in link: opens it, allows access at the provider, and lands on the callback. */
export async function signInThrough(link: string): Promise<void> {
  const page = await http('GET', link);
  const request = /name="request" value="([^"]+)"/.exec(page.body)![1]!;
  const answer = await http('POST', link.split('?')[0]!, {
    body: new URLSearchParams({ request, decision: 'allow' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const landing = await http('GET', answer.headers.location!);
  expect(landing.status, String(landing.body)).toBe(200);
  expect(landing.body).toMatch(/Connected outlook account/);
}

/** How many `events_next` calls the serving process has logged as finished. */
export const finishedPolls = (log: string) => [...log.matchAll(/"msg":"tool call","tool":"events_next","ms":(\d+)/g)].map((m) => Number(m[1]));
