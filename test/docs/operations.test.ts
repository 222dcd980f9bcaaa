import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../pg-global.js';
import { OtlpReceiver } from '../support/otlp.js';
import { watchMisses } from '../support/misses.js';
import { until } from '../support/wait.js';
import { commandLines, shellBlocks, SWITCHBOARD } from './markdown.js';

/** The command blocks of docs/operations.md, run as written through bash; only the port and the endpoint are put in. */

const TOKEN = 'operations-doc-token-0123456789abcdef';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function bash(line: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn('bash', ['-c', `${SWITCHBOARD}\n${line}`], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  watchMisses(child.stderr);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
  });
  return { child, output: () => output };
}

async function run(line: string, env: Record<string, string>): Promise<string> {
  const { child, output } = bash(line, env);
  const code = await new Promise((resolve) => child.on('exit', resolve));
  expect(code, output()).toBe(0);
  return output();
}

async function serveAsWritten(line: string, port: number, env: Record<string, string>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-docs-ops-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const server = bash(line.replace('8765', String(port)), { SWITCHBOARD_DATA_DIR: dataDir, ...env });
  await until(() => /"msg":"listening"/.test(server.output()), 'serve listening', 30_000);
}

describe('docs/operations.md', () => {
  it('Metrics: serves /metrics behind the token, and the probes answer as written', { timeout: 60_000 }, async () => {
    const [serveLine, ...rest] = shellBlocks('docs/operations.md', '## Metrics').flatMap(commandLines);
    expect(rest).toHaveLength(1);
    const port = await freePort();
    await serveAsWritten(serveLine!, port, { TOKEN });
    const metrics = await run(rest[0]!.replace('8765', String(port)), { TOKEN });
    expect(metrics).toMatch(/^# TYPE target_info gauge$/m);
    expect(metrics).toMatch(/^target_info\{service_name="switchboard"/m);

    const [health, ready] = shellBlocks('docs/operations.md', '## Probes').flatMap(commandLines);
    expect(JSON.parse(await run(health!.replace('8765', String(port)), {}))).toMatchObject({ status: 'ok' });
    expect(JSON.parse(await run(ready!.replace('8765', String(port)), {}))).toMatchObject({ status: 'ready', checks: { store: { ok: true } } });
  });

  it('Tracing: sends a tool call\'s spans to the endpoint given', { timeout: 60_000 }, async () => {
    const [line, ...rest] = shellBlocks('docs/operations.md', '## Tracing').flatMap(commandLines);
    expect(rest).toEqual([]);
    const receiver = await new OtlpReceiver().start();
    cleanups.push(() => receiver.close());
    const port = await freePort();
    await serveAsWritten(line!.replace('http://127.0.0.1:4318', receiver.url), port, { OTEL_BSP_SCHEDULE_DELAY: '100' });
    const client = new Client({ name: 'operations-doc', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    cleanups.push(() => client.close());
    await client.callTool({ name: 'github_get_repository', arguments: { owner: 'sbx-octocat', repo: 'hello-world' } });
    const server = await receiver.span((s) => s.name === 'tools/call github_get_repository');
    expect(server.resource['service.name']).toBe('switchboard');
    await receiver.span((s) => s.parentSpanId === server.spanId && s.name === 'GET /repos/{name}/{name}');
  });
});
