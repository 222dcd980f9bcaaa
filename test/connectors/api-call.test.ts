import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandboxServer, type SandboxServer } from '../../src/sandbox/server.js';
import { HOSTILE_ENDPOINTS } from '../http/hostile.js';
import { CANARY, startHarness, type Harness } from '../harness.js';

let h: Harness;
let evil: SandboxServer;
const ACCEPT = { accept: 'application/vnd.github+json' };

beforeAll(async () => {
  h = await startHarness();
  evil = await startSandboxServer('evil', { 'GET /*rest': () => ({ body: { stolen: true } }), 'POST /*rest': () => ({ body: {} }) });
});
afterAll(async () => {
  await evil.close();
  await h.close();
});
beforeEach(() => {
  for (const s of Object.values(h.sandbox.servers)) s.reset();
});

const sent = () => Object.values(h.sandbox.servers).reduce((n, s) => n + s.requests.length, 0);

describe('github_api_call', () => {
  it('fails without headers.accept, naming the header and the value to send, and sends nothing', async () => {
    const text = await h.fails('github_api_call', { method: 'GET', endpoint: '/user' });
    expect(text).toContain('"headers.accept" is required');
    expect(text).toContain('application/vnd.github+json');
    expect(sent()).toBe(0);
  });

  it('refuses an accept header that is not a GitHub media type', async () => {
    const text = await h.fails('github_api_call', { method: 'GET', endpoint: '/user', headers: { accept: 'text/html' } });
    expect(text).toMatch(/must be a GitHub media type/);
    expect(sent()).toBe(0);
  });

  it('accepts a vendor variant such as the raw media type', async () => {
    const r = await h.ok('github_api_call', {
      method: 'GET',
      endpoint: '/repos/sbx-octocat/hello-world/contents/README.md',
      headers: { accept: 'application/vnd.github.raw+json' },
    });
    expect(r.status).toBe(200);
    expect(h.sandbox.servers.github.requests[0]!.headers.accept).toBe('application/vnd.github.raw+json');
  });

  it('refuses caller credentials and sends nothing', async () => {
    for (const headers of [{ ...ACCEPT, Authorization: 'Bearer x' }, { ...ACCEPT, cookie: 'a=b' }, { ...ACCEPT, Host: 'evil.example' }]) {
      const text = await h.fails('github_api_call', { method: 'GET', endpoint: '/user', headers });
      expect(text).toMatch(/is not accepted/);
    }
    expect(sent()).toBe(0);
  });

  it('returns the provider error with status and message', async () => {
    const text = await h.fails('github_api_call', { method: 'GET', endpoint: '/repos/sbx-octocat/no-such-repo', headers: ACCEPT });
    expect(text).toMatch(/GitHub answered 404 to GET \/repos\/sbx-octocat\/no-such-repo/);
    expect(text).toMatch(/Not Found/);
  });

  it('uses the default account when none is named, and a named one by label', async () => {
    await h.ok('github_api_call', { method: 'GET', endpoint: '/user', headers: ACCEPT });
    expect(h.sandbox.servers.github.requests[0]!.headers.authorization).not.toContain(CANARY);
    await h.ok('github_api_call', { method: 'GET', endpoint: '/user', headers: ACCEPT, account: 'canary' });
    expect(h.sandbox.servers.github.requests[1]!.headers.authorization).toBe(`Bearer ${CANARY}`);
  });

  it('names the labels to choose from for an unknown account', async () => {
    const text = await h.fails('github_api_call', { method: 'GET', endpoint: '/user', headers: ACCEPT, account: 'nobody' });
    expect(text).toContain('"sample"');
    expect(text).toContain('"canary"');
    expect(sent()).toBe(0);
  });

  it('dry_run shows the exact request with the credential redacted, and sends nothing', async () => {
    const r = await h.ok('github_api_call', { method: 'POST', endpoint: '/repos/sbx-octocat/hello-world/issues', headers: ACCEPT, body: { title: 'x' }, dry_run: true });
    expect(r.dry_run).toBe(true);
    expect(r.request).toEqual({
      method: 'POST',
      url: `${h.sandbox.baseUrls.github}/repos/sbx-octocat/hello-world/issues`,
      headers: expect.objectContaining({ authorization: '[redacted]', accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' }),
      body: { title: 'x' },
    });
    expect(sent()).toBe(0);
  });

  it('waits out a 429 with a fractional Retry-After and succeeds', async () => {
    h.sandbox.servers.github.once('GET /user', { status: 429, headers: { 'retry-after': '0.05' }, body: { message: 'slow down' } });
    const r = await h.ok('github_api_call', { method: 'GET', endpoint: '/user', headers: ACCEPT });
    expect(r.status).toBe(200);
    expect(h.sandbox.servers.github.requests.length).toBe(2);
  });

  it('reports when to retry once the wait is beyond the budget', async () => {
    h.sandbox.servers.github.once('GET /user', { status: 429, headers: { 'retry-after': '90' }, body: { message: 'slow down' } });
    const text = await h.fails('github_api_call', { method: 'GET', endpoint: '/user', headers: ACCEPT });
    expect(text).toMatch(/retry after 90 s/);
    expect(h.sandbox.servers.github.requests.length).toBe(1);
  });

  it('never sends a POST twice on a 503', async () => {
    h.sandbox.servers.github.once('POST /repos/:owner/:repo/issues', { status: 503, body: { message: 'unavailable' } });
    const text = await h.fails('github_api_call', { method: 'POST', endpoint: '/repos/sbx-octocat/hello-world/issues', headers: ACCEPT, body: { title: 'once' } });
    expect(text).toMatch(/503/);
    expect(h.sandbox.servers.github.requests.length).toBe(1);
  });

  it('returns a 304 as a result, not an error', async () => {
    const first = await h.ok('github_api_call', { method: 'GET', endpoint: '/repos/sbx-octocat/hello-world', headers: ACCEPT });
    const etag = first.headers.etag;
    expect(etag).toBeTruthy();
    const second = await h.ok('github_api_call', { method: 'GET', endpoint: '/repos/sbx-octocat/hello-world', headers: { ...ACCEPT, 'if-none-match': etag } });
    expect(second.status).toBe(304);
  });

  it('revalidates repeated GETs with the ETag, so they cost no quota, and reports the quota left', async () => {
    const path = '/repos/sbx-octocat/hello-world/branches';
    const first = await h.ok('github_api_call', { method: 'GET', endpoint: path, headers: ACCEPT });
    const second = await h.ok('github_api_call', { method: 'GET', endpoint: path, headers: ACCEPT });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const sent = h.sandbox.servers.github.requests.filter((r) => r.path === path);
    expect(sent[1]!.headers['if-none-match']).toBe(first.headers.etag);
    expect(second.rate_limit.remaining).toBe(first.rate_limit.remaining);
    expect(first.rate_limit.limit).toBe(5000);
  });

  it('refuses a body with GET', async () => {
    const text = await h.fails('github_api_call', { method: 'GET', endpoint: '/user', headers: ACCEPT, body: { a: 1 } });
    expect(text).toMatch(/"body" cannot be sent with GET/);
  });

  it('refuses unknown fields and wrong methods by name', async () => {
    expect(await h.fails('github_api_call', { method: 'GET', endpoint: '/user', headers: ACCEPT, url: 'x' })).toMatch(/unknown field\(s\) "url"/);
    expect(await h.fails('github_api_call', { method: 'TRACE', endpoint: '/user', headers: ACCEPT })).toMatch(/method/);
  });
});

describe('hostile endpoints', () => {
  const evilHost = () => new URL(evil.url).host;

  it('refuses every one in every API Call tool, sends nothing anywhere, and keeps serving', async () => {
    const tools = [
      { name: 'github_api_call', field: 'endpoint', extra: { headers: ACCEPT } },
      { name: 'outlook_api_call', field: 'endpoint', extra: {} },
      { name: 'vercel_api_call', field: 'path', extra: {} },
      { name: 'sales_api_call', field: 'endpoint', extra: {} },
    ];
    for (const tool of tools) {
      for (const raw of HOSTILE_ENDPOINTS) {
        const endpoint = raw.replace(/EVIL/g, evilHost()).replace(/BASEHOST/g, new URL(h.sandbox.baseUrls.github).host);
        const text = await h.fails(tool.name, { method: 'GET', [tool.field]: endpoint, ...tool.extra });
        expect(text, `${tool.name} ${JSON.stringify(raw)}`).toMatch(new RegExp(`"${tool.field}"|${tool.field}:`));
      }
    }
    expect(evil.requests).toEqual([]);
    expect(sent()).toBe(0);
    const r = await h.ok('github_api_call', { method: 'GET', endpoint: '/user', headers: ACCEPT });
    expect(r.status).toBe(200);
  });

  it('a provider next-page link on the same origin is followed', async () => {
    const r = await h.ok('outlook_api_call', { method: 'GET', endpoint: `${h.sandbox.baseUrls.outlook}/me/messages?$top=1` });
    expect(r.status).toBe(200);
  });
});

describe('other API Call tools', () => {
  it('outlook_api_call encodes $search and answers Graph errors with their code', async () => {
    const r = await h.ok('outlook_api_call', { method: 'GET', endpoint: '/me/messages?$search="subject:invoice"&$top=3' });
    expect(r.status).toBe(200);
    expect(h.sandbox.servers.outlook.requests[0]!.query.get('$search')).toBe('"subject:invoice"');
    const text = await h.fails('outlook_api_call', { method: 'GET', endpoint: '/me/messages?$search="x"&$orderby=receivedDateTime desc' });
    expect(text).toMatch(/400/);
    expect(text).toMatch(/SearchWithOrderBy/);
  });

  it('redacts the credential a provider echoes in a successful body, in structured content and text alike', async () => {
    const token = h.sandbox.accounts.find((a) => a.provider === 'outlook')!.secret.token!;
    const result = (await h.client.callTool({ name: 'outlook_api_call', arguments: { method: 'GET', endpoint: '/_sandbox/echo' } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const echoed = (result.structuredContent as { status: number; body: { headers: Record<string, string> } });
    expect(echoed.status).toBe(200);
    expect(echoed.body.headers.authorization).toBe('Bearer [redacted]');
    expect(JSON.stringify(result.structuredContent)).not.toContain(token);
    expect((result.content[0] as { text: string }).text).not.toContain(token);
    expect((result.content[0] as { text: string }).text).toContain('[redacted]');
  });

  it('outlook_api_call reports an unknown message id as not found', async () => {
    const text = await h.fails('outlook_api_call', { method: 'GET', endpoint: '/me/messages/does-not-exist' });
    expect(text).toMatch(/404/);
    expect(text).toMatch(/ErrorItemNotFound/);
  });

  it('sales_api_call offers GET and POST only and has no headers input', async () => {
    const { tools } = await h.client.listTools();
    const sales = tools.find((t) => t.name === 'sales_api_call')!;
    expect((sales.inputSchema.properties as any).method.enum).toEqual(['GET', 'POST']);
    expect((sales.inputSchema.properties as any).headers).toBeUndefined();
    expect(await h.fails('sales_api_call', { method: 'POST', endpoint: '/person', headers: { a: 'b' } })).toMatch(/unknown field/);
  });

  it('vercel_api_call names its field path, as the specification does', async () => {
    const r = await h.ok('vercel_api_call', { method: 'GET', path: '/v9/projects' });
    expect(r.status).toBe(200);
    expect(await h.fails('vercel_api_call', { method: 'GET', endpoint: '/v9/projects' })).toMatch(/path/);
  });
});

describe('accounts_list and the accounts resource', () => {
  it('lists accounts with no secret, filtered by provider', async () => {
    const all = await h.ok('accounts_list');
    expect(all.accounts.length).toBe(5);
    const gh = await h.ok('accounts_list', { provider: 'github' });
    expect(gh.accounts.map((a: { label: string }) => a.label).sort()).toEqual(['canary', 'sample']);
    expect(gh.accounts.filter((a: { is_default: boolean }) => a.is_default).length).toBe(1);
  });

  it('reads switchboard://accounts', async () => {
    const res = await h.client.readResource({ uri: 'switchboard://accounts' });
    const text = (res.contents[0] as { text: string }).text;
    expect(JSON.parse(text).accounts.length).toBe(5);
    expect(text).not.toContain(CANARY);
  });

  it('an unknown tool is a protocol error', async () => {
    await expect(h.client.callTool({ name: 'nope_tool', arguments: {} })).rejects.toThrow(/Unknown tool "nope_tool"/);
  });
});
