import { rounds } from './overhead.js';
import { spawnWithBareV2 } from './spawn.js';
import { fmt } from './stats.js';
import { LEGACY, legacyClient, MODERN, modernClient, rawToolCall } from './wire.js';

// Reads the store and nothing else: no provider, no upstream request, so the call is Switchboard's own path.
const TOOL = 'accounts_list';

const signed = (ms) => `${ms >= 0 ? '+' : ''}${fmt(ms)}`;

const viaClient = (client) => async () => {
  const r = await client.callTool({ name: TOOL, arguments: {} });
  if (r.isError || !Array.isArray(r.structuredContent?.accounts)) throw new Error(`${TOOL}: ${JSON.stringify(r).slice(0, 300)}`);
};

const wrap = (client) => ({ call: viaClient(client), close: () => client.close() });

/** A 2025 session opened by an SDK client, then called with undici. */
async function withSession(url) {
  const client = await legacyClient(url);
  const raw = rawToolCall(url, TOOL, { sessionId: client.transport.sessionId });
  return { call: raw.call, close: () => Promise.all([raw.close(), client.close()]) };
}

/** Each way of calling, on Switchboard and on the bare server: `[label, revision, target ms, (url) => { call, close }]`. */
const WAYS = [
  ['POSTed with undici', MODERN, 0.5, async (url) => rawToolCall(url, TOOL)],
  ['SDK v2 client', MODERN, 1.0, async (url) => wrap(await modernClient(url))],
  ['POSTed with undici on a session', LEGACY, undefined, async (url) => withSession(url)],
  ['SDK v1 client', LEGACY, undefined, async (url) => wrap(await legacyClient(url))],
];

/** Time Switchboard adds to one tool call at the median, by revision and client, over a bare SDK v2 server in the same rounds. */
export async function benchRevisionOverhead({ calls = 1000 } = {}) {
  const { server, bare, answerBytes } = await spawnWithBareV2(TOOL);
  const opened = [];
  try {
    const paths = {};
    for (const [label, revision, , open] of WAYS) {
      // 2025 sessions on the bare server also with an event store, as Switchboard keeps them: what resumable streams cost the SDK.
      const sides = [['switchboard', server.mcpUrl], ['bare', bare.mcpUrl], ...(revision === LEGACY ? [['resumable', `${bare.mcpUrl}-resumable`]] : [])];
      for (const [side, url] of sides) {
        const way = await open(url);
        opened.push(way);
        paths[`${revision} ${label}: ${side}`] = way.call;
      }
    }
    const times = await rounds(paths, calls);
    const rows = WAYS.map(([label, revision, target]) => {
      const sb = times[`${revision} ${label}: switchboard`];
      const base = times[`${revision} ${label}: bare`];
      const resumable = times[`${revision} ${label}: resumable`];
      return { revision, label, target, bare: base, resumable, switchboard: sb, addedMs: sb.p50 - base.p50, ratio: sb.p50 / base.p50 };
    });
    const met = (r) => (r.target === undefined ? '–' : r.addedMs <= r.target ? `≤ ${r.target}: met` : `≤ ${r.target}: NOT met`);
    const line = (r) =>
      `| ${r.revision} | ${r.label} | ${fmt(r.bare.p50)} | ${fmt(r.switchboard.p50)} | ${fmt(r.bare.p90)} | ${fmt(r.switchboard.p90)} | ` +
      `${fmt(r.addedMs)} | ${r.ratio.toFixed(2)}x | ${met(r)} |`;
    const resumableRows = rows.filter((r) => r.resumable);
    const say = (r) => `${r.revision} ${r.label} ${signed(r.addedMs)} ms (${r.ratio.toFixed(2)}x${r.target === undefined ? '' : `, ${met(r)}`})`;
    return {
      title: `Tool-call overhead by revision: ${TOOL} vs a bare SDK v2 server`,
      method:
        `A spawned \`switchboard serve --sandbox --http\` answering ${TOOL} (a read of its own store: no provider, no upstream request), ` +
        `beside a bare SDK v2 server (bench/bare-v2-server.mjs, its own process: \`createMcpHandler\` + \`toNodeHandler\` on node:http for ${MODERN}, ` +
        `the SDK's Node transport in sessions for ${LEGACY}) whose one tool has the same name and returns Switchboard's answer verbatim ` +
        `(${answerBytes} bytes of result). ${MODERN}: stateless requests carrying the revision, client info and capabilities in \`_meta\` and ` +
        `Mcp-Method/Mcp-Name headers, POSTed with undici on a keep-alive connection, and sent by an SDK v2 client pinned to ${MODERN}. ` +
        `${LEGACY}: an SDK v1 client's session, and the same tools/call POSTed with undici on it; on the bare server also with an event store ` +
        `(resumable streams, which Switchboard keeps: each POST stream opens with a priming event). ${calls} rounds after 100 warm-up rounds, ` +
        'every path once per round, in a new random order each round. Targets for the time added at the median: 0.5 ms without an SDK client, 1 ms with one.',
      table: [
        '| revision | client | bare p50 | switchboard p50 | bare p90 | switchboard p90 | added at p50 | ratio | target |',
        '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
        ...rows.map(line),
        '',
        `| ${LEGACY} session, client | bare p50 | bare with an event store p50 | switchboard p50 |`,
        '| --- | ---: | ---: | ---: |',
        ...resumableRows.map((r) => `| ${r.label} | ${fmt(r.bare.p50)} | ${fmt(r.resumable.p50)} | ${fmt(r.switchboard.p50)} |`),
      ],
      verdict:
        `Added at the median: ${rows.map(say).join('; ')}. ` +
        `With an event store (resumable streams, which Switchboard keeps for ${LEGACY} sessions) the bare server itself takes ` +
        `${resumableRows.map((r) => `${signed(r.resumable.p50 - r.bare.p50)} ms (${r.label})`).join(' and ')} more.`,
      data: { name: 'revision_overhead', tool: TOOL, calls, rows },
    };
  } finally {
    await Promise.all(opened.map((w) => w.close()));
    await Promise.all([server.close(), bare.close()]);
  }
}
