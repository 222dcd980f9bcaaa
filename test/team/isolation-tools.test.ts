import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { toMcpTool } from '../../src/mcp/tools.js';
import { buildTools } from '../../src/registry.js';
import type { Account, Provider, Store, TeamUser } from '../../src/store/index.js';
import { newPersonalToken } from '../../src/team/tokens.js';
import { ADAPTERS, type Adapter } from '../store/adapters.js';
import { pageSession, startTeamServer, type TeamServer } from './team.js';
import { sandboxPerFile } from '../support/sandbox-per-file.js';

/**
 * Every tool of the registry that takes an account, called with one person's token naming the other's account (by id
 * and by label): each is refused as if the account did not exist, before any request reaches a provider. Page forms,
 * and cut results' cursors, likewise. Each has its positive twin: the owner reaches it.
 */

const bed = sandboxPerFile();

type Schema = { type?: string | string[]; const?: unknown; enum?: unknown[]; anyOf?: Schema[]; default?: unknown; format?: string; minLength?: number; minimum?: number; minItems?: number; items?: Schema; required?: string[]; properties?: Record<string, Schema> };

/** The smallest arguments the tool's schema accepts: what is required, each with a plain value of its type. */
function smallest(s: Schema | undefined): unknown {
  if (!s) return 'x';
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.anyOf) return smallest(s.anyOf[0]);
  if (s.default !== undefined) return s.default;
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'string') return s.format === 'date-time' ? '2030-01-01T10:00:00Z' : s.format === 'email' ? 'x@example.com' : 'x'.repeat(s.minLength ?? 1);
  if (type === 'integer' || type === 'number') return s.minimum ?? 1;
  if (type === 'boolean') return false;
  if (type === 'array') return Array.from({ length: s.minItems ?? 0 }, () => smallest(s.items));
  if (type === 'object') return Object.fromEntries((s.required ?? []).map((k) => [k, smallest(s.properties?.[k])]));
  return 'x';
}

/** Platform tools name a GitHub account here: a trigger needs a kind, and a kind its config. */
const PLATFORM_ARGS: Record<string, Record<string, unknown>> = {
  triggers_create: { kind: 'github.new_issue', config: { repo: 'sbx-octocat/hello-world', mode: 'poll' } },
  triggers_list: {},
};

/** Each tool that takes an account, the provider of that account, and arguments its schema accepts. */
const ACCOUNT_TOOLS = buildTools({ readOnly: false })
  .filter((tool) => (toMcpTool(tool).inputSchema.properties as Record<string, unknown> | undefined)?.account)
  .map((tool) => ({ tool, provider: (tool.connector ?? 'github') as Provider, args: PLATFORM_ARGS[tool.name] ?? (smallest(toMcpTool(tool).inputSchema as Schema) as Record<string, unknown>) }));

interface Person {
  user: TeamUser;
  token: string;
  client: Client;
  accounts: Record<Provider, Account>;
}

