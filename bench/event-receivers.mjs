// Webhook receivers for bench/mcp-events.js, in a process of their own so that their CPU is not the server's. Each is a
// node:http server on 127.0.0.1 that verifies every POST's signature before it counts it as received: Standard
// Webhooks (the `standardwebhooks` library) for MCP event deliveries, X-Switchboard-Signature-256 for forwards. The
// receive time is process.hrtime (CLOCK_MONOTONIC, the same clock in every process of this machine), in ms.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const now = () => Number(process.hrtime.bigint()) / 1e6;
/** Bench bodies are GitHub issues titled "Bench issue <n>": n names the delivery whatever shape carries it. */
const issueNumber = (body) => Number(/Bench issue (\d+)/.exec(body)?.[1]);

/** Per group (one server under test): its receivers, what they verified and when, and who waits for a count. */
const groups = new Map();

function verifier(mode, secret) {
  if (mode === 'standard') {
    const webhook = new Webhook(secret);
    return (body, headers) => {
      webhook.verify(body, headers);
      return headers['webhook-id'];
    };
  }
  return (body, headers) => {
    const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(body).digest('hex'));
    const given = Buffer.from(String(headers['x-switchboard-signature-256'] ?? ''));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new Error('bad forward signature');
    return headers['x-switchboard-event-id'];
  };
}

function receive(group, index, body, headers) {
  const verify = group.verifiers[index];
  if (!verify) return { status: 503 };
  let id;
  try {
    id = verify(body, headers);
  } catch {
    group.failures++;
    return { status: 400 };
  }
  const at = now();
  const parsed = body.startsWith('{"type":"verification"') ? JSON.parse(body) : undefined;
  if (parsed?.type === 'verification') return { status: 200, body: JSON.stringify({ challenge: parsed.challenge }) };
  const key = `${index} ${id}`;
  if (group.seen.has(key)) group.duplicates++;
  else {
    group.seen.add(key);
    group.arrivals.push([index, issueNumber(body), at]);
    group.verified++;
    for (const waiter of [...group.waiters]) if (group.verified >= waiter.total) (group.waiters.delete(waiter), waiter.done());
  }
  return { status: 204 };
}

async function open({ group: name, count, mode, secrets }) {
  const group = { mode, verifiers: [], servers: [], arrivals: [], seen: new Set(), verified: 0, failures: 0, duplicates: 0, waiters: new Set() };
  groups.set(name, group);
  const urls = [];
  for (let index = 0; index < count; index++) {
    if (secrets?.[index]) group.verifiers[index] = verifier(mode, secrets[index]);
    const server = createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const answer = receive(group, index, Buffer.concat(chunks).toString('utf8'), req.headers);
        res.writeHead(answer.status, answer.body ? { 'content-type': 'application/json' } : {}).end(answer.body);
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    group.servers.push(server);
    urls.push(`http://127.0.0.1:${server.address().port}/hook`);
  }
  return { urls };
}

const handlers = {
  open,
  /** Secrets learnt after the receivers were opened (a forward's secret is made with its trigger). */
  secrets: ({ group, secrets }) => {
    const g = groups.get(group);
    secrets.forEach((secret, index) => (g.verifiers[index] = verifier(g.mode, secret)));
    return {};
  },
  /** Answers once `total` distinct deliveries have been verified in the group, or after `ms` with what there is. */
  wait: ({ group, total, ms }) =>
    new Promise((resolve) => {
      const g = groups.get(group);
      const answer = () => resolve({ verified: g.verified });
      if (g.verified >= total) return answer();
      const waiter = { total, done: () => (clearTimeout(timer), answer()) };
      const timer = setTimeout(() => (g.waiters.delete(waiter), answer()), ms);
      g.waiters.add(waiter);
    }),
  /** The arrivals since the last take ([receiver index, issue number, ms]), and the counts so far. */
  take: ({ group }) => {
    const g = groups.get(group);
    const arrivals = g.arrivals;
    g.arrivals = [];
    return { arrivals, verified: g.verified, failures: g.failures, duplicates: g.duplicates };
  },
  close: async () => {
    for (const g of groups.values()) for (const s of g.servers) (s.closeAllConnections(), s.close());
    setImmediate(() => process.exit(0));
    return {};
  },
};

process.on('message', async ({ id, type, ...args }) => process.send({ id, ...(await handlers[type](args)) }));
process.send({ ready: true });
