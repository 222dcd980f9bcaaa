import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { exited, runCli, startHttpServe } from '../e2e/cli.js';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp.js';
import { until } from '../support/wait.js';
import { scrape, sample } from './prometheus.js';

const TOKEN = 'telemetry-test-token-0123456789abcdef';
const VERCEL_SECRET = 'whsec-telemetry-0123456789';
const PROJECT = 'prj_sbxHelloWorld0000000001';
const BODY = 'issue body that must never reach a span 5d1c';
const SERVER = 2;
const CLIENT = 3;

let sandbox: Sandbox;
let receiver: OtlpReceiver;
let forwards: Server;
const forwarded: string[] = [];
let dataDir: string;
let serve: Awaited<ReturnType<typeof startHttpServe>>;
let base: string;
let client: Client;

beforeAll(async () => {
  sandbox = await startSandbox();
  receiver = await new OtlpReceiver().start();
  forwards = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => (forwarded.push(body), res.writeHead(204).end()));
  });
  await new Promise<void>((resolve) => forwards.listen(0, '127.0.0.1', resolve));
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-telemetry-'));
  const env = {
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_GITHUB_BASE_URL: sandbox.baseUrls.github,
    SWITCHBOARD_VERCEL_BASE_URL: sandbox.baseUrls.vercel,
  };
  for (const provider of ['github', 'vercel'] as const) {
    const added = await runCli(['accounts', 'add', provider, '--token-stdin'], { env, stdin: SANDBOX_TOKENS[provider] });
    expect(added.code, added.stderr).toBe(0);
  }
  serve = await startHttpServe([], {
    ...env,
    SWITCHBOARD_HTTP_TOKEN: TOKEN,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'switchboard-under-test',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_METRIC_EXPORT_INTERVAL: '500',
    SWITCHBOARD_METRICS: 'on',
  });
  base = serve.url.replace(/\/mcp$/, '');
  client = await connect();
}, 60_000);

