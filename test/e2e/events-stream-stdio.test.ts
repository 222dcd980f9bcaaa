import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as z from 'zod/v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/wait.js';
import { CLI } from './cli.js';

/**
 * MCP Events over stdio, against the built CLI (`serve --sandbox`) as a desktop client spawns it: events/poll from now,
 * then events/stream, on which a sandbox email arrives as a notification; a cancel ends the stream. Both revisions.
 */

const NAME = 'outlook.new_email';
const Result = z.looseObject({});

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-events-stdio-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

type AnyClient = { request: (...args: any[]) => Promise<any>; close(): Promise<void>; fallbackNotificationHandler?: (n: any) => Promise<void> };

async function connect(era: '2026-07-28' | '2025-11-25'): Promise<AnyClient> {
  const stdio = { command: process.execPath, args: [CLI, 'serve', '--sandbox', '--port', '0'], env: { PATH: process.env.PATH ?? '', SWITCHBOARD_DATA_DIR: dataDir }, stderr: 'pipe' as const };
  if (era === '2026-07-28') {
    const client = new ModernClient({ name: 'stdio-2026', version: '1' }, { versionNegotiation: { mode: { pin: era } } });
    await client.connect(new ModernStdio(stdio));
    return client as unknown as AnyClient;
  }
  const client = new LegacyClient({ name: 'stdio-2025', version: '1' });
  await client.connect(new LegacyStdio(stdio));
  return client as unknown as AnyClient;
}

async function deliverEmail(subject: string) {
  const file = join(dataDir, 'sandbox', 'sandbox.json');
  await until(() => existsSync(file), 'the sandbox to start');
  const { servers } = JSON.parse(readFileSync(file, 'utf8')) as { servers: { outlook: string } };
  const res = await fetch(`${servers.outlook}/_sandbox/outlook/deliver`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ subject, from: { name: 'Dana', address: 'dana@acme.com' }, text: `Body of ${subject}` }),
  });
  expect(res.status).toBe(201);
}

describe.each(['2026-07-28', '2025-11-25'] as const)('events over stdio, %s', (era) => {
  it('polls from now, then streams a sandbox email as a notification until cancelled', { timeout: 90_000 }, async () => {
    const client = await connect(era);
    try {
      const args = { filter: `subject:stdio-${era}`, poll_interval_seconds: 10 };
      const polled = await client.request({ method: 'events/poll', params: { name: NAME, arguments: args, cursor: null } }, Result);
      expect(polled).toMatchObject({ events: [], truncated: false, hasMore: false });

      const notes: Array<{ method: string; params: Record<string, any> }> = [];
      client.fallbackNotificationHandler = async (n) => void (n.method.startsWith('notifications/events/') && notes.push(n));
      const abort = new AbortController();
      const done = client.request({ method: 'events/stream', params: { name: NAME, arguments: args, cursor: polled.cursor } }, Result, { signal: abort.signal, timeout: 120_000 });
      done.catch(() => undefined);
      await until(() => notes.some((n) => n.method === 'notifications/events/active'), 'active');
      await deliverEmail(`stdio-${era} hello`);
      const event = await until(() => notes.find((n) => n.method === 'notifications/events/event'), 'the email on the stream', 40_000);
      expect(event.params).toMatchObject({ name: NAME, data: { subject: `stdio-${era} hello` } });
      expect(event.params._meta['io.modelcontextprotocol/subscriptionId']).toBeDefined();

      // The stream kept the trigger alive; the poll at the cursor the stream gave finds nothing more.
      const again = await client.request({ method: 'events/poll', params: { name: NAME, arguments: args, cursor: event.params.cursor } }, Result);
      expect(again.events).toEqual([]);
      abort.abort('done');
      await expect(done).rejects.toThrow();
    } finally {
      await client.close();
    }
  });
});
