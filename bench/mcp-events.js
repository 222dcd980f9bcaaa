import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool, request } from 'undici';
import { openStore } from '../dist/store/index.js';
import { cpuMs, spawnHttpServer } from './spawn.js';
import { fmt, percentile } from './stats.js';
import { bodies, REPO, signed } from './webhooks.js';
import { MODERN } from './wire.js';

const SECRET_KEY = 'bench-mcp-events-key';
const NAME = 'github.new_issue';
const ARGS = { repo: `${REPO.owner}/${REPO.name}` };
const TARGETS = { p99Ms: 250, rateRatio: 1.0 };
const WAIT_MS = 60_000;
/** CLOCK_MONOTONIC in ms: the receivers' process reads the same clock. */
const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** bench/event-receivers.mjs in its own process; `ask(type, args)` resolves with its answer. */
async function startReceivers() {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./event-receivers.mjs', import.meta.url))], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await new Promise((resolve, reject) => (child.once('message', resolve), child.once('error', reject)));
  const pending = new Map();
  let next = 0;
  child.on('message', (m) => (pending.get(m.id)?.(m), pending.delete(m.id)));
  const ask = (type, args = {}) => new Promise((resolve) => (pending.set(++next, resolve), child.send({ id: next, type, ...args })));
  return {
    pid: child.pid,
    ask,
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await ask('close');
      await exited;
    },
  };
}

/** One 2026-07-28 request POSTed with undici, as raw JSON-RPC; its result, or an error with the answer. */
async function rpc(mcpUrl, method, params) {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': method, 'mcp-name': params.name };
  const res = await request(mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta, ...params } }) });
  const text = await res.body.text();
  const message = JSON.parse(/^data: (.+)$/m.exec(text)?.[1] ?? text);
  if (!message.result || message.result.isError) throw new Error(`${method} answered HTTP ${res.statusCode}: ${text.slice(0, 500)}`);
  return message.result;
}

/**
 * A spawned `switchboard serve --sandbox --http` whose `count` receivers hear of each new issue of the sandbox
 * repository: by `count` MCP Events webhook subscriptions (one trigger shared), or by `count` triggers each with a
 * forward URL (today's forwarding; the triggers share the repository's one GitHub hook).
 */
