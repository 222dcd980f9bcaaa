import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../events/receiver.js';
import { postModern } from '../mcp/sse.js';
import { until } from '../support/wait.js';
import { exited, startHttpServe } from './cli.js';

/**
 * At least once across a crash: the instance sending an MCP event delivery is killed with SIGKILL mid-send, and the
 * instance started after it on the same store sends the delivery again, under the same webhook-id.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-events-kill-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('an MCP event delivery', () => {
  it('survives kill -9 of the instance sending it: the next instance delivers it under the same id', { timeout: 90_000 }, async () => {
    let events = 0;
    const receiver = await startReceiver((_path, body) => {
      const parsed = JSON.parse(body) as { type?: string; challenge?: string };
      if (parsed.type === 'verification') return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ challenge: parsed.challenge }) };
      return ++events === 1 ? 'hang' : { status: 204 };
    });
    const env = { SWITCHBOARD_DATA_DIR: dataDir };
    const first = await startHttpServe(['--sandbox'], env);
    let second: Awaited<ReturnType<typeof startHttpServe>> | undefined;
    try {
      const secret = 'whsec_' + randomBytes(32).toString('base64');
      const { body } = await postModern(first.url, 'events/subscribe', {
        name: 'outlook.new_email',
        arguments: { filter: 'subject:durable' },
        delivery: { mode: 'webhook', url: `${receiver.url}/hook`, secret },
      });
      expect(body.result?.id, JSON.stringify(body.error)).toMatch(/^sub_/);
      const outlook = (JSON.parse(readFileSync(join(dataDir, 'sandbox', 'sandbox.json'), 'utf8')) as { servers: { outlook: string } }).servers.outlook;
      const sent = await fetch(`${outlook}/_sandbox/outlook/deliver`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ subject: 'durable', from: { name: 'Dana', address: 'dana@acme.com' } }),
      });
      expect(sent.status).toBe(201);
      const posts = () => receiver.received.filter((r) => !/^msg_/.test(String(r.headers['webhook-id'])));
      await until(() => posts().length === 1, 'the first attempt', 30_000);
      first.child.kill('SIGKILL');
      await exited(first.child);

      second = await startHttpServe(['--sandbox'], env);
      await until(() => posts().length === 2, 'the delivery from the second instance', 45_000);
      const [lost, again] = posts();
      expect(again!.headers['webhook-id']).toBe(lost!.headers['webhook-id']);
      expect(again!.headers['webhook-id']).toMatch(/^evt_\d+$/);
      expect(again!.headers['x-mcp-subscription-id']).toBe(body.result.id);
      expect(JSON.parse(again!.body)).toMatchObject({ name: 'outlook.new_email', data: { subject: 'durable' } });
    } finally {
      first.child.kill('SIGKILL');
      second?.child.kill('SIGTERM');
      if (second) await exited(second.child);
      await receiver.close();
    }
  });
});
