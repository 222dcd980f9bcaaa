import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/redact.js';
import type { Store, TeamUser } from '../../src/store/index.js';
import { commandLines, shellBlocks, SWITCHBOARD } from '../docs/markdown.js';
import { runCli } from '../e2e/cli.js';
import { ADAPTERS, openAt, sqlite, type Adapter, type StoreLocation } from '../store/adapters.js';
import { hashPersonalToken, newPersonalToken } from '../../src/team/tokens.js';
import { INITIALIZE, post, startTeamServer, type TeamServer } from './team.js';
import { sandboxPerFile } from '../support/sandbox-per-file.js';

const bed = sandboxPerFile();

const call = (name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: args } });

interface Team {
  server: TeamServer;
  store: Store;
  location: StoreLocation;
  ada: TeamUser;
  bob: TeamUser;
  cli(...args: string[]): ReturnType<typeof runCli>;
  /** `switchboard tokens create`, expected to succeed: the token printed, and the id it said it made. */
  create(...args: string[]): Promise<{ token: string; id: string; said: string }>;
}

async function startTeam(adapter: Adapter): Promise<Team> {
  const location = await adapter.location();
  const store = await openAt(location, { secretKey: 'team test key' });
  const ada = await store.team.users.signIn({ provider: 'github', subject: '1001', login: 'ada', email: 'ada@example.com' });
  const bob = await store.team.users.signIn({ provider: 'outlook', subject: 'b-2', login: 'bob@contoso.example', email: 'bob@contoso.example' });
  const server = await startTeamServer({ sandbox: bed.sandbox, location });
  bed.closeAfterTest(() => server.close());
  const env = { SWITCHBOARD_DATA_DIR: location.dataDir, SWITCHBOARD_SECRET_KEY: 'team test key', ...(location.databaseUrl ? { SWITCHBOARD_DATABASE_URL: location.databaseUrl } : {}) };
  const cli = (...args: string[]) => runCli(args, { env });
  const create = async (...args: string[]) => {
    const made = await cli('tokens', 'create', ...args);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^sbp_[A-Za-z0-9_-]{43}\n$/);
    return { token: made.stdout.trim(), id: /Created (pat_[0-9a-f]{16})/.exec(made.stderr)![1]!, said: made.stderr };
  };
  return { server, store, location, ada, bob, cli, create };
}

async function connectWith(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'headless agent', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  bed.closeAfterTest(() => client.close());
  return client;
}

/** A session opened with the token (initialize + initialized), for raw requests on it. */
async function openSession(url: string, token: string): Promise<Record<string, string>> {
  const init = await post(url, INITIALIZE, token);
  expect(init.status).toBe(200);
  const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  expect((await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, token, headers)).status).toBe(202);
  return headers;
}

const challenge = (url: string, description: string) =>
  `Bearer error="invalid_token", error_description="${description}", scope="switchboard", resource_metadata="${url}/.well-known/oauth-protected-resource/mcp"`;
const UNKNOWN = 'The access token is unknown, expired or revoked';

async function expectRefused(url: string, token: string, description = UNKNOWN): Promise<void> {
  const res = await post(url, INITIALIZE, token);
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe(challenge(url, description));
}