async function startTarget({ via, count, receivers, items, nodeArgs }) {
  const port = await freePort();
  const server = await spawnHttpServer({
    // The per-person delivery rate is lifted: the bench measures how fast deliveries go, not the limit.
    env: { SWITCHBOARD_SECRET_KEY: SECRET_KEY, SWITCHBOARD_EVENTS_MAX_SUBSCRIPTIONS: String(count), SWITCHBOARD_EVENTS_MAX_PER_MINUTE: '100000' },
    extraArgs: ['--port', String(port), '--public-url', `http://127.0.0.1:${port}`],
    nodeArgs,
  });
  const group = `${via}-${count}`;
  try {
    if (via === 'subscriptions') {
      const secrets = Array.from({ length: count }, () => 'whsec_' + randomBytes(32).toString('base64'));
      const { urls } = await receivers.ask('open', { group, count, mode: 'standard', secrets });
      for (const [i, url] of urls.entries()) {
        await rpc(server.mcpUrl, 'events/subscribe', { name: NAME, arguments: ARGS, delivery: { mode: 'webhook', url, secret: secrets[i] }, ttlMs: 24 * 3_600_000 });
      }
    } else {
      const { urls } = await receivers.ask('open', { group, count, mode: 'forward' });
      const secrets = [];
      for (const url of urls) {
        const made = await rpc(server.mcpUrl, 'tools/call', { name: 'triggers_create', arguments: { kind: NAME, config: ARGS, forward_url: url } });
        secrets.push(made.structuredContent.forward_secret);
      }
      await receivers.ask('secrets', { group, secrets });
    }
    // The hook the triggers share and its secret, read from the server's store (serve --sandbox keeps it in sandbox/).
    const store = await openStore({ dataDir: join(server.dataDir, 'sandbox'), secretKey: SECRET_KEY });
    const triggers = await store.triggers.list({ kind: NAME });
    const hookIds = [...new Set(triggers.map((t) => t.providerRefs.hookId))];
    const secret = hookIds.length === 1 ? await store.hooks.secret(hookIds[0]) : undefined;
    await store.close();
    if (!secret) throw new Error(`expected the ${via}' triggers to share one hook, found ${hookIds.length}`);
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 8 });
    return {
      via,
      count,
      group,
      pid: server.pid,
      triggers: triggers.length,
      pool,
      path: `/webhooks/github/${hookIds[0]}`,
      items: new Map(signed(items, secret).map((d, i) => [i, d])),
      commitAt: new Map(),
      expected: 0,
      rounds: [],
      latencies: [],
      lost: 0,
      close: async () => (await pool.close(), await server.close()),
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/** POSTs the signed GitHub delivery of item `i`; its commit time is when the intake's 200 arrives (it commits first). */
async function deliver(target, i) {
  const d = target.items.get(i);
  const headers = { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-github-delivery': d.id, 'x-hub-signature-256': d.signature };
  const res = await target.pool.request({ method: 'POST', path: target.path, body: d.body, headers });
  const at = now();
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`the webhook intake answered ${res.statusCode} for ${d.id}`);
  target.commitAt.set(i + 1, at);
}

/** Waits until every receiver of the target has verified everything sent so far; the arrivals since the last call. */
async function collect(target, receivers) {
  await receivers.ask('wait', { group: target.group, total: target.expected, ms: WAIT_MS });
  const taken = await receivers.ask('take', { group: target.group });
  target.lost = target.expected - taken.verified;
  Object.assign(target, { duplicates: taken.duplicates, failures: taken.failures });
  return taken.arrivals;
}

/** One event at a time, each after a random pause and once the last was received by all: commit to receipt, unqueued. */
async function latencyRound(target, receivers, indexes, gapMs) {
  for (const i of indexes) {
    await sleep(Math.random() * gapMs);
    await deliver(target, i);
    target.expected += target.count;
    await receivers.ask('wait', { group: target.group, total: target.expected, ms: WAIT_MS });
  }
  return (await collect(target, receivers)).map(([, n, at]) => at - target.commitAt.get(n));
}

/** The events sent together (`concurrency` in flight): deliveries per second from the first POST to the last receipt, CPU per delivery. */
async function burstRound(target, receivers, indexes, concurrency) {
  const queue = [...indexes];
  const [serverCpu0, receiversCpu0, start] = [cpuMs(target.pid), cpuMs(receivers.pid), now()];
  const sender = async () => {
    while (queue.length) await deliver(target, queue.shift());
  };
  await Promise.all(Array.from({ length: concurrency }, sender));
  target.expected += indexes.length * target.count;
  const arrivals = await collect(target, receivers);
  const deliveries = indexes.length * target.count;
  const last = Math.max(...arrivals.map(([, , at]) => at));
  return {
    perSecond: (arrivals.length * 1000) / (last - start),
    cpuPerDelivery: (cpuMs(target.pid) - serverCpu0) / deliveries,
    receiversCpuPerDelivery: (cpuMs(receivers.pid) - receiversCpu0) / deliveries,
    p99: percentile(arrivals.map(([, n, at]) => at - target.commitAt.get(n)), 99),
  };
}

const shuffled = (items) => items.map((x) => [Math.random(), x]).sort((a, b) => a[0] - b[0]).map(([, x]) => x);
const range = (from, count) => Array.from({ length: count }, (_, k) => from + k);
const middle = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * MCP Events webhook delivery against today's forwarding, on spawned servers: commit-to-verified-receipt latency with 1
 * and 100 subscriptions, deliveries per second and server CPU per delivery to 100 receivers.
 */
export async function benchMcpEvents({ rounds = 5, latencyEvents = 30, burstEvents = 20, fanout = 100, gapMs = 40, concurrency = 4, profileDir } = {}) {
  const warm = { latency: 5, burst: 10 };
  const perRound = latencyEvents + burstEvents;
  const items = bodies(warm.latency + warm.burst + rounds * perRound);
  const nodeArgs = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const receivers = await startReceivers();
  const targets = [];
  try {
    for (const [via, count] of [['subscriptions', 1], ['forwards', 1], ['subscriptions', fanout], ['forwards', fanout]]) {
      targets.push(await startTarget({ via, count, receivers, items, nodeArgs }));
    }
    for (const target of targets) {
      await latencyRound(target, receivers, range(0, warm.latency), gapMs);
      await burstRound(target, receivers, range(warm.latency, warm.burst), concurrency);
    }
    for (let r = 0; r < rounds; r++) {
      const first = warm.latency + warm.burst + r * perRound;
      for (const target of shuffled(targets)) {
        target.latencies.push(...(await latencyRound(target, receivers, range(first, latencyEvents), gapMs)));
        target.rounds.push(await burstRound(target, receivers, range(first + latencyEvents, burstEvents), concurrency));
      }
    }
  } finally {
    for (const target of targets) await target.close();
    await receivers.close();
  }
  return report({ targets, rounds, latencyEvents, burstEvents, fanout, gapMs, concurrency, bytes: Buffer.byteLength(items[0].body) });
}

function report({ targets, rounds, latencyEvents, burstEvents, fanout, gapMs, concurrency, bytes }) {
  const find = (via, count) => targets.find((t) => t.via === via && t.count === count);
  const summarise = (t) => ({
    latency: { n: t.latencies.length, p50: percentile(t.latencies, 50), p90: percentile(t.latencies, 90), p99: percentile(t.latencies, 99) },
    perSecond: middle(t.rounds.map((x) => x.perSecond)),
    cpuPerDelivery: middle(t.rounds.map((x) => x.cpuPerDelivery)),
    receiversCpuPerDelivery: middle(t.rounds.map((x) => x.receiversCpuPerDelivery)),
    burstP99: middle(t.rounds.map((x) => x.p99)),
  });
  const label = (t) => `${t.via === 'subscriptions' ? 'MCP Events' : 'forwarding (baseline)'}, ${t.count} ${t.via === 'subscriptions' ? 'subscription' : 'trigger'}${t.count > 1 ? 's' : ''} (${t.triggers} trigger${t.triggers > 1 ? 's' : ''})`;
  const rows = targets.map((t) => {
    const s = summarise(t);
    return `| ${label(t)} | ${fmt(s.latency.p50)} | ${fmt(s.latency.p90)} | ${fmt(s.latency.p99)} | ${s.perSecond.toFixed(0)} | ${t.rounds.map((x) => x.perSecond.toFixed(0)).join(', ')} | ${fmt(s.burstP99)} | ${fmt(s.cpuPerDelivery)} | ${fmt(s.receiversCpuPerDelivery)} | ${t.lost} / ${t.duplicates} / ${t.failures} |`;
  });
  const [one, many, forwards] = [find('subscriptions', 1), find('subscriptions', fanout), find('forwards', fanout)];
  const [s1, sN, fN] = [one, many, forwards].map(summarise);
  // A ratio is the median of the rounds' own ratios: a round goes to both servers within seconds.
  const rateRatio = middle(many.rounds.map((x, i) => x.perSecond / forwards.rounds[i].perSecond));
  const cpuRatio = middle(many.rounds.map((x, i) => x.cpuPerDelivery / forwards.rounds[i].cpuPerDelivery));
  const met = (ok) => (ok ? 'met' : 'NOT met');
  const clean = targets.every((t) => !t.lost && !t.duplicates && !t.failures);
  const verdict =
    `Commit to verified receipt, p99: ${fmt(s1.latency.p99)} ms with 1 subscription, ${fmt(sN.latency.p99)} ms with ${fanout} (p50 ${fmt(s1.latency.p50)} / ${fmt(sN.latency.p50)} ms); ` +
    `target p99 ≤ ${TARGETS.p99Ms} ms: 1 subscription ${met(s1.latency.p99 <= TARGETS.p99Ms)}, ${fanout} ${met(sN.latency.p99 <= TARGETS.p99Ms)}. ` +
    `To ${fanout} receivers, ${sN.perSecond.toFixed(0)} deliveries/s against ${fN.perSecond.toFixed(0)}/s forwarding, ${rateRatio.toFixed(2)}x; target ≥ ${TARGETS.rateRatio.toFixed(1)}x: ${met(rateRatio >= TARGETS.rateRatio)}. ` +
    `Server CPU ${fmt(sN.cpuPerDelivery)} ms per delivery against ${fmt(fN.cpuPerDelivery)} ms forwarding (${cpuRatio.toFixed(2)}x). ` +
    (clean ? 'Every delivery was verified by its receiver exactly once.' : 'NOT every delivery was verified exactly once: see lost / duplicates / bad signatures.');
  return {
    title: 'MCP Events webhook delivery: commit to verified receipt, and fan-out to 100 receivers beside forwarding',
    method:
      `Four spawned \`switchboard serve --sandbox --http\` servers, each on its own store, with receivers (node:http on 127.0.0.1, one port each, all in one process ` +
      `of their own, bench/event-receivers.mjs) that verify every POST before counting it: Standard Webhooks with the \`standardwebhooks\` library for MCP event ` +
      `deliveries, X-Switchboard-Signature-256 for forwards. On two servers raw JSON-RPC \`events/subscribe\` calls make 1 and ${fanout} ${NAME} webhook subscriptions ` +
      `(distinct callback URLs, the same name and arguments: one shared trigger; each callback answers the signed challenge); on the other two \`triggers_create\` makes ` +
      `1 and ${fanout} ${NAME} triggers each with a \`forward_url\` (today's forwarding: a trigger forwards to one URL, so ${fanout} receivers take ${fanout} triggers, ` +
      `which share the repository's one GitHub hook, and each GitHub delivery commits ${fanout} events). Events are committed by POSTing signed GitHub \`issues.opened\` ` +
      `deliveries (a real payload, ${bytes} bytes) to the server's webhook intake; "commit" is the moment the intake's 200 reaches the sender (the event is committed ` +
      `before it), receipt the moment the receiver's signature check passed, both read from CLOCK_MONOTONIC (process.hrtime) in their own processes. After a warm-up, ` +
      `${rounds} rounds, each to every server in a new random order: ${latencyEvents} deliveries one at a time, each after a random pause of up to ${gapMs} ms and once the ` +
      `last was received everywhere (latency, pooled over the rounds), then ${burstEvents} deliveries with ${concurrency} in flight (deliveries per second from the first ` +
      `POST to the last receipt; server CPU from /proc over the same span, intake included, divided by the deliveries). Rates and CPU are the median round; a ratio is ` +
      `the median of the rounds' own ratios.`,
    table: [
      '| server | latency p50 ms | p90 | p99 | deliveries/s (burst) | rounds | burst p99 ms | server CPU ms per delivery | receivers CPU ms per delivery | lost / duplicates / bad signatures |',
      '| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |',
      ...rows,
    ],
    verdict,
    data: {
      name: 'mcp_events',
      rounds,
      latencyEvents,
      burstEvents,
      fanout,
      rateRatio,
      cpuRatio,
      servers: targets.map((t) => ({ via: t.via, count: t.count, triggers: t.triggers, lost: t.lost, duplicates: t.duplicates, failures: t.failures, rounds: t.rounds, ...summarise(t) })),
    },
  };
}
