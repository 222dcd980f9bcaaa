import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SANDBOX_API_KEYS, SANDBOX_TOKENS, startSandbox, startSandboxServer, takeMisses } from '../../src/sandbox/index.js';
import { EXCHANGES_KEPT } from '../../src/sandbox/server.js';
import { PROVIDERS } from '../../src/store/types.js';
import { http } from './http.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('startSandbox', () => {
  it('starts the four providers on 127.0.0.1 with one sample account each', async () => {
    const sandbox = await startSandbox();
    try {
      expect(Object.keys(sandbox.servers).sort()).toEqual([...PROVIDERS].sort());
      for (const p of PROVIDERS) expect(sandbox.servers[p].url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sandbox.baseUrls.outlook).toBe(`${sandbox.servers.outlook.url}/v1.0`);
      expect(sandbox.baseUrls.github).toBe(sandbox.servers.github.url);
      expect(sandbox.accounts.map((a) => a.provider).sort()).toEqual([...PROVIDERS].sort());
      const secret = (p: string) => sandbox.accounts.find((a) => a.provider === p)!.secret;
      expect(secret('outlook').token).toBe(SANDBOX_TOKENS.outlook);
      expect(secret('github').token).toBe(SANDBOX_TOKENS.github);
      expect(secret('vercel').token).toBe(SANDBOX_TOKENS.vercel);
      expect(secret('sales')).toEqual({ kind: 'api_key', apiKey: SANDBOX_API_KEYS.sales });
    } finally {
      await sandbox.close();
    }
  });

  it('each sample account passes its identity check', async () => {
    const sandbox = await startSandbox();
    try {
      const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
      const me = await http('GET', `${sandbox.baseUrls.outlook}/me`, { headers: bearer(SANDBOX_TOKENS.outlook) });
      expect(me.body.mail).toBe(sandbox.accounts.find((a) => a.provider === 'outlook')!.identity);
      const user = await http('GET', `${sandbox.baseUrls.github}/user`, { headers: bearer(SANDBOX_TOKENS.github) });
      expect(user.body.login).toBe(sandbox.accounts.find((a) => a.provider === 'github')!.identity);
      const vercel = await http('GET', `${sandbox.baseUrls.vercel}/v2/user`, { headers: bearer(SANDBOX_TOKENS.vercel) });
      expect(vercel.body.user.username).toBe(sandbox.accounts.find((a) => a.provider === 'vercel')!.identity);
      const usage = await http('GET', `${sandbox.baseUrls.sales}/account/usage`, { headers: { api_key: SANDBOX_API_KEYS.sales } });
      expect(usage.status).toBe(200);
      for (const p of PROVIDERS) expect(sandbox.servers[p].misses).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it('answers 501 for an unknown path and records it as a miss', async () => {
    const sandbox = await startSandbox();
    try {
      const res = await http('GET', `${sandbox.baseUrls.github}/no/such/thing`, { headers: { authorization: `Bearer ${SANDBOX_TOKENS.github}` } });
      expect(res.status).toBe(501);
      expect(sandbox.servers.github.misses.map((r) => r.path)).toEqual(['/no/such/thing']);
      expect(takeMisses(), 'taken once, then forgotten').toEqual(['github GET /no/such/thing']);
      expect(takeMisses()).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });

  it('honours fixed ports, keeps state per sandbox, and frees the ports on close', async () => {
    const port = await freePort();
    const a = await startSandbox({ ports: { github: port } });
    expect(a.servers.github.url).toBe(`http://127.0.0.1:${port}`);
    a.states.github.repos[0]!.description = 'changed';
    await expect(startSandbox({ ports: { github: port } })).rejects.toThrow();
    await a.close();
    const b = await startSandbox({ ports: { github: port } });
    try {
      expect(b.states.github.repos[0]!.description).toBe('My first repository on the sandbox');
    } finally {
      await b.close();
    }
  });

  it('once() overrides a route for the next request', async () => {
    const sandbox = await startSandbox();
    try {
      sandbox.servers.outlook.once('GET /v1.0/me/messages', { status: 429, headers: { 'retry-after': '1' }, body: { error: { code: 'TooManyRequests', message: 'Please retry again later.' } } });
      const url = `${sandbox.baseUrls.outlook}/me/messages`;
      const headers = { authorization: `Bearer ${SANDBOX_TOKENS.outlook}` };
      expect((await http('GET', url, { headers })).status).toBe(429);
      expect((await http('GET', url, { headers })).status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });

  it('records each exchange with its route, status and body, keeping only the last EXCHANGES_KEPT', async () => {
    const server = await startSandboxServer('probe', { 'GET /n/:n': (req) => ({ status: 200, body: { n: Number(req.params.n) } }) });
    try {
      const total = EXCHANGES_KEPT + 3;
      for (let start = 0; start < total; start += 50) {
        await Promise.all(Array.from({ length: Math.min(50, total - start) }, (_, i) => fetch(`${server.url}/n/${start + i}`).then((r) => r.arrayBuffer())));
      }
      expect(server.exchanges).toHaveLength(EXCHANGES_KEPT);
      const last = server.exchanges.at(-1)!;
      expect(last).toMatchObject({ route: 'GET /n/:n', injected: false, status: 200 });
      expect(JSON.parse(String(last.payload)).n).toBeGreaterThanOrEqual(total - 50);
      expect(server.requests).toHaveLength(total);
    } finally {
      await server.close();
    }
  }, 60_000);
});