describe.each(ADAPTERS)('personal access tokens on $name', (adapter) => {
  it('made on the command line, serve a real MCP client as their person, with their scope, and are never shown again', async () => {
    const team = await startTeam(adapter);
    const { url } = team.server;
    const full = await team.create('--user', 'ADA@example.com', '--scope', 'switchboard', '--name', 'nightly agent', '--expires', '30d');
    expect(full.said).toContain(`Created ${full.id} ("nightly agent") for ada (${team.ada.id}): scope switchboard, expires `);
    expect(full.said).toContain('This is the only time the token is shown');
    const writer = await connectWith(url, full.token);
    expect((await writer.listTools()).tools.map((t) => t.name)).toContain('triggers_delete');
    expect((await writer.callTool({ name: 'accounts_list', arguments: {} })).isError).toBeFalsy();
    // The call reaches the tool, which answers that there is no such trigger: the token may change things.
    const deleted = await writer.callTool({ name: 'triggers_delete', arguments: { id: 'trg_0000000000000000' } });
    expect(JSON.stringify(deleted.content)).toContain('No trigger \\"trg_0000000000000000\\"');

    const read = await team.create('--user', team.ada.id);
    expect(read.said).toMatch(/scope switchboard:read, expires \d{4}-\d\d-\d\d/);
    const reader = await connectWith(url, read.token);
    const { tools } = await reader.listTools();
    expect(tools.map((t) => t.name)).toContain('accounts_list');
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    const session = await openSession(url, read.token);
    const refused = await post(url, call('triggers_delete', { id: 'trg_0000000000000000' }), read.token, session);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", error_description="This call changes something; it needs a token with scope switchboard", scope="switchboard", resource_metadata="${url}/.well-known/oauth-protected-resource/mcp"`,
    );

    const listed = await team.cli('tokens', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID +NAME +PERSON +SCOPE +STATUS +CREATED \(UTC\) +EXPIRES \(UTC\) +LAST USED \(UTC\) +REVOKED \(UTC\)\n/);
    expect(listed.stdout).toMatch(new RegExp(`${full.id} +nightly agent +ada +switchboard +active +[0-9-]+ [0-9:]+ +[0-9-]+ [0-9:]+ +[0-9-]+ [0-9:]+ +-`));
    expect(listed.stdout).toMatch(new RegExp(`${read.id} +- +ada +switchboard:read +active`));
    const json = await team.cli('tokens', 'list', '--user', 'ada', '--json');
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ id: full.id, userId: team.ada.id, login: 'ada', name: 'nightly agent', scope: 'switchboard', status: 'active', lastUsedAt: expect.any(String), revokedAt: null }),
      expect.objectContaining({ id: read.id, scope: 'switchboard:read', lastUsedAt: expect.any(String) }),
    ]);
    expect(JSON.parse((await team.cli('tokens', 'list', '--user', 'bob@contoso.example', '--json')).stdout)).toEqual([]);
    const hash = (token: string) => createHash('sha256').update(token).digest('hex');
    const shown = [listed.stdout, json.stdout, team.server.logs.join('')].join('\n');
    for (const secret of [full.token, read.token, hash(full.token), hash(read.token), full.token.slice(4, 20)]) expect(shown).not.toContain(secret);
  });

  it('records a use at most once a minute, not on every call', async () => {
    const team = await startTeam(adapter);
    const { token, id } = await team.create('--user', 'ada');
    expect((await team.store.team.tokens.get(id))?.lastUsedAt).toBeNull();
    expect((await post(team.server.url, INITIALIZE, token)).status).toBe(200);
    const first = (await team.store.team.tokens.get(id))!.lastUsedAt;
    expect(first).toEqual(expect.any(String));
    expect((await post(team.server.url, INITIALIZE, token)).status).toBe(200);
    expect((await team.store.team.tokens.get(id))!.lastUsedAt).toBe(first);
    await adapter.raw(team.location, 'UPDATE team_tokens SET last_used_at = ? WHERE id = ?', '2020-01-01T00:00:00.000Z', id);
    expect((await post(team.server.url, INITIALIZE, token)).status).toBe(200);
    expect((await team.store.team.tokens.get(id))!.lastUsedAt! > first!).toBe(true);
  });

  it('refuses with 401 a tampered, expired or revoked token, and those of a disabled or removed person', async () => {
    const team = await startTeam(adapter);
    const { url } = team.server;
    const { token, id } = await team.create('--user', 'ada', '--expires', '1h');
    expect((await post(url, INITIALIZE, token)).status).toBe(200);

    const last = token.at(-1) === 'A' ? 'B' : 'A';
    await expectRefused(url, token.slice(0, -1) + last);
    await expectRefused(url, token + 'A');
    await expectRefused(url, 'sbp_');

    await adapter.raw(team.location, 'UPDATE team_tokens SET expires_at = ? WHERE id = ?', new Date(Date.now() - 1000).toISOString(), id);
    await expectRefused(url, token);
    expect((await team.cli('tokens', 'list', '--json')).stdout).toContain('"status": "expired"');

    const other = await team.create('--user', 'ada');
    const revoked = await team.cli('tokens', 'revoke', other.id);
    expect(revoked.stdout).toBe(`Revoked ${other.id}; it no longer works.\n`);
    await expectRefused(url, other.token);
    expect((await team.cli('tokens', 'revoke', other.id)).stdout).toMatch(new RegExp(`^${other.id} was already revoked \\(\\d{4}-`));

    // Disabling the person is enough for the check to refuse their tokens, revoked or not.
    const kept = await team.create('--user', 'ada');
    await team.store.team.users.setDisabled(team.ada.id, true);
    await expectRefused(url, kept.token, 'The person this access token was issued to may no longer sign in');
    await team.store.team.users.setDisabled(team.ada.id, false);
    expect((await post(url, INITIALIZE, kept.token)).status).toBe(200);
    // users disable revokes them too, so enabling the person again does not bring them back.
    const disabled = await team.cli('users', 'disable', 'ada');
    expect(disabled.stdout).toBe(`Disabled ada: their tokens no longer work; 1 personal access token(s) revoked (${team.ada.id}).\n`);
    expect((await team.cli('users', 'enable', 'ada')).code).toBe(0);
    await expectRefused(url, kept.token);
    expect((await team.store.team.tokens.get(kept.id))?.revokedAt).toEqual(expect.any(String));

    const bobs = await team.create('--user', 'bob@contoso.example', '--scope', 'switchboard');
    expect((await post(url, INITIALIZE, bobs.token)).status).toBe(200);
    const removed = await team.cli('users', 'remove', 'bob@contoso.example');
    expect(removed.stdout).toBe(`Removed bob@contoso.example; 1 personal access token(s) deleted (${team.bob.id}).\n`);
    await expectRefused(url, bobs.token);
    expect(await team.store.team.tokens.get(bobs.id)).toBeUndefined();
  });

  it('says which option is wrong and how to fix it, and makes nothing then', async () => {
    const team = await startTeam(adapter);
    await team.store.team.users.setDisabled(team.bob.id, true);
    const cases: Array<[string[], string]> = [
      [['--user', 'carol'], '--user "carol": no one with that id, login or address has signed in; switchboard users list shows who has.'],
      [['--user', 'bob@contoso.example'], `--user bob@contoso.example is disabled: enable them first (switchboard users enable ${team.bob.id}), or name another person.`],
      [['--user', 'ada', '--expires', '30'], '--expires takes hours, days or weeks from now, from 1h to 365d, such as 12h, 30d or 8w; not "30".'],
      [['--user', 'ada', '--expires', '366d'], 'from 1h to 365d'],
      [['--user', 'ada', '--expires', 'never'], '--expires never is not offered: every token expires'],
      [['--user', 'ada', '--scope', 'admin'], '--scope is switchboard (every tool) or switchboard:read (only tools that change nothing), not "admin".'],
      [['--user', 'ada', '--name', 'two\nlines'], '--name is a label of 1 to 100 characters on one line'],
      [[], "required option '--user <user>' not specified"],
    ];
    for (const [args, message] of cases) {
      const refused = await team.cli('tokens', 'create', ...args);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain(message);
      expect(refused.stdout).toBe('');
    }
    expect(await team.store.team.tokens.list()).toEqual([]);
    const unknown = await team.cli('tokens', 'revoke', 'pat_0000000000000000');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No token has the id "pat_0000000000000000"; switchboard tokens list shows them');
    expect((await team.cli('tokens', 'list')).stdout).toBe('No tokens yet (switchboard tokens create --user <person> makes one).\n');
  });
});

