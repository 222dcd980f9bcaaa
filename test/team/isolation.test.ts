import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import * as z from 'zod/v4';
import { describe, expect, it } from 'vitest';
import { EVENT_NOTIFICATION } from '../../src/mcp/server.js';
import type { Store, TeamUser } from '../../src/store/index.js';
import { newPersonalToken } from '../../src/team/tokens.js';
import { runCli } from '../e2e/cli.js';
import { ADAPTERS, openAt, type Adapter } from '../store/adapters.js';
import { pageSession, startTeamServer, type TeamServer } from './team.js';
import { until } from '../support/wait.js';
import { sandboxPerFile } from '../support/sandbox-per-file.js';

/**
 * Two people on one team server. Everything one of them can reach (every tool that takes an account, trigger, cursor
 * or consumer; resources, subscriptions and listen streams; notifications; the page, its forms and its event stream)
 * is tried with the other's ids, and nothing of ada's reaches bob. Each check has its positive twin: ada reaches it.
 * Every tool of the registry that takes an account, and cut results' cursors, are tried in isolation-tools.test.ts.
 */

const bed = sandboxPerFile();

const REPO = { owner: 'sbx-octocat', repo: 'hello-world' };
const EventNote = z.object({ method: z.literal(EVENT_NOTIFICATION), params: z.object({ eventId: z.string(), triggerId: z.string() }).passthrough() });

interface Person {
  user: TeamUser;
  token: string;
  /** A 2026-07-28 client. */
  modern: Client;
  /** A 2025-11-25 session, and the event notices it received. */
  legacy: LegacyClient;
  notices: string[];
}

