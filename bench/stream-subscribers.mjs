// MCP sessions subscribed to one trigger's events that read their stream without an SDK, in a process of their own:
// initialize, notifications/initialized and resources/subscribe POSTed with undici, then the GET stream parsed as SSE.
// Clients this light keep up with the server on these two cores, so what the server spends on them is what is measured.
// Usage and IPC as bench/subscribers.mjs.
import { Agent, request } from 'undici';
const [url, uri, count] = process.argv.slice(2);
const agent = new Agent({ connections: Number(count) * 2 });
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
async function post(sessionId, body) {
  const res = await request(url, { method: 'POST', dispatcher: agent, headers: { ...headers, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) }, body: JSON.stringify(body) });
  const text = await res.body.text();
  return { sessionId: res.headers['mcp-session-id'], status: res.statusCode, text };
}
const sessions = [];
for (let i = 0; i < Number(count); i++) {
  const init = await post(undefined, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: `raw-${i}`, version: '1' } } });
  const sid = init.sessionId;
  await post(sid, { jsonrpc: '2.0', method: 'notifications/initialized' });
  const sub = await post(sid, { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri } });
  if (sub.status !== 200) throw new Error(`subscribe: ${sub.status} ${sub.text}`);
  const seen = { updates: new Set(), notes: new Set() };
  const res = await request(url, { method: 'GET', dispatcher: agent, headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } });
  res.body.on('error', () => undefined);
  let buf = '';
  res.body.setEncoding('utf8');
  res.body.on('data', (chunk) => {
    buf += chunk;
    let end;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const event = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const data = event.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
      if (!data) continue;
      const m = JSON.parse(data);
      if (m.method === 'notifications/resources/updated' && m.params.uri === uri && m.params._meta?.['switchboard/event']) seen.updates.add(m.params._meta['switchboard/event'].eventId);
      if (m.method === 'notifications/switchboard/event') seen.notes.add(m.params.eventId);
    }
  });
  sessions.push({ sid, seen, res });
}
process.on('message', async (message) => {
  if (message === 'counts') process.send({ counts: sessions.map(({ seen }) => ({ updates: seen.updates.size, notes: seen.notes.size })) });
  if (message === 'close') {
    for (const { sid, res } of sessions) { res.body.destroy(); await request(url, { method: 'DELETE', dispatcher: agent, headers: { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } }).then((r) => r.body.dump()).catch(() => undefined); }
    await agent.close();
    process.disconnect();
  }
});
process.send('ready');
