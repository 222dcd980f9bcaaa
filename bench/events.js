import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '../dist/log.js';
import { startHttpListener } from '../dist/mcp/http.js';
import { surfaceOf } from '../dist/mcp/server.js';
import { Redactor } from '../dist/redact.js';
import { buildTools } from '../dist/registry.js';
import { openStore } from '../dist/store/index.js';
import { EventLog } from '../dist/triggers/event-log.js';
import { TRIGGER_KINDS } from '../dist/triggers/kinds.js';
import { fmt, summary } from './stats.js';

/** Events committed per second with 10 subscribed Streamable HTTP sessions, and commit-to-notification latency. */
export async function benchEvents({ events: count = 2000, sessions = 10 } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-events-'));
  const redactor = new Redactor();
  const store = await openStore({ dataDir, secretKey: 'bench', redactor });
  const account = await store.accounts.add({ provider: 'outlook', secret: { kind: 'token', token: 'bench-token-000' } });
  const trigger = await store.triggers.create({ kind: 'outlook.new_email', accountId: account.id, config: {} });
  const log = new EventLog(store.events);
  await log.start();
  const logger = createLogger({ level: 'error', redactor });
  const deps = { store, triggers: { kinds: TRIGGER_KINDS, log }, baseUrls: {}, redactor, readOnly: false, logger, version: 'bench', tools: buildTools({ readOnly: false }) };
  const listener = await startHttpListener({ host: '127.0.0.1', port: 0, mcp: surfaceOf(deps), logger, version: 'bench' });
  const uri = `switchboard://triggers/${trigger.id}/events`;

  const committedAt = new Map();
  const latencies = [];
  let received = 0;
  const clients = [];
  for (let i = 0; i < sessions; i++) {
    const client = new Client({ name: `bench-${i}`, version: '1' });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => undefined);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${listener.url}/mcp`)));
    await client.subscribeResource({ uri });
    clients.push(client);
  }
  // The vendor notification carries the event id, so each arrival is matched to its commit.
  let done;
  const allIn = new Promise((r) => (done = r));
  for (const client of clients) {
    client.fallbackNotificationHandler = async (n) => {
      if (n.method !== 'notifications/switchboard/event') return;
      const at = committedAt.get(n.params.eventId);
      if (at !== undefined) latencies.push(performance.now() - at);
      if (++received === count * sessions) done();
    };
  }
  await new Promise((r) => setTimeout(r, 300));

  const commitOne = async (i) => {
    const t0 = performance.now();
    const [e] = await store.triggers.commit(trigger.id, { events: [{ dedupeKey: `e${i}`, occurredAt: new Date().toISOString(), summary: `event ${i}`, payload: { i } }] });
    committedAt.set(String(e.id), t0);
    void log.poke();
  };
  const started = performance.now();
  for (let i = 0; i < count; i++) await commitOne(i);
  const commitSeconds = (performance.now() - started) / 1000;
  await Promise.race([allIn, new Promise((r) => setTimeout(r, 60_000))]);
  const deliverSeconds = (performance.now() - started) / 1000;
  const throughputReceived = received;

  // Latency, paced: the next event is committed once every session has the previous one.
  latencies.length = 0;
  const paced = Math.min(500, count);
  for (let i = 0; i < paced; i++) {
    const before = received;
    await commitOne(count + i);
    while (received < before + sessions) await new Promise((r) => setImmediate(r));
  }

  // Baseline: the same commits with nobody listening.
  const base = await openStore({ dataDir: join(dataDir, 'baseline'), secretKey: 'bench' });
  const acc2 = await base.accounts.add({ provider: 'outlook', secret: { kind: 'token', token: 'bench-token-000' } });
  const t2 = await base.triggers.create({ kind: 'outlook.new_email', accountId: acc2.id, config: {} });
  const b0 = performance.now();
  for (let i = 0; i < count; i++) await base.triggers.commit(t2.id, { events: [{ dedupeKey: `e${i}`, occurredAt: new Date().toISOString(), summary: `event ${i}`, payload: { i } }] });
  const baseSeconds = (performance.now() - b0) / 1000;

  for (const c of clients) await c.close();
  await listener.close();
  log.stop();
  await store.close();
  await base.close();
  rmSync(dataDir, { recursive: true, force: true });

  const lat = summary(latencies);
  const rate = count / commitSeconds;
  const baseRate = count / baseSeconds;
  return {
    title: `Event delivery: commits per second with ${sessions} subscribed Streamable HTTP sessions`,
    method: `Throughput: ${count} events committed back to back, one per transaction, with every session subscribed to the trigger's resource. Latency: ${paced} more events, each committed once all sessions had the previous one, timed from the start of the commit to the vendor notification at each client. Baseline: the same commits with no listener, same run.`,
    table: [
      '| measure | value |',
      '| --- | ---: |',
      `| commits/s, no subscribers (baseline) | ${baseRate.toFixed(0)} |`,
      `| commits/s, ${sessions} sessions subscribed | ${rate.toFixed(0)} |`,
      `| notifications delivered/s (all ${count * sessions} in ${deliverSeconds.toFixed(2)} s) | ${((count * sessions) / deliverSeconds).toFixed(0)} |`,
      `| commit → notification p50 (paced, ${paced} events) | ${fmt(lat.p50)} ms |`,
      `| commit → notification p99 (paced) | ${fmt(lat.p99)} ms |`,
    ],
    verdict: `Commit rate with ${sessions} subscribed sessions is ${(rate / baseRate).toFixed(2)}x the baseline; ${throughputReceived} of ${count * sessions} notifications received in the throughput phase.`,
    data: { name: 'event_delivery', events: count, sessions, commitsPerSecond: rate, baselineCommitsPerSecond: baseRate, latencyMs: lat, received: throughputReceived },
  };
}