async function person(server: TeamServer, store: Store, login: string): Promise<Person> {
  const user = await store.team.users.signIn({ provider: 'github', subject: `id-${login}`, login, email: `${login}@contoso.example` });
  const { token, hash } = newPersonalToken();
  await store.team.tokens.create({ owner: user.id, name: 'isolation', scope: 'switchboard', tokenHash: hash, expiresAt: new Date(Date.now() + 3600_000).toISOString() });
  const client = new Client({ name: login, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  bed.closeAfterTest(() => client.close());
  const accounts = {} as Record<Provider, Account>;
  for (const sample of bed.sandbox.accounts) accounts[sample.provider] = await store.ownedBy(user.id).accounts.add({ ...sample, label: `${login}-${sample.provider}` });
  return { user, token, client, accounts };
}

type Result = { isError?: boolean; structuredContent?: Record<string, unknown>; content?: Array<{ type: string; text?: string }> };
const text = (r: Result) => (r.content ?? []).map((c) => c.text ?? '').join('\n');
const call = async (p: Person, name: string, args: Record<string, unknown>) => (await p.client.callTool({ name, arguments: args })) as Result;
const requestCounts = () => Object.fromEntries(Object.entries(bed.sandbox.servers).map(([name, s]) => [name, s.requests.length]));
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A team server on the adapter's store, with ada and bob signed in to it. */
async function twoPeople(adapter: Adapter) {
  const server = await startTeamServer({ sandbox: bed.sandbox, location: await adapter.location(), env: { SWITCHBOARD_MAX_RESULT_TOKENS: '1000' } });
  bed.closeAfterTest(() => server.close());
  const { store } = server.runtime.deps;
  return { server, store, ada: await person(server, store, 'ada'), bob: await person(server, store, 'bob') };
}

describe.each(ADAPTERS)('team isolation of every account tool on %s', (adapter: Adapter) => {
  it("refuses every tool that takes an account another person's account, by id and label, before any provider is asked", async () => {
    const { store, ada, bob } = await twoPeople(adapter);

    const listed = new Set((await bob.client.listTools()).tools.map((t) => t.name));
    expect(ACCOUNT_TOOLS.length).toBeGreaterThanOrEqual(57);
    for (const name of ['outlook_find_email', 'vercel_list_deployments', 'sales_find_company', 'github_create_issue', 'outlook_api_call', 'sales_api_call', 'github_api_call', 'vercel_api_call', 'triggers_create']) {
      expect(ACCOUNT_TOOLS.map((t) => t.tool.name)).toContain(name);
    }

    for (const { tool, provider, args } of ACCOUNT_TOOLS) {
      expect(listed.has(tool.name), tool.name).toBe(true);
      const theirs = ada.accounts[provider];
      for (const [ref, other] of [[theirs.id, theirs.label], [theirs.label, theirs.id]] as const) {
        const named = { ...args, account: ref };
        // The arguments are valid: only the account can be why the call is refused.
        expect(tool.input.safeParse(named).success, tool.name).toBe(true);
        const before = requestCounts();
        const result = await call(bob, tool.name, named);
        expect(result.isError, `${tool.name} with ${ref}: ${text(result)}`).toBe(true);
        expect(text(result), tool.name).toMatch(new RegExp(`No (${provider} )?account "${escape(ref)}"`));
        expect(text(result), tool.name).not.toContain(other);
        expect(requestCounts(), `${tool.name} asked a provider`).toEqual(before);
      }
    }
    expect(await store.triggers.list()).toEqual([]);

    // Ada's own accounts work, and her MCP token goes to no provider: each gets only her account's credential.
    const checks: Array<[string, Record<string, unknown>, Provider]> = [
      ['outlook_api_call', { method: 'GET', endpoint: '/_sandbox/echo' }, 'outlook'],
      ['github_api_call', { method: 'GET', endpoint: '/user', headers: { accept: 'application/vnd.github+json' } }, 'github'],
      ['vercel_api_call', { method: 'GET', path: '/v6/deployments' }, 'vercel'],
      ['sales_api_call', { method: 'GET', endpoint: '/account/usage' }, 'sales'],
    ];
    for (const [name, args, provider] of checks) {
      const before = bed.sandbox.servers[provider].requests.length;
      const result = await call(ada, name, { ...args, account: ada.accounts[provider].label });
      expect(result.isError, `${name}: ${text(result)}`).toBeFalsy();
      const sent = bed.sandbox.servers[provider].requests.slice(before);
      expect(sent.length, name).toBeGreaterThan(0);
      const secret = bed.sandbox.accounts.find((a) => a.provider === provider)!.secret as { token?: string; apiKey?: string };
      for (const request of sent) {
        expect(JSON.stringify(request.headers)).not.toContain(ada.token);
        expect(request.query.toString()).not.toContain(ada.token);
        expect(provider === 'sales' ? request.headers.api_key : request.headers.authorization).toBe(provider === 'sales' ? secret.apiKey : `Bearer ${secret.token}`);
      }
    }
  }, 180_000);

  it("keeps a person's cut results and page forms from another: a cursor of hers, and forms naming her accounts, do nothing for him", async () => {
    const { server, store, ada, bob } = await twoPeople(adapter);

    // A result cut for ada: bob's call with her cursor is refused, and leaves it to her.
    const first = await call(ada, 'outlook_api_call', { method: 'GET', endpoint: '/me/messages?$top=50', account: 'ada-outlook' });
    expect(first.isError, text(first)).toBeFalsy();
    const cursor = first.structuredContent!.next_cursor as string;
    expect(cursor).toMatch(/^cut_/);
    const taken = await call(bob, 'outlook_api_call', { cursor });
    expect(taken.isError).toBe(true);
    expect(text(taken)).toContain("is not a cursor of outlook_api_call's cut results");
    const rest = await call(ada, 'outlook_api_call', { cursor });
    expect(rest.isError, text(rest)).toBeFalsy();
    expect(JSON.stringify(rest.structuredContent)).not.toEqual(JSON.stringify(first.structuredContent));

    // The page: bob's forms name ada's accounts; nothing of hers changes, and no trigger is made on them.
    const spare = await store.ownedBy(ada.user.id).accounts.add({ ...bed.sandbox.accounts.find((a) => a.provider === 'github')!, label: 'ada-spare' });
    expect(spare.isDefault).toBe(false);
    const page = await pageSession(server, store, bob.user);
    expect((await page.post('/accounts/default', { id: spare.id })).status).toBe(303);
    const form = { kind: 'github.new_issue', 'github.repo': 'sbx-octocat/hello-world', 'github.mode': 'poll' };
    for (const account of [ada.accounts.github.id, ada.accounts.github.label]) expect((await page.post('/triggers/create', { ...form, account })).status).toBe(303);
    expect(await store.ownedBy(ada.user.id).accounts.find(spare.id)).toMatchObject({ isDefault: false });
    expect(await store.ownedBy(ada.user.id).accounts.find(ada.accounts.github.id)).toMatchObject({ isDefault: true });
    expect(await store.triggers.list()).toEqual([]);
    const shown = await (await page.get('/')).text();
    expect(shown).toContain(`No github account &quot;${ada.accounts.github.label}&quot;`);
    expect(shown).not.toContain(ada.accounts.github.id);

    // Their twins: ada's own forms do change her accounts and make her trigger.
    const adaPage = await pageSession(server, store, ada.user);
    await adaPage.post('/accounts/default', { id: spare.id });
    expect(await store.ownedBy(ada.user.id).accounts.find(spare.id)).toMatchObject({ isDefault: true });
    await adaPage.post('/triggers/create', { ...form, account: ada.accounts.github.id });
    expect((await store.triggers.list()).map((t) => t.accountId)).toEqual([ada.accounts.github.id]);
  }, 120_000);
});
