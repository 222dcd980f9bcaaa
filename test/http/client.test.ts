import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError, ProviderError } from '../../src/errors.js';
import { createApi } from '../../src/http/client.js';
import { startSandboxServer, type SandboxServer } from '../../src/sandbox/server.js';

let server: SandboxServer;
let resetting: Server;
let resets = 0;

beforeAll(async () => {
  server = await startSandboxServer('test', {
    'GET /big': () => ({ body: 'x'.repeat(5000), headers: { 'content-type': 'text/plain' } }),
    'GET /slow': () => new Promise((r) => setTimeout(() => r({ body: { ok: true } }), 500)),
    'GET /graph-error': () => ({ status: 404, body: { error: { code: 'ErrorItemNotFound', message: 'The specified object was not found in the store.' } } }),
    'GET /github-error': () => ({ status: 422, body: { message: 'Validation Failed', documentation_url: 'https://docs.github.com' } }),
    'GET /binary': () => ({ body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]), headers: { 'content-type': 'image/png' } }),
    'GET /echo': (req) => ({ body: { query: Object.fromEntries(req.query), auth: req.headers.authorization ?? null } }),
  });
  // Resets the first connection of each request pair, then answers.
  resetting = createServer((req, res) => {
    if (resets++ % 2 === 0) return req.socket.destroy();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((r) => resetting.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  await server.close();
  resetting.closeAllConnections();
  await new Promise((r) => resetting.close(r));
});

const api = (extra: Partial<Parameters<typeof createApi>[0]> = {}) =>
  createApi({ connector: 'github', baseUrl: server.url, auth: () => ({ authorization: 'Bearer secret-token-1' }), retry: { maxAttempts: 3, budgetMs: 1000, baseDelayMs: 5 }, ...extra });

describe('createApi', () => {
  it('refuses a response over the size cap with a clear error', async () => {
    await expect(api({ maxResponseBytes: 1000 }).get('/big')).rejects.toThrow(/over the 1000-byte cap/);
    await expect(api({ maxResponseBytes: 1000 }).get('/big')).rejects.toBeInstanceOf(InputError);
  });

  it('gives up on a provider that does not answer in time', async () => {
    const error = await api({ timeoutMs: 100, retry: { maxAttempts: 1, budgetMs: 0, baseDelayMs: 1 } }).get('/slow').catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toMatch(/could not be reached for GET \/slow: no answer within 0.1 s/);
  });

  it('reads Graph and GitHub error bodies', async () => {
    const graph = await api({ connector: 'outlook' }).get('/graph-error').catch((e) => e);
    expect(graph).toMatchObject({ status: 404, code: 'ErrorItemNotFound', providerMessage: 'The specified object was not found in the store.' });
    expect(graph.message).toMatch(/^Microsoft Graph answered 404 to GET \/graph-error \(ErrorItemNotFound: The specified object/);
    const gh = await api().get('/github-error').catch((e) => e);
    expect(gh).toMatchObject({ status: 422, providerMessage: 'Validation Failed' });
  });

  it('returns binary bodies as base64', async () => {
    const res = await api().request({ method: 'GET', endpoint: '/binary' });
    expect(res.bodyEncoding).toBe('base64');
    expect(Buffer.from(res.body as string, 'base64')).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]));
  });

  it('adds default query parameters (Vercel teamId) unless the caller set them', async () => {
    const withTeam = api({ defaultQuery: { teamId: 'team_1' } });
    expect((await withTeam.get('/echo')).query).toEqual({ teamId: 'team_1' });
    expect((await withTeam.get('/echo?teamId=team_2')).query).toEqual({ teamId: 'team_2' });
  });

  it('retries a GET after a connection reset, but never a POST', async () => {
    const base = `http://127.0.0.1:${(resetting.address() as AddressInfo).port}`;
    const client = createApi({ connector: 'github', baseUrl: base, auth: () => ({}), retry: { maxAttempts: 3, budgetMs: 1000, baseDelayMs: 5 } });
    resets = 0;
    expect(await client.get('/x')).toEqual({ ok: true });
    expect(resets).toBe(2);
    resets = 0;
    await expect(client.post('/x', {})).rejects.toThrow(/could not be reached/);
    expect(resets).toBe(1);
  });

  it('retries once after a 401 when the credential was renewed', async () => {
    let token = 'old-token-123';
    server.use('GET /renew', (req) => (req.headers.authorization === 'Bearer new-token-456' ? { body: { ok: true } } : { status: 401, body: { message: 'Bad credentials' } }));
    const client = createApi({
      connector: 'github',
      baseUrl: server.url,
      auth: () => ({ authorization: `Bearer ${token}` }),
      onUnauthorized: async () => {
        token = 'new-token-456';
        return true;
      },
    });
    expect(await client.get('/renew')).toEqual({ ok: true });
  });
});
