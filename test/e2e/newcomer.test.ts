import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { CLI, exited, runCli, startHttpServe } from './cli.js';

let sandbox: Sandbox;
let dataDir: string;
let env: Record<string, string>;
const secretOf = (p: string) => {
  const s = sandbox.accounts.find((a) => a.provider === p)!.secret;
  return (s.token ?? s.apiKey)!;
};

beforeAll(async () => {
  sandbox = await startSandbox();
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-'));
  env = {
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_OUTLOOK_BASE_URL: sandbox.baseUrls.outlook,
    SWITCHBOARD_SALES_BASE_URL: sandbox.baseUrls.sales,
    SWITCHBOARD_GITHUB_BASE_URL: sandbox.baseUrls.github,
    SWITCHBOARD_VERCEL_BASE_URL: sandbox.baseUrls.vercel,
  };
});

afterAll(async () => {
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function everySecret(): string[] {
  return sandbox.accounts.map((a) => (a.secret.token ?? a.secret.apiKey)!);
}

function lastRequest(provider: keyof Sandbox['servers']) {
  const reqs = sandbox.servers[provider].requests;
  return reqs[reqs.length - 1]!;
}

describe('accounts through the CLI', () => {
  it('adds one account per provider, looked up at the provider', { timeout: 30_000 }, async () => {
    for (const provider of ['outlook', 'github', 'vercel'] as const) {
      const r = await runCli(['accounts', 'add', provider, '--token-stdin'], { env, stdin: secretOf(provider) + '\n' });
      expect(r.stderr + r.stdout, provider).toMatch(new RegExp(`Connected ${provider} account`));
      expect(r.code).toBe(0);
      expect(lastRequest(provider).headers.authorization).toBe(`Bearer ${secretOf(provider)}`);
    }
    const r = await runCli(['accounts', 'add', 'sales', '--api-key-stdin', '--label', 'prospecting'], { env, stdin: secretOf('sales') });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"prospecting"');
    expect(lastRequest('sales').headers.api_key).toBe(secretOf('sales'));
  });

  it('lists accounts without any secret, as a table and as JSON', async () => {
    const table = await runCli(['accounts', 'list'], { env });
    expect(table.stdout).toMatch(/PROVIDER\s+LABEL/);
    expect(table.stdout).toContain('prospecting');
    const json = await runCli(['accounts', 'list', '--json'], { env });
    const accounts = JSON.parse(json.stdout);
    expect(accounts.map((a: { provider: string }) => a.provider).sort()).toEqual(['github', 'outlook', 'sales', 'vercel']);
    // The same shape as accounts_list and switchboard://accounts: snake_case.
    expect(Object.keys(accounts[0]).sort()).toEqual(['created_at', 'groups', 'id', 'identity', 'is_default', 'label', 'last_used_at', 'provider', 'scopes', 'status', 'team']);
    for (const s of everySecret()) expect(table.stdout + json.stdout).not.toContain(s);
  });

  it('keeps the store and the key file private to the user', () => {
    expect(statSync(join(dataDir, 'switchboard.db')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
  });

  it('refuses a credential the provider refuses, and stores nothing', async () => {
    const bad = 'bad-token-should-not-echo-123456';
    const r = await runCli(['accounts', 'add', 'github', '--token-stdin', '--label', 'bad'], { env, stdin: bad });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/GitHub answered 401/);
    expect(r.stderr + r.stdout).not.toContain(bad);
    const list = await runCli(['accounts', 'list', '--json'], { env });
    expect(list.stdout).not.toContain('"bad"');
  });

  it('never takes a secret from the arguments', async () => {
    const r = await runCli(['accounts', 'add', 'github', '--token', 'ghp_x'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--token'/);
    const r2 = await runCli(['accounts', 'add', 'github'], { env });
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/--token-stdin/);
  });

  it('names the valid providers for an unknown one', async () => {
    const r = await runCli(['accounts', 'add', 'gitlab', '--token-stdin'], { env, stdin: 'x' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/outlook, sales, github, vercel/);
  });

  it('removes an account by label', async () => {
    await runCli(['accounts', 'add', 'github', '--token-stdin', '--label', 'spare'], { env, stdin: secretOf('github') });
    const r = await runCli(['accounts', 'remove', 'spare'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Removed github account "spare"/);
    const again = await runCli(['accounts', 'remove', 'spare'], { env });
    expect(again.code).toBe(2);
  });
});

describe('serve over stdio', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'e2e', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--port', '0'], env, stderr: 'pipe' }));
  });
  afterAll(() => client.close());

  it('lists the tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['outlook_api_call', 'sales_api_call', 'github_api_call', 'vercel_api_call', 'accounts_list']));
  });

  it('outlook_api_call sends the Graph query options encoded, with the bearer token', async () => {
    const r = await client.callTool({
      name: 'outlook_api_call',
      arguments: { method: 'GET', endpoint: "/me/messages?$filter=from/emailAddress/address eq 'dana@fabrikam.example'&$select=subject,from&$top=2" },
    });
    expect(r.isError).toBeFalsy();
    const req = lastRequest('outlook');
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/v1.0/me/messages');
    expect(req.query.get('$filter')).toBe("from/emailAddress/address eq 'dana@fabrikam.example'");
    expect(req.query.get('$select')).toBe('subject,from');
    expect(req.headers.authorization).toBe(`Bearer ${secretOf('outlook')}`);
    expect((r.structuredContent as { status: number }).status).toBe(200);
  });

  it('outlook_api_call POSTs a JSON body', async () => {
    const message = { subject: 'Hi', body: { contentType: 'Text', content: 'x' }, toRecipients: [{ emailAddress: { address: 'a@b.example' } }] };
    const r = await client.callTool({ name: 'outlook_api_call', arguments: { method: 'POST', endpoint: '/me/sendMail', body: { message } } });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as { status: number }).status).toBe(202);
    const req = lastRequest('outlook');
    expect(req.body).toEqual({ message });
    expect(req.headers['content-type']).toBe('application/json');
  });

  it('sales_api_call sends the key in the api_key header', async () => {
    const r = await client.callTool({ name: 'sales_api_call', arguments: { method: 'POST', endpoint: '/person', body: { email: 'nobody@nowhere.example' } } });
    expect(r.isError).toBeFalsy();
    const req = lastRequest('sales');
    expect(req.path).toBe('/person');
    expect(req.body).toEqual({ email: 'nobody@nowhere.example' });
    expect(req.headers.api_key).toBe(secretOf('sales'));
    expect(req.headers.authorization).toBeUndefined();
  });

  it('github_api_call sends the accept header, API version and token', async () => {
    const r = await client.callTool({
      name: 'github_api_call',
      arguments: { method: 'GET', endpoint: '/repos/sbx-octocat/hello-world/issues?state=open', headers: { accept: 'application/vnd.github+json' } },
    });
    expect(r.isError).toBeFalsy();
    const req = lastRequest('github');
    expect(req.path).toBe('/repos/sbx-octocat/hello-world/issues');
    expect(req.query.get('state')).toBe('open');
    expect(req.headers.accept).toBe('application/vnd.github+json');
    expect(req.headers['x-github-api-version']).toBe('2022-11-28');
    expect(req.headers.authorization).toBe(`Bearer ${secretOf('github')}`);
    expect((r.structuredContent as { headers: Record<string, string> }).headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  });

  it('vercel_api_call takes a path', async () => {
    const r = await client.callTool({ name: 'vercel_api_call', arguments: { method: 'GET', path: '/v6/deployments?limit=2' } });
    expect(r.isError).toBeFalsy();
    const req = lastRequest('vercel');
    expect(req.path).toBe('/v6/deployments');
    expect(req.query.get('limit')).toBe('2');
    expect(req.headers.authorization).toBe(`Bearer ${secretOf('vercel')}`);
  });

  it('exits on its own, with code 0, when stdin closes', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' });
    try {
      let stdout = '';
      const answered = new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d) => (stdout += d).includes('"id":1') && resolve());
        child.once('exit', (code) => reject(new Error(`serve exited ${code} before answering initialize`)));
      });
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e-close', version: '1' } } };
      child.stdin.write(JSON.stringify(initialize) + '\n');
      await answered;
      child.stdin.end();
      const [code, signal] = await once(child, 'exit');
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});

