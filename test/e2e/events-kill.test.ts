import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../../src/redact.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/index.js';
import { freshDatabase, type TestDatabase } from '../pg.js';
import { startReceiver } from '../events/receiver.js';
import { postModern } from '../mcp/sse.js';
import { until } from '../support/wait.js';
import { exited, startHttpServe } from './cli.js';

/**
 * At least once across a crash: the instance sending an MCP event delivery is killed with SIGKILL mid-send, and the
 * instance started after it on the same store sends the delivery again, under the same webhook-id.
 */

const SECRET_KEY = 'events-kill-secret-key';
const databases: TestDatabase[] = [];
// The stand-ins run here, so `serve` keeps the store it is given (with --sandbox it would keep its own SQLite file).
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => {
  await sandbox.close();
  for (const database of databases) await database.drop();
});

/** The store both instances share: the data directory's SQLite file, or a PostgreSQL database. */
const STORES = [
  { name: 'SQLite', env: async (): Promise<Record<string, string>> => ({}) },
  {
    name: 'PostgreSQL',
    env: async (): Promise<Record<string, string>> => {
      const database = await freshDatabase();
      databases.push(database);
      return { SWITCHBOARD_DATABASE_URL: database.url };
    },
  },
];

describe.each(STORES)('an MCP event delivery on $name', (store) => {
  it('survives kill -9 of the instance sending it: the next instance delivers it under the same id', { timeout: 90_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-events-kill-'));
    let events = 0;
    const receiver = await startReceiver((_path, body) => {
      const parsed = JSON.parse(body) as { type?: string; challenge?: string };
      if (parsed.type === 'verification') return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ challenge: parsed.challenge }) };
      return ++events === 1 ? 'hang' : { status: 204 };
    });
    const env: Record<string, string> = {
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_SECRET_KEY: SECRET_KEY,
      ...Object.fromEntries(Object.entries(sandbox.baseUrls).map(([p, url]) => [`SWITCHBOARD_${p.toUpperCase()}_BASE_URL`, url])),
      ...(await store.env()),
    };
    const seeded = await openStore({ dataDir, databaseUrl: env.SWITCHBOARD_DATABASE_URL, secretKey: SECRET_KEY, redactor: new Redactor() });
    for (const account of sandbox.accounts) await seeded.accounts.add(account);
    await seeded.close();
    const first = await startHttpServe([], env);
    let second: Awaited<ReturnType<typeof startHttpServe>> | undefined;
    try {
      const secret = 'whsec_' + randomBytes(32).toString('base64');
      const { body } = await postModern(first.url, 'events/subscribe', {
        name: 'outlook.new_email',
        arguments: { filter: 'subject:durable' },
        delivery: { mode: 'webhook', url: `${receiver.url}/hook`, secret },
      });
      expect(body.result?.id, JSON.stringify(body.error)).toMatch(/^sub_/);
      const sent = await fetch(`${sandbox.servers.outlook.url}/_sandbox/outlook/deliver`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ subject: 'durable', from: { name: 'Dana', address: 'dana@acme.com' } }),
      });
      expect(sent.status).toBe(201);
      const posts = () => receiver.received.filter((r) => !/^msg_/.test(String(r.headers['webhook-id'])));
      await until(() => posts().length === 1, 'the first attempt', 30_000);
      first.child.kill('SIGKILL');
      await exited(first.child);

      second = await startHttpServe([], env);
      await until(() => posts().length === 2, 'the delivery from the second instance', 45_000);
      const [lost, again] = posts();
      expect(again!.headers['webhook-id']).toBe(lost!.headers['webhook-id']);
      expect(again!.headers['webhook-id']).toMatch(/^evt_\d+$/);
      expect(again!.headers['x-mcp-subscription-id']).toBe(body.result.id);
      expect(JSON.parse(again!.body)).toMatchObject({ name: 'outlook.new_email', data: { subject: 'durable' } });
      expect(existsSync(join(dataDir, 'switchboard.db'))).toBe(store.name === 'SQLite');
    } finally {
      first.child.kill('SIGKILL');
      second?.child.kill('SIGTERM');
      if (second) await exited(second.child);
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