afterAll(async () => {
  await client?.close();
  if (serve) {
    serve.child.kill('SIGTERM');
    await exited(serve.child);
  }
  await receiver.close();
  await new Promise((resolve) => forwards.close(resolve));
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const c = new Client({ name: 'telemetry-test', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(serve.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}`, ...headers } } }));
  return c;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const childrenOf = (span: ReceivedSpan) => receiver.spans.filter((s) => s.parentSpanId === span.spanId);

describe('traces over OTLP (http/json)', () => {
  it('follows a tool call from the client\'s _meta.traceparent through the server span to the provider request', async () => {
    const traceId = hex(16);
    const parent = hex(8);
    const result = await client.callTool({
      name: 'github_create_issue',
      arguments: { owner: 'sbx-octocat', repo: 'hello-world', title: 'Followed through Switchboard', body: BODY },
      _meta: { traceparent: `00-${traceId}-${parent}-01` },
    });
    expect(result.isError).toBeFalsy();

    const server = await receiver.span((s) => s.traceId === traceId && s.kind === SERVER);
    expect(server).toMatchObject({
      name: 'tools/call github_create_issue',
      parentSpanId: parent,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'github_create_issue',
        'gen_ai.operation.name': 'execute_tool',
        'network.transport': 'tcp',
        'mcp.session.id': expect.any(String),
        'jsonrpc.request.id': expect.any(String),
      },
      resource: { 'service.name': 'switchboard-under-test' },
    });
    const provider = await receiver.span((s) => s.parentSpanId === server.spanId && s.kind === CLIENT);
    expect(provider).toMatchObject({
      traceId,
      name: 'POST /repos/{name}/{name}/issues',
      attributes: {
        'http.request.method': 'POST',
        'server.address': '127.0.0.1',
        'url.template': '/repos/{name}/{name}/issues',
        'http.response.status_code': 201,
        'switchboard.provider': 'github',
      },
    });
  });

  it('continues a trace from the HTTP request\'s traceparent header, and marks a tool result with isError as failed', async () => {
    const traceId = hex(16);
    const headed = await connect({ traceparent: `00-${traceId}-${hex(8)}-01` });
    try {
      const result = await headed.callTool({ name: 'github_get_repository', arguments: { owner: 'sbx-octocat', repo: 'no-such-repository' } });
      expect(result.isError).toBe(true);
    } finally {
      await headed.close();
    }
    const failed = await receiver.span((s) => s.traceId === traceId && s.name === 'tools/call github_get_repository');
    expect(failed.status?.code).toBe(2);
    expect(failed.attributes['error.type']).toBe('tool_error');
    const provider = await receiver.span((s) => s.parentSpanId === failed.spanId);
    expect(provider.attributes).toMatchObject({ 'http.response.status_code': 404, 'error.type': '404', 'url.template': '/repos/{name}/{name}' });
    // The log line of the failed call names its trace, span and request.
    await until(() => /"msg":"tool call failed"/.test(serve.stderr()), 'the failure logged');
    const line = serve.stderr().split('\n').find((l) => l.includes('"msg":"tool call failed"') && l.includes(traceId));
    expect(line && JSON.parse(line)).toMatchObject({ trace_id: traceId, span_id: expect.stringMatching(/^[0-9a-f]{16}$/), request_id: expect.any(String), mcp_request_id: expect.any(String) });
  });

  it('traces a webhook delivery: intake with verify and commit, then each forward attempt', async () => {
    const forwardUrl = `http://127.0.0.1:${(forwards.address() as AddressInfo).port}/hook`;
    const env = { SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_VERCEL_BASE_URL: sandbox.baseUrls.vercel };
    const added = await runCli(
      ['triggers', 'add', 'vercel.deployment_started', '--config', JSON.stringify({ project: PROJECT, secret: VERCEL_SECRET }), '--public-url', base, '--forward-url', forwardUrl],
      { env },
    );
    expect(added.code, added.stderr).toBe(0);
    const trigger = /Created trigger (trg_[0-9a-f]+)/.exec(added.stdout)![1]!;
    const body = JSON.stringify({
      id: 'evt_telemetry_1',
      type: 'deployment.created',
      createdAt: Date.now(),
      payload: { deployment: { id: 'dpl_telemetry1', name: 'hello-world', url: 'hello-world-telemetry.vercel.app' }, project: { id: PROJECT }, target: 'preview' },
    });
    const post = (signature: string) =>
      fetch(`${base}/webhooks/vercel/${trigger}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-vercel-signature': signature }, body });
    expect((await post('0'.repeat(40))).status).toBe(401);
    expect((await post(createHmac('sha1', VERCEL_SECRET).update(body).digest('hex'))).status).toBe(200);

    const intake = await receiver.span((s) => s.name === 'webhook vercel' && s.attributes['switchboard.webhook.outcome'] === 'accepted');
    expect(intake.kind).toBe(SERVER);
    await until(() => childrenOf(intake).length >= 2, 'the intake steps');
    expect(childrenOf(intake).map((s) => s.name).sort()).toEqual(['webhook commit', 'webhook verify']);
    const refused = await receiver.span((s) => s.name === 'webhook vercel' && s.attributes['switchboard.webhook.outcome'] === 'bad_signature');
    expect(refused.status?.code).toBe(2);

    const delivery = await receiver.span((s) => s.name === 'event delivery');
    expect(delivery.attributes).toMatchObject({ 'switchboard.delivery.route': 'forward', 'switchboard.delivery.attempt': 1, 'switchboard.delivery.outcome': 'delivered' });
    expect(forwarded).toHaveLength(1);
  });

  it('exports the metrics over OTLP too, and puts no secret, token, body or login in any exported span or figure', async () => {
    await until(() => receiver.spans.some((s) => s.name === 'event delivery'), 'the spans of the other tests');
    await until(() => receiver.bodies.some((b) => b.includes('"mcp.server.operation.duration"') && b.includes('"switchboard.webhook.deliveries"')), 'an OTLP metrics export');
    const exported = receiver.bodies.join('\n');
    for (const secret of [...Object.values(SANDBOX_TOKENS), TOKEN, VERCEL_SECRET, BODY, 'sbx-octocat', 'hello-world-telemetry']) {
      expect(exported.includes(secret), `exported telemetry holds ${secret}`).toBe(false);
    }
  });
});

describe('metrics at /metrics', () => {
  it('answers Prometheus text behind the token, its figures moving as calls are made', async () => {
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    const calls = (families: Awaited<ReturnType<typeof scrape>>) =>
      sample(families, 'mcp_server_operation_duration_count', { mcp_method_name: 'tools/call', gen_ai_tool_name: 'accounts_list' }) ?? 0;
    const before = await scrape(base, TOKEN);
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'accounts_list', arguments: {} });
    const after = await scrape(base, TOKEN);
    const names = after.map((f) => f.name);
    expect(names).toEqual(expect.arrayContaining(['mcp_server_operation_duration_count', 'switchboard_provider_requests_total', 'switchboard_webhook_deliveries_total', 'switchboard_mcp_sessions']));
    expect(calls(after) - calls(before)).toBe(3);
    expect(sample(after, 'switchboard_provider_requests_total', { switchboard_provider: 'github', http_response_status_code: '201' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'switchboard_webhook_deliveries_total', { switchboard_provider: 'vercel', outcome: 'bad_signature' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'switchboard_mcp_sessions')).toBeGreaterThanOrEqual(1);
    // The forward of the webhook test: one attempt, delivered, its lag measured, nothing left pending.
    expect(sample(after, 'switchboard_event_delivery_attempts_total', { route: 'forward', outcome: 'delivered' })).toBe(1);
    expect(sample(after, 'switchboard_event_delivery_lag_count', { route: 'forward' })).toBe(1);
    expect(sample(after, 'switchboard_event_delivery_backlog', { state: 'due' })).toBe(0);
    expect(sample(after, 'switchboard_work_claimed_total', { work: 'delivery' })).toBeGreaterThanOrEqual(1);
    // SQLite's one connection; the scrape itself makes no store call, so none is in use or waiting.
    expect(sample(after, 'switchboard_store_pool', { state: 'size' })).toBe(1);
    expect(sample(after, 'switchboard_store_pool', { state: 'waiting' })).toBe(0);
  });
});