async function person(server: TeamServer, store: Store, login: string, email: string, scope = 'switchboard'): Promise<Person> {
  const user = await store.team.users.signIn({ provider: 'github', subject: `id-${login}`, login, email });
  const { token, hash } = newPersonalToken();
  await store.team.tokens.create({ owner: user.id, name: 'isolation', scope, tokenHash: hash, expiresAt: new Date(Date.now() + 3600_000).toISOString() });
  const headers = { authorization: `Bearer ${token}` };
  const modern = new Client({ name: login, version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await modern.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
  const legacy = new LegacyClient({ name: login, version: '1' });
  await legacy.connect(new LegacyTransport(new URL(`${server.url}/mcp`), { requestInit: { headers } }));
  const notices: string[] = [];
  legacy.setNotificationHandler(EventNote, (n) => void notices.push(n.params.eventId));
  bed.closeAfterTest(() => modern.close(), () => legacy.close());
  return { user, token, modern, legacy, notices };
}

type Result = { isError?: boolean; structuredContent?: Record<string, unknown>; content?: Array<{ type: string; text?: string }> };
const text = (r: Result) => (r.content ?? []).map((c) => c.text ?? '').join('\n');
const call = async (p: Person, name: string, args: Record<string, unknown>) => (await p.modern.callTool({ name, arguments: args })) as Result;

/** What the page's event stream sends in its first second, from the start of the log. */
async function streamed(page: { get(path: string): Promise<Response> }): Promise<string> {
  const res = await page.get('/events/stream?after=0');
  const reader = res.body!.getReader();
  let seen = '';
  const end = Date.now() + 1_000;
  while (Date.now() < end) {
    const chunk = await Promise.race([reader.read(), new Promise<undefined>((r) => setTimeout(r, end - Date.now()))]);
    if (!chunk || chunk.done) break;
    seen += new TextDecoder().decode(chunk.value);
  }
  await reader.cancel();
  return seen;
}

describe.each(ADAPTERS)('team isolation on %s', (adapter: Adapter) => {
  it('nothing of one person reaches another: tools, resources, subscriptions, notifications, cursors, the page', async () => {
    const location = await adapter.location();
    const store = await openAt(location, { secretKey: 'team test key' });
    bed.closeAfterTest(() => store.close());
    const server = await startTeamServer({ sandbox: bed.sandbox, location });
    bed.closeAfterTest(() => server.close());
    bed.sandbox.states.github.tokens.add('ghp_ada_isolation_token');
    bed.sandbox.states.github.tokens.add('ghp_bob_isolation_token');
    const ada = await person(server, store, 'ada', 'ada@contoso.example');
    const bob = await person(server, store, 'bob', 'bob@contoso.example');

    // Ada's account, trigger, consumer cursor and events.
    const adaAccount = await store.ownedBy(ada.user.id).accounts.add({ provider: 'github', label: 'work', secret: { kind: 'token', token: 'ghp_ada_isolation_token' } });
    await store.ownedBy(bob.user.id).accounts.add({ provider: 'github', label: 'mine', secret: { kind: 'token', token: 'ghp_bob_isolation_token' } });
    const created = await call(ada, 'triggers_create', { kind: 'github.new_issue', account: 'work', config: { repo: 'sbx-octocat/hello-world', mode: 'poll' } });
    expect(created.isError, text(created)).toBeFalsy();
    const triggerId = (created.structuredContent!.trigger as { id: string }).id;
    const uri = `switchboard://triggers/${triggerId}/events`;
    await ada.legacy.subscribeResource({ uri });
    const first = await call(ada, 'events_next', { consumer: 'inbox' });
    expect(first.isError, text(first)).toBeFalsy();
    const [event] = await store.triggers.commit(triggerId, {
      events: [{ dedupeKey: 'iso-1', occurredAt: new Date().toISOString(), summary: 'Issue #1: secret plans', payload: { secret: 'ada-only' } }],
    });
    await until(() => ada.notices.includes(String(event!.id)), "ada's notice of her event", 15_000);

    // Tools: bob sees none of it, and none of it can be named.
    const bobAccounts = await call(bob, 'accounts_list', {});
    expect(JSON.stringify(bobAccounts.structuredContent)).not.toContain(adaAccount.id);
    expect((bobAccounts.structuredContent!.accounts as unknown[]).length).toBe(1);
    for (const account of [adaAccount.id, 'work']) {
      const repo = await call(bob, 'github_get_repository', { ...REPO, account });
      expect(repo.isError).toBe(true);
      expect(text(repo)).not.toContain('ghp_ada');
      const raw = await call(bob, 'github_api_call', { account, method: 'GET', endpoint: '/user', headers: { accept: 'application/vnd.github+json' } });
      expect(raw.isError).toBe(true);
      const trigger = await call(bob, 'triggers_create', { kind: 'github.new_issue', account, config: { repo: 'sbx-octocat/hello-world', mode: 'poll' } });
      expect(trigger.isError).toBe(true);
    }
    expect((await call(ada, 'github_get_repository', { ...REPO, account: 'work' })).isError).toBeFalsy();
    expect((await call(bob, 'triggers_list', {})).structuredContent!.triggers).toEqual([]);
    expect(JSON.stringify((await call(ada, 'triggers_list', {})).structuredContent)).toContain(triggerId);
    const deleted = await call(bob, 'triggers_delete', { id: triggerId });
    expect(deleted.isError).toBe(true);
    expect(await store.triggers.get(triggerId)).toBeDefined();

    // Events: not from the start of the log, not by naming the trigger, not through a consumer of the same name.
    for (const args of [{ cursor: '0' }, { cursor: '0', triggers: [triggerId] }, { consumer: 'inbox', cursor: '0' }]) {
      const read = await call(bob, 'events_next', args);
      expect(read.isError, text(read)).toBeFalsy();
      expect(read.structuredContent!.events).toEqual([]);
      expect(JSON.stringify(read.structuredContent)).not.toContain('secret plans');
    }
    const adaRead = await call(ada, 'events_next', { consumer: 'inbox' });
    expect(JSON.stringify(adaRead.structuredContent)).toContain('secret plans');
    const waited = await call(bob, 'events_next', { wait_seconds: 1 });
    expect(waited.structuredContent!.events).toEqual([]);

    // Resources, subscriptions and listen streams.
    const listed = await bob.modern.listResources();
    expect(JSON.stringify(listed)).not.toContain(triggerId);
    await expect(bob.modern.readResource({ uri })).rejects.toThrow(/not found/);
    await expect(bob.legacy.subscribeResource({ uri })).rejects.toThrow(/not found/);
    await expect(bob.modern.listen({ resourceSubscriptions: [uri] })).rejects.toThrow(/not found/);
    expect(JSON.stringify(await bob.modern.readResource({ uri: 'switchboard://accounts' }))).not.toContain(adaAccount.id);
    expect(JSON.stringify(await ada.modern.readResource({ uri }))).toContain('secret plans');

    // Notifications: ada's 2025 session heard her event; bob's, open all along, heard nothing of it.
    const [second] = await store.triggers.commit(triggerId, { events: [{ dedupeKey: 'iso-2', occurredAt: new Date().toISOString(), summary: 'Issue #2', payload: {} }] });
    await until(() => ada.notices.includes(String(second!.id)), "ada's second notice", 15_000);
    expect(bob.notices).toEqual([]);

    // The page: bob's session shows, streams and changes nothing of ada's.
    const bobPage = await pageSession(server, store, bob.user);
    expect(bobPage.page).not.toContain(adaAccount.id);
    expect(bobPage.page).not.toContain('secret plans');
    expect((await bobPage.get(`/accounts/remove?id=${adaAccount.id}`)).status).toBe(404);
    for (const [path, form] of [
      ['/accounts/remove', { id: adaAccount.id, confirm: 'yes' }],
      ['/accounts/rename', { id: adaAccount.id, label: 'stolen' }],
      ['/triggers/remove', { id: triggerId }],
      ['/triggers/test', { id: triggerId }],
    ] as const) {
      expect((await bobPage.post(path, form)).status).toBe(303);
    }
    expect(await store.ownedBy(ada.user.id).accounts.find('work')).toMatchObject({ id: adaAccount.id, label: 'work' });
    expect(await store.triggers.get(triggerId)).toBeDefined();
    expect(await store.events.after(second!.id, { limit: 10 })).toEqual([]);
    const adaPage = await pageSession(server, store, ada.user);
    expect(adaPage.page).toContain(adaAccount.id);
    // Ada, the first to sign in, is the admin: she sees who has how much, never what; bob, a member, sees no one.
    expect(ada.user.role).toBe('admin');
    const people = /<section class="panel" id="people"[\s\S]*?<\/section>/.exec(adaPage.page)![0];
    expect(people).toMatch(/<td>bob <span class="muted small">bob@contoso.example<\/span><\/td><td>member<\/td><td>active<\/td><td>1<\/td><td>0<\/td><td>0<\/td>/);
    expect(people).not.toContain('mine');
    expect(bobPage.page).not.toContain('id="people"');
    // The audit trail: bob's view and his page's Activity hold his records only; ada, the admin, sees everyone's with who.
    const bobsRecords = await store.ownedBy(bob.user.id).audit.list({ limit: 1000 });
    expect(bobsRecords.length).toBeGreaterThan(0);
    expect(bobsRecords.every((r) => r.owner === bob.user.id)).toBe(true);
    // Bob's agents came in with a personal token, named by its id, never by the token itself.
    const bobsCall = bobsRecords.find((r) => r.action === 'tool.call')!;
    expect(bobsCall).toMatchObject({ auth: 'personal-token', clientName: 'bob 1', clientId: expect.stringMatching(/^\S+$/) });
    expect(JSON.stringify(bobsRecords)).not.toContain(bob.token);
    expect((await store.audit.list({ limit: 1000 })).some((r) => r.owner === ada.user.id && r.action === 'trigger.created')).toBe(true);
    const bobActivity = /<section class="panel" id="activity"[\s\S]*?<\/section>/.exec(bobPage.page)![0];
    expect(bobActivity).toContain('Your recent tool calls');
    expect(bobActivity).not.toContain('trigger.created');
    expect(bobActivity).not.toContain('<th scope="col">Who</th>');
    const adaActivity = /<section class="panel" id="activity"[\s\S]*?<\/section>/.exec(adaPage.page)![0];
    expect(adaActivity).toContain('<th scope="col">Who</th>');
    expect(adaActivity).toMatch(/<td>bob<\/td>/);
    expect(adaActivity).toContain('trigger.created');
    expect(await streamed(bobPage)).not.toContain('trigger-event');
    expect(await streamed(adaPage)).toContain('secret plans');

    // Without a session there is no page.
    expect((await fetch(`${server.url}/`)).status).toBe(401);
  }, 120_000);

  it('a shared account is usable, not changeable; unsharing and disabling stop the triggers on it', async () => {
    const location = await adapter.location();
    const store = await openAt(location, { secretKey: 'team test key' });
    bed.closeAfterTest(() => store.close());
    const server = await startTeamServer({ sandbox: bed.sandbox, location });
    bed.closeAfterTest(() => server.close());
    bed.sandbox.states.github.tokens.add('ghp_team_bot_token');
    const bob = await person(server, store, 'bob', 'bob@contoso.example');
    const bot = await store.ownedBy('').accounts.add({ provider: 'github', label: 'bot', secret: { kind: 'token', token: 'ghp_team_bot_token' } });
    expect((await call(bob, 'github_get_repository', { ...REPO, account: 'bot' })).isError).toBe(true);

    const env = { SWITCHBOARD_DATA_DIR: location.dataDir, SWITCHBOARD_SECRET_KEY: 'team test key', ...(location.databaseUrl ? { SWITCHBOARD_DATABASE_URL: location.databaseUrl } : {}) };
    const shared = await runCli(['accounts', 'share', 'bot', '--with', 'bob'], { env });
    expect(shared.stdout).toContain('Shared github account "bot" with bob');
    const repo = await call(bob, 'github_get_repository', { ...REPO, account: 'bot' });
    expect(repo.isError, text(repo)).toBeFalsy();
    const created = await call(bob, 'triggers_create', { kind: 'github.new_issue', account: 'bot', config: { repo: 'sbx-octocat/hello-world', mode: 'poll' } });
    expect(created.isError, text(created)).toBeFalsy();
    const triggerId = (created.structuredContent!.trigger as { id: string }).id;
    const shown = await runCli(['users', 'show', 'bob'], { env });
    expect(shown.stdout).toMatch(/Shared with them:\n {2}github {2}bot/);
    expect(shown.stdout).toContain(triggerId);
    expect(shown.stdout).not.toContain('ghp_team_bot_token');

    // Bob may use it, never change it: the page's forms act on his own accounts only.
    const page = await pageSession(server, store, bob.user);
    await page.post('/accounts/rename', { id: bot.id, label: 'mine-now' });
    await page.post('/accounts/remove', { id: bot.id, confirm: 'yes' });
    expect(await store.ownedBy('').accounts.find(bot.id)).toMatchObject({ label: 'bot' });

    const event = (key: string) => ({ events: [{ dedupeKey: key, occurredAt: new Date().toISOString(), summary: key, payload: {} }] });
    expect(await store.triggers.commit(triggerId, event('while-shared'))).toHaveLength(1);
    await runCli(['accounts', 'unshare', 'bot', '--with', 'bob'], { env });
    expect((await call(bob, 'github_get_repository', { ...REPO, account: 'bot' })).isError).toBe(true);
    expect(await store.triggers.commit(triggerId, event('after-unshare'))).toEqual([]);
    expect((await store.work.claimPolls('test', ['github.new_issue'], 10, 1000)).map((t) => t.id)).not.toContain(triggerId);

    await runCli(['accounts', 'share', 'bot', '--with', 'everyone'], { env });
    expect(await store.triggers.commit(triggerId, event('shared-again'))).toHaveLength(1);
    const disabled = await runCli(['users', 'disable', 'bob'], { env });
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(await store.triggers.commit(triggerId, event('while-disabled'))).toEqual([]);
    expect((await store.work.claimPolls('test', ['github.new_issue'], 10, 1000)).map((t) => t.id)).not.toContain(triggerId);
    await runCli(['users', 'enable', 'bob'], { env });
    expect(await store.triggers.commit(triggerId, event('enabled-again'))).toHaveLength(1);

    const removed = await runCli(['users', 'remove', 'bob'], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(await store.triggers.get(triggerId)).toBeUndefined();
    expect(await store.ownedBy('').accounts.find(bot.id)).toBeDefined();
  }, 120_000);

  it('a read-only token in discover mode calls, through tools_call, only the tools that change nothing, and only its own', async () => {
    const location = await adapter.location();
    const store = await openAt(location, { secretKey: 'team test key' });
    bed.closeAfterTest(() => store.close());
    const server = await startTeamServer({ sandbox: bed.sandbox, location, env: { SWITCHBOARD_TOOL_MODE: 'discover' } });
    bed.closeAfterTest(() => server.close());
    bed.sandbox.states.github.tokens.add('ghp_reader_token');
    const reader = await person(server, store, 'reader', 'reader@contoso.example', 'switchboard:read');
    await store.ownedBy(reader.user.id).accounts.add({ provider: 'github', label: 'work', secret: { kind: 'token', token: 'ghp_reader_token' } });
    const other = await store.ownedBy('').accounts.add({ provider: 'github', label: 'operator', secret: { kind: 'token', token: 'ghp_reader_token' } });
    expect((await reader.modern.listTools()).tools.map((t) => t.name).sort()).toEqual(['tools_call', 'tools_describe', 'tools_search']);
    const read = await call(reader, 'tools_call', { name: 'github_get_repository', arguments: { ...REPO, account: 'work' } });
    expect(read.isError, text(read)).toBeFalsy();
    const write = await call(reader, 'tools_call', { name: 'github_create_issue', arguments: { ...REPO, title: 'nope', account: 'work' } });
    expect(write.isError).toBe(true);
    expect(text(write)).toMatch(/"github_create_issue" changes things/);
    const across = await call(reader, 'tools_call', { name: 'github_get_repository', arguments: { ...REPO, account: other.id } });
    expect(across.isError).toBe(true);
  }, 120_000);
});
