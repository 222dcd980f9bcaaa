// MCP sessions subscribed to one trigger's events, in a process of their own (as clients are): SDK v1 clients over
// Streamable HTTP. Usage: node subscribers.mjs <mcp url> <events uri> <sessions>, with an IPC channel. Says 'ready' once
// every session is subscribed; answers 'counts' with, per session, the distinct events told by resource update and by
// the vendor notification; 'close' ends the sessions and the process.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [url, uri, count] = process.argv.slice(2);
const sessions = [];
for (let i = 0; i < Number(count); i++) {
  const client = new Client({ name: `subscriber-${i}`, version: '1' });
  const seen = { updates: new Set(), notes: new Set() };
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    const eventId = n.params._meta?.['switchboard/event']?.eventId;
    if (n.params.uri === uri && eventId) seen.updates.add(eventId);
  });
  client.fallbackNotificationHandler = async (n) => {
    if (n.method === 'notifications/switchboard/event') seen.notes.add(n.params.eventId);
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.subscribeResource({ uri });
  sessions.push({ client, seen });
}

process.on('message', async (message) => {
  if (message === 'counts') process.send({ counts: sessions.map(({ seen }) => ({ updates: seen.updates.size, notes: seen.notes.size })) });
  if (message === 'close') {
    for (const { client } of sessions) await client.close();
    process.disconnect();
  }
});
process.send('ready');