describe('a personal access token', () => {
  it('carries a prefix secret scanners can find and 256 random bits, is known by its SHA-256 hash, and is taken out of logged text', () => {
    const { token, hash } = newPersonalToken();
    expect(token).toMatch(/^sbp_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token.slice(4), 'base64url')).toHaveLength(32);
    expect(newPersonalToken().token).not.toBe(token);
    expect(hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(hashPersonalToken(token)).toBe(hash);
    expect(new Redactor().redact(`agent started with ${token}, header x=${token}`)).toBe('agent started with sbp_[redacted], header x=sbp_[redacted]');
  });
});

describe('docs/team.md: Tokens for headless agents', () => {
  const lines = shellBlocks('docs/team.md', '## Tokens for headless agents').flatMap(commandLines);

  it('runs as written, the example id standing for a real one', async () => {
    const location = await sqlite.location();
    const store = await openAt(location, { secretKey: 'readme key' });
    await store.team.users.signIn({ provider: 'github', subject: '1', login: 'ada', email: 'ada@example.com' });
    const env = { PATH: process.env.PATH ?? '', SWITCHBOARD_DATA_DIR: location.dataDir, SWITCHBOARD_SECRET_KEY: 'readme key' };
    const outputs: string[] = [];
    for (const line of lines) {
      const first = (await store.team.tokens.list())[0];
      const script = `${SWITCHBOARD}\n${line.replace('pat_0123456789abcdef', first?.id ?? 'none yet')}`;
      const run = spawnSync('bash', ['-c', script], { env, encoding: 'utf8', timeout: 20_000 });
      expect(run.status, `${line}\n${run.stderr}`).toBe(0);
      outputs.push(run.stdout);
    }
    expect(lines).toHaveLength(5);
    expect(await store.team.tokens.list()).toEqual([
      expect.objectContaining({ name: 'nightly triage', scope: 'switchboard:read', revokedAt: expect.any(String) }),
      expect.objectContaining({ name: null, scope: 'switchboard', revokedAt: null }),
    ]);
    const [made, revoked] = await store.team.tokens.list();
    expect(Date.parse(made!.expiresAt) - Date.parse(made!.createdAt)).toBeCloseTo(90 * 86_400_000, -5);
    expect(Date.parse(revoked!.expiresAt) - Date.parse(revoked!.createdAt)).toBeCloseTo(30 * 86_400_000, -5);
    expect(outputs[3]).toContain('nightly triage');
    expect(outputs[4]).toBe(`Revoked ${made!.id}; it no longer works.\n`);
  });
});
