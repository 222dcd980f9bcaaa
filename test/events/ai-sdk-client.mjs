// An agent app built on the AI SDK (@ai-sdk/mcp, which needs Node 22): it connects to Switchboard, receives MCP events
// at its own webhook (the SDK's receiver, which verifies each signature) and says what happened as JSON lines on
// stdout. Lines on stdin drive it: {"do":"list"}, {"do":"subscribe",...}, {"do":"refresh"}, {"do":"unsubscribe"}, {"do":"close"}.
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { experimental_createMCPClient as createMCPClient, experimental_createMCPEventWebhook as createMCPEventWebhook } from '@ai-sdk/mcp';

const { url, token, discovery = true } = JSON.parse(process.argv[2]);
const say = (line) => process.stdout.write(JSON.stringify(line) + '\n');

/** The application's private subscription store: kept in memory for the life of this process. */
const records = new Map();
const store = {
  get: async (key) => records.get(key),
  getById: async (id) => [...records.values()].find((r) => r.id === id),
  set: async (record) => void records.set(record.key, structuredClone(record)),
  update: async (key, patch) => void records.set(key, { ...records.get(key), ...structuredClone(patch) }),
  delete: async (key) => void records.delete(key),
};

const receive = createMCPEventWebhook({
  store,
  onEvent: async ({ subscription, event }) => say({ event, subscription: subscription.id }),
  onGap: async ({ gap }) => say({ gap }),
  onTerminated: async ({ termination }) => say({ terminated: termination }),
  onError: (error) => say({ receiverError: String(error?.message ?? error) }),
});

const receiver = createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers, body: req.method === 'POST' ? body : undefined });
  const response = await receive(request);
  say({ received: { webhookId: req.headers['webhook-id'], status: response.status, control: /^msg_/.test(String(req.headers['webhook-id'])) } });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

const client = await createMCPClient({
  transport: { type: 'http', url, headers: token ? { authorization: `Bearer ${token}` } : {} },
  experimental_events: { store },
  protocolVersionDiscovery: discovery,
});
say({ ready: true, hookUrl });

let subscription;
const steps = {
  async list() {
    const { events } = await client.experimental_events.list();
    return { listed: events.map((e) => ({ name: e.name, delivery: e.delivery })) };
  },
  async subscribe({ name, arguments: args, ttlMs, cursor, maxAgeMs }) {
    subscription = await client.experimental_events.subscribe({
      name,
      arguments: args,
      delivery: { mode: 'webhook', url: hookUrl, allowInsecureLocalhost: true },
      ...(ttlMs !== undefined ? { ttlMs } : {}),
      ...(cursor !== undefined ? { cursor } : {}),
      ...(maxAgeMs !== undefined ? { maxAgeMs } : {}),
    });
    return { subscribed: subscription };
  },
  async refresh() {
    return { refreshed: await client.experimental_events.refresh({ id: subscription.id }) };
  },
  async unsubscribe() {
    await client.experimental_events.unsubscribe({ id: subscription.id });
    return { unsubscribed: subscription.id };
  },
  async stored() {
    return { stored: [...records.values()].map(({ delivery: { secret: _secret, ...delivery }, ...rest }) => ({ ...rest, delivery })) };
  },
  async close() {
    await client.close();
    receiver.close();
    say({ closed: true });
    process.exit(0);
  },
};

for await (const line of createInterface({ input: process.stdin })) {
  const { do: step, ...input } = JSON.parse(line);
  try {
    say(await steps[step](input));
  } catch (error) {
    say({ error: { step, message: String(error?.message ?? error), cause: String(error?.cause?.message ?? '') } });
  }
}
