import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import examples from '@octokit/webhooks-examples' with { type: 'json' };
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Pool } from 'undici';
import { Redactor } from '../dist/redact.js';
import { openStore } from '../dist/store/index.js';
import { spawnHttpServer } from './spawn.js';
import { fmt, percentile } from './stats.js';

const REPO = { owner: 'sbx-octocat', name: 'hello-world' };
const ROUNDS = 3;
const WARM_UP = 1000;

/** The round with the median rate. */
const median = (rounds) => [...rounds].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(rounds.length / 2)];
const SECRET_KEY = 'bench-secret-key';

/** A GitHub account, a repository hook with its secret and a github.new_issue trigger on it, written before the server starts. */
async function seed(dataDir) {
  const store = await openStore({ dataDir, secretKey: SECRET_KEY, redactor: new Redactor() });
  const account = await store.accounts.add({ provider: 'github', label: 'bench', secret: { kind: 'token', token: 'ghp_bench' } });
  const target = `repo:${REPO.owner}/${REPO.name}`;
  const { hook, secret } = await store.hooks.create({ provider: 'github', accountId: account.id, target, events: ['issues'] });
  const trigger = await store.triggers.create({ kind: 'github.new_issue', accountId: account.id, config: { repo: `${REPO.owner}/${REPO.name}` }, providerRefs: { hookId: hook.id, target } });
  await store.close();
  return { hookId: hook.id, secret, triggerId: trigger.id };
}

/** `count` distinct signed `issues.opened` deliveries (a real payload from @octokit/webhooks-examples). */
function deliveries(count, secret) {
  const sample = examples.find((e) => e.name === 'issues').examples.find((x) => x.action === 'opened');
  return Array.from({ length: count }, (_, i) => {
    const payload = structuredClone(sample);
    payload.issue.number = i + 1;
    payload.issue.title = `Bench issue ${i + 1}`;
    payload.repository.name = REPO.name;
    payload.repository.full_name = `${REPO.owner}/${REPO.name}`;
    payload.repository.owner.login = REPO.owner;
    const body = JSON.stringify(payload);
    const signature = 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
    return { id: `bench-${i}-${Date.now()}`, body, signature };
  });
}

async function post(pool, path, items, concurrency) {
  const latencies = [];
  let next = 0;
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const d = items[next++];
        const start = performance.now();
        const res = await pool.request({
          method: 'POST',
          path,
          body: d.body,
          headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-github-delivery': d.id, 'x-hub-signature-256': d.signature },
        });
        await res.body.dump();
        if (res.statusCode >= 300) failed++;
        latencies.push(performance.now() - start);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { perSecond: items.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failed };
}

/** The signature check alone, as the intake does it: HMAC-SHA256 of the raw bytes, compared in constant time. */
function verifyOnly(items, secret) {
  const t0 = performance.now();
  for (const d of items) {
    const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(Buffer.from(d.body)).digest('hex'));
    if (!timingSafeEqual(expected, Buffer.from(d.signature))) throw new Error('bad signature');
  }
  return items.length / ((performance.now() - t0) / 1000);
}

/** A node:http server that reads the body and answers 204: what the HTTP exchange alone costs. */
async function bareHttp(items, concurrency) {
  const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const pool = new Pool(`http://127.0.0.1:${server.address().port}`, { connections: concurrency });
  try {
    return await post(pool, '/', items, concurrency);
  } finally {
    await pool.close();
    await new Promise((r) => server.close(r));
  }
}

/** Signed GitHub deliveries per second through verify, dedupe, commit and notify, in a spawned `switchboard serve --http`. */
export async function benchWebhooks({ count = 6000, concurrency = 32, nodeArgs = [], subscribe = true } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-hooks-'));
  const { hookId, secret, triggerId } = await seed(dataDir);
  const items = deliveries(count, secret);
  const server = await spawnHttpServer({ sandbox: false, dataDir, nodeArgs, env: { SWITCHBOARD_SECRET_KEY: SECRET_KEY } });
  try {
    const client = await server.client();
    let notified = 0;
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => void notified++);
    if (subscribe) await client.subscribeResource({ uri: `switchboard://triggers/${triggerId}/events` });
    const pool = new Pool(new URL(server.mcpUrl).origin, { connections: concurrency });
    // The first deliveries run before the JIT and SQLite's caches settle: they are a warm-up, not a round.
    await post(pool, `/webhooks/github/${hookId}`, deliveries(WARM_UP, secret), concurrency);
    // Three rounds, each beside the bare node:http baseline, since neighbours on this machine come and go.
    const round = Math.floor(count / ROUNDS);
    const intakes = [];
    const https = [];
    for (let r = 0; r < ROUNDS; r++) {
      intakes.push(await post(pool, `/webhooks/github/${hookId}`, items.slice(r * round, (r + 1) * round), concurrency));
      https.push(await bareHttp(items.slice(r * round, (r + 1) * round), concurrency));
    }
    const intake = median(intakes);
    const http = median(https);
    const deadline = Date.now() + 10_000;
    while (subscribe && notified < round * ROUNDS + WARM_UP && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const { triggers } = (await client.callTool({ name: 'triggers_list', arguments: {} })).structuredContent;
    const fired = triggers.find((t) => t.id === triggerId).fired;
    await pool.close();
    await client.close();
    const verify = verifyOnly(items, secret);
    return {
      title: 'Webhook intake: signed GitHub deliveries',
      method:
        `${ROUNDS} rounds of ${Math.floor(count / ROUNDS)} distinct \`issues.opened\` deliveries (a real payload, ${Buffer.byteLength(items[0].body)} bytes, signed beforehand), ${concurrency} in flight, POSTed to a spawned ` +
        '`switchboard serve --http` holding a github.new_issue trigger, with one MCP session subscribed to its events; each goes through signature check, dedupe, ' +
        `commit before the 200, and notify. Rates are the median round, after ${WARM_UP} warm-up deliveries. Baselines, same run: the signature check alone in a loop, and after each round the same load to a node:http server that only answers 204.`,
      table: [
        '| path | deliveries/s | p50 ms | p99 ms |',
        '| --- | ---: | ---: | ---: |',
        `| verify only (baseline) | ${verify.toFixed(0)} | | |`,
        `| bare node:http, 204 (baseline) | ${http.perSecond.toFixed(0)} | ${fmt(http.p50)} | ${fmt(http.p99)} |`,
        `| Switchboard intake | ${intake.perSecond.toFixed(0)} | ${fmt(intake.p50)} | ${fmt(intake.p99)} |`,
      ],
      verdict:
        `${intake.perSecond.toFixed(0)} deliveries per second (median of ${ROUNDS} rounds: ${intakes.map((r) => r.perSecond.toFixed(0)).join(', ')}; p99 ${fmt(intake.p99)} ms), ` +
        `${intakes.reduce((n, r) => n + r.failed, 0)} refused, ${fired} events committed of ${round * ROUNDS + WARM_UP} sent, ` +
        `${notified} notifications received; target ≥ 2,000/s: ${intake.perSecond >= 2000 && intakes.every((r) => r.failed === 0) ? 'met' : 'NOT met'}.`,
      data: { name: 'webhook_intake', count, concurrency, rounds: intakes, verifyPerSecond: verify, bareHttp: http, intake, fired, notified },
    };
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
