import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, type AuthInfo } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { surfaceOf } from '../../src/mcp/server.js';
import { startHarness, type Harness } from '../harness.js';

// Below the HTTP layer (which answers 403 first), the server itself keeps a switchboard:read caller to read-only tools.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** A client whose every message reaches the server as sent with this token's auth info, as the HTTP transports hand it over. */
async function clientWith(scopes: string[]): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const authInfo: AuthInfo = { token: 't', clientId: 'c', scopes, expiresAt: Math.floor(Date.now() / 1000) + 60, extra: { owner: 'usr_1' } };
  const send = clientSide.send.bind(clientSide);
  clientSide.send = (message, options) => send(message, { ...options, authInfo });
  await surfaceOf(h.deps).create('legacy').connect(serverSide);
  const client = new Client({ name: 'scoped', version: '1' });
  await client.connect(clientSide);
  return client;
}

describe('a caller whose token has scope switchboard:read', () => {
  it('lists only the tools that change nothing, and is refused the others', async () => {
    const reader = await clientWith(['switchboard:read']);
    const names = (await reader.listTools()).tools.map((t) => t.name);
    expect(names).toContain('accounts_list');
    expect(names).not.toContain('github_create_issue');
    const refused = await reader.callTool({ name: 'github_create_issue', arguments: { owner: 'sbx-octocat', repo: 'hello-world', title: 'No' } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('scope switchboard:read only');
    expect((await reader.callTool({ name: 'accounts_list', arguments: {} })).isError).toBeFalsy();

    const writer = await clientWith(['switchboard']);
    expect((await writer.listTools()).tools.map((t) => t.name)).toContain('github_create_issue');
    await Promise.all([reader.close(), writer.close()]);
  });
});
