import type { RawAnswer } from '../mcp/sse.js';

export const TASKS = 'io.modelcontextprotocol/tasks';

/**
 * One 2026-07-28 request over real HTTP, laid out as the revision and the tasks extension ask: the envelope in _meta
 * (declaring the extension unless `tasks` is false), the method in Mcp-Method and the tool name or task id in Mcp-Name.
 */
export async function modernRpc(endpoint: string, method: string, params: Record<string, unknown>, o: { tasks?: boolean; token?: string } = {}): Promise<RawAnswer> {
  const named = typeof params.name === 'string' ? params.name : typeof params.taskId === 'string' ? params.taskId : undefined;
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'tasks-client', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': o.tasks === false ? {} : { extensions: { [TASKS]: {} } },
  };
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-method': method,
      'mcp-protocol-version': '2026-07-28',
      ...(named ? { 'mcp-name': named } : {}),
      ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta, ...params } }),
  });
  return { status: res.status, session: null, body: (await res.json()) as RawAnswer['body'] };
}
