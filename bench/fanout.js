import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { openStore } from '../dist/store/index.js';
import { startPostgres } from './postgres.js';
import { spawnHttpServer } from './spawn.js';
import { fmt, summary } from './stats.js';

const KEY = 'bench fan-out key';

/**
 * One store, two processes: this one commits events, a `serve --http` child tells a 2026-07-28 client listening to the
 * trigger. The time from a commit returning here to the notification reaching the client, on PostgreSQL (LISTEN/NOTIFY)
 * beside SQLite (two processes on one file: the child's log polls it every 250 ms).
 */
async function oneRound(kind, pg, events, gapMs) {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-fanout-'));
  const databaseUrl = kind === 'postgres' ? await pg.database() : undefined;
  const store = await openStore({ dataDir: join(dataDir, 'writer'), databaseUrl, secretKey: KEY });
  const sqliteDir = join(dataDir, 'writer');
  const account = await store.accounts.add({ provider: 'github', secret: { kind: 'token', token: 'ghp_bench_fanout' } });
  const trigger = await store.triggers.create({ kind: 'github.push', accountId: account.id, config: { repo: 'octo/hello' } });
  const server = await spawnHttpServer({
    sandbox: false,
    dataDir: databaseUrl ? join(dataDir, 'server') : sqliteDir,
    env: { SWITCHBOARD_SECRET_KEY: KEY, ...(databaseUrl ? { SWITCHBOARD_DATABASE_URL: databaseUrl } : {}) },
  });
  const client = new Client({ name: 'bench-fanout', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  // A notification can arrive before the commit call returns here: arrivals are kept and matched afterwards.
  const arrivedAt = new Map();
  let notify;
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    arrivedAt.set(n.params._meta?.['switchboard/event']?.eventId, performance.now());
    notify?.();
  });
  const startedAt = new Map();
  const committedAt = new Map();
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
    await client.listen({ resourceSubscriptions: [`switchboard://triggers/${trigger.id}/events`] });
    for (let i = 0; i < events; i++) {
      const start = performance.now();
      const [event] = await store.triggers.commit(trigger.id, { events: [{ dedupeKey: `e${i}`, occurredAt: new Date().toISOString(), summary: `event ${i}`, payload: {} }] });
      startedAt.set(String(event.id), start);
      committedAt.set(String(event.id), performance.now());
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    const deadline = Date.now() + 5_000;
    while (arrivedAt.size < events && Date.now() < deadline) await new Promise((resolve) => ((notify = resolve), setTimeout(resolve, 100)));
    // From the moment the commit returned (a notification that beat the return counts as 0).
    const latencies = [...committedAt].filter(([id]) => arrivedAt.has(id)).map(([id, at]) => Math.max(0, arrivedAt.get(id) - at));
    const commits = [...committedAt].map(([id, at]) => at - startedAt.get(id));
    return { latencies, commits, lost: events - latencies.length };
  } finally {
    await client.close().catch(() => undefined);
    await server.close();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchFanout({ events = 200, rounds = 3, gapMs = 20 } = {}) {
  const pg = await startPostgres();
  const runs = { sqlite: [], postgres: [] };
  try {
    for (let r = 0; r < rounds; r++) for (const kind of r % 2 ? ['postgres', 'sqlite'] : ['sqlite', 'postgres']) runs[kind].push(await oneRound(kind, pg, events, gapMs));
  } finally {
    await pg.stop();
  }
  const of = (kind) => summary(runs[kind].flatMap((r) => r.latencies));
  const commit = (kind) => summary(runs[kind].flatMap((r) => r.commits));
  const lost = (kind) => runs[kind].reduce((n, r) => n + r.lost, 0);
  const sqlite = of('sqlite');
  const postgres = of('postgres');
  return {
    title: 'Commit on one instance to notification on another',
    method:
      `This process commits ${events} events, one every ${gapMs} ms, to a github.push trigger; a \`serve --http\` child on the same store has a 2026-07-28 client ` +
      `(SDK v2) listening to the trigger's events; each arrival is matched to its commit by the event id in \`_meta\`, timed from the moment the commit returned (an arrival before that counts as 0); the commit's own time is shown beside it. ${rounds} rounds per store, alternating. ` +
      'PostgreSQL: the child hears each commit through LISTEN/NOTIFY. SQLite (the baseline, one machine): two processes on one file, the child polls its log every 250 ms.',
    table: [
      '| store | p50 | p90 | p99 | events | not delivered | the commit itself, p50 |',
      '|---|---|---|---|---|---|---|',
      `| SQLite, polled (baseline) | ${fmt(sqlite.p50)} | ${fmt(sqlite.p90)} | ${fmt(sqlite.p99)} | ${sqlite.n} | ${lost('sqlite')} | ${fmt(commit('sqlite').p50)} |`,
      `| PostgreSQL, LISTEN/NOTIFY | ${fmt(postgres.p50)} | ${fmt(postgres.p90)} | ${fmt(postgres.p99)} | ${postgres.n} | ${lost('postgres')} | ${fmt(commit('postgres').p50)} |`,
    ],
    verdict:
      `Cross-instance commit to notification on PostgreSQL: p50 ${fmt(postgres.p50)} ms, p99 ${fmt(postgres.p99)} ms (target p99 ≤ 100 ms: ${postgres.p99 <= 100 && lost('postgres') === 0 ? 'met' : 'NOT met'}); ` +
      `${(sqlite.p50 / postgres.p50).toFixed(1)}x faster at the median than two processes polling one SQLite file.`,
    data: { name: 'fanout', events, rounds, gapMs, sqlite, postgres, commit: { sqlite: commit('sqlite'), postgres: commit('postgres') }, lost: { sqlite: lost('sqlite'), postgres: lost('postgres') } },
  };
}