function rawGet(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serve over Streamable HTTP', () => {
  it('serves MCP at /mcp, the legacy SSE transport, and /healthz; refuses foreign Host and Origin', async () => {
    const { child, url } = await startHttpServe([], env);
    try {
      const client = new Client({ name: 'e2e-http', version: '1' });
      const transport = new StreamableHTTPClientTransport(new URL(url));
      await client.connect(transport);
      const r = await client.callTool({
        name: 'github_api_call',
        arguments: { method: 'GET', endpoint: '/user', headers: { accept: 'application/vnd.github+json' } },
      });
      expect((r.structuredContent as { body: { login: string } }).body.login).toBeTruthy();
      expect(transport.sessionId).toMatch(/^[\x21-\x7e]+$/);

      const base = url.replace(/\/mcp$/, '');
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', sessions: 1 });

      expect(await rawGet(`${base}/healthz`, { host: 'evil.example' })).toBe(403);
      expect(await rawGet(`${base}/healthz`, { origin: 'https://evil.example' })).toBe(403);
      expect(await rawGet(`${base}/healthz`, { origin: 'http://localhost:3000' })).toBe(200);

      const legacy = new Client({ name: 'e2e-sse', version: '1' });
      await legacy.connect(new SSEClientTransport(new URL(`${base}/sse`)));
      expect((await legacy.listTools()).tools.length).toBeGreaterThanOrEqual(5);
      await legacy.close();

      await transport.terminateSession();
      const after = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId ?? 'gone' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(after.status).toBe(404);
      await client.close();
    } finally {
      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
    }
  });

  it('requires the bearer token when SWITCHBOARD_HTTP_TOKEN is set', async () => {
    const token = 'http-token-for-tests-0123456789';
    const { child, url } = await startHttpServe([], { ...env, SWITCHBOARD_HTTP_TOKEN: token });
    try {
      const denied = new Client({ name: 'no-token', version: '1' });
      await expect(denied.connect(new StreamableHTTPClientTransport(new URL(url)))).rejects.toThrow(/Unauthorized/);
      const client = new Client({ name: 'token', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      expect((await client.listTools()).tools.length).toBeGreaterThanOrEqual(5);
      await client.close();
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });

  it('refuses to listen beyond loopback without a token', async () => {
    const r = await runCli(['serve', '--http', '--host', '0.0.0.0', '--port', '0'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/SWITCHBOARD_HTTP_TOKEN/);
  });

  it('offers discovery mode with --tool-mode discover', async () => {
    const { child, url } = await startHttpServe(['--tool-mode', 'discover'], env);
    try {
      const client = new Client({ name: 'discover', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['tools_search', 'tools_describe', 'tools_call']);
      const r = await client.callTool({ name: 'tools_call', arguments: { name: 'accounts_list', arguments: { provider: 'github' } } });
      expect((r.structuredContent as { result: { accounts: unknown[] } }).result.accounts.length).toBeGreaterThan(0);
      await client.close();
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });

  it('lists only --tools, less --exclude-tools, over stdio; an unknown tool name stops serve with the nearest name', async () => {
    const client = new Client({ name: 'chosen', version: '1' });
    const args = [CLI, 'serve', '--tools', 'github_*_issue*,accounts_list', '--exclude-tools', 'github_update_issue'];
    await client.connect(new StdioClientTransport({ command: process.execPath, args, env, stderr: 'pipe' }));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('github_create_issue');
      expect(names).toContain('accounts_list');
      expect(names).not.toContain('github_update_issue');
      expect(names.every((n) => n === 'accounts_list' || /^github_.*_issue/.test(n))).toBe(true);
      const r = await client.callTool({ name: 'github_create_issue_comment', arguments: { owner: 'sbx-octocat', repo: 'hello-world', issue_number: 1, body: 'chosen' } });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      await expect(client.callTool({ name: 'outlook_send_email', arguments: {} })).rejects.toThrow(/Unknown tool "outlook_send_email"/);
    } finally {
      await client.close();
    }
    const refused = await runCli(['serve', '--tools', 'github_create_isue'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--tools: "github_create_isue" is not a tool\. Did you mean "github_create_issue"\?/);
  });

  it('honours --read-only and --toolsets', async () => {
    const { child, url } = await startHttpServe(['--read-only', '--toolsets', 'github,vercel'], env);
    try {
      const client = new Client({ name: 'ro', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['accounts_list', 'events_next', 'triggers_list', 'github_api_call', 'vercel_api_call', 'github_get_repository']));
      expect(names.filter((n) => /^(outlook|sales)_/.test(n) || n === 'triggers_create' || n === 'github_create_issue')).toEqual([]);
      expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
      const gh = tools.find((t) => t.name === 'github_api_call')!;
      expect((gh.inputSchema.properties as any).method.enum).toEqual(['GET']);
      expect(gh.annotations?.readOnlyHint).toBe(true);
      const posted = await client.callTool({ name: 'vercel_api_call', arguments: { method: 'DELETE', path: '/v13/deployments/x' } });
      expect(posted.isError).toBe(true);
      expect(JSON.stringify(posted.content)).toMatch(/method/);
      await client.close();
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });
});
