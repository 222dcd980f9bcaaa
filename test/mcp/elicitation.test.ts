import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignIn } from '../../src/accounts/sign-in.js';
import { createServer } from '../../src/mcp/server.js';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ listen: true });
  h.deps.signIn = createSignIn({ store: h.store, baseUrls: h.sandbox.baseUrls, oauth: h.sandbox.oauthSettings, redactor: h.deps.redactor });
  h.deps.signInBase = () => h.listenerUrl;
  const outlook = (await h.store.accounts.list({ provider: 'outlook' }))[0]!;
  await h.store.accounts.setStatus(outlook.id, 'needs_reconnect');
});
afterAll(() => h.close());

async function connect(capabilities: Record<string, unknown>) {
  const requests: Array<Record<string, any>> = [];
  const client = new Client({ name: 'elicit', version: '1' }, { capabilities });
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      requests.push(req.params);
      return { action: 'accept' };
    });
  }
  const [a, b] = InMemoryTransport.createLinkedPair();
  await createServer(h.deps).connect(b);
  await client.connect(a);
  return { client, requests };
}

describe('URL-mode elicitation for an account that needs a new sign-in', () => {
  it('offers the sign-in link when the client can open links', async () => {
    const { client, requests } = await connect({ elicitation: { url: {} } });
    const r = await client.callTool({ name: 'outlook_list_folders', arguments: {} });
    expect(r.isError).toBe(true);
    const text = (r.content as Array<{ text: string }>)[0]!.text;
    expect(text).toMatch(/needs to be reconnected/);
    expect(text).toMatch(/A sign-in link was offered/);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ mode: 'url', message: expect.stringMatching(/needs a new sign-in/) });
    const url = new URL(requests[0]!.url);
    expect(url.origin).toBe(new URL(h.sandbox.baseUrls.outlook).origin);
    expect(url.searchParams.get('redirect_uri')).toBe(`${h.listenerUrl}/oauth/callback/outlook`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')).toBeTruthy();
    await client.close();
  });

  it('sends nothing to a client without URL elicitation', async () => {
    const { client, requests } = await connect({});
    const r = await client.callTool({ name: 'outlook_list_folders', arguments: {} });
    expect(r.isError).toBe(true);
    expect((r.content as Array<{ text: string }>)[0]!.text).not.toMatch(/sign-in link was offered/);
    expect(requests).toEqual([]);
    await client.close();
  });
});
