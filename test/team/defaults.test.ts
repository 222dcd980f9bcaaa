import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { EVERYONE, PERSONAL_OWNER, type Store, type TeamUser } from '../../src/store/index.js';
import { newPersonalToken } from '../../src/team/tokens.js';
import { ADAPTERS, type Adapter } from '../store/adapters.js';
import { pageSession, startTeamServer, type TeamServer } from './team.js';
import { sandboxPerFile } from '../support/sandbox-per-file.js';

/**
 * "Default" is per person: the account a call of theirs without `account` uses. Each person's accounts_list, accounts
 * resource, page and error texts mark that account, and no other, whoever else holds a default on a shared account.
 */

const bed = sandboxPerFile();

const SAMPLE = () => bed.sandbox.accounts.find((a) => a.provider === 'github')!;

/** A GitHub account with a token of its own, valid at the sandbox: which account a call used shows in the header it sent. */
async function githubAccount(store: Store, label: string) {
  const token = `ghp_${label.replace(/\W/g, '')}${Math.random().toString(36).slice(2)}`;
  bed.sandbox.states.github.tokens.add(token);
  const account = await store.accounts.add({ ...SAMPLE(), label, identity: label, secret: { kind: 'token', token } });
  return { account, token };
}

interface Person {
  user: TeamUser;
  client: Client;
}

async function person(server: TeamServer, store: Store, login: string): Promise<Person> {
  const user = await store.team.users.signIn({ provider: 'github', subject: `id-${login}`, login, email: `${login}@contoso.example` });
  const { token, hash } = newPersonalToken();
  await store.team.tokens.create({ owner: user.id, name: 'defaults', scope: 'switchboard', tokenHash: hash, expiresAt: new Date(Date.now() + 3600_000).toISOString() });
  const client = new Client({ name: login, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  bed.closeAfterTest(() => client.close());
  return { user, client };
}

type Result = { isError?: boolean; structuredContent?: Record<string, any>; content?: Array<{ type: string; text?: string }> };
const text = (r: Result) => (r.content ?? []).map((c) => c.text ?? '').join('\n');
type Listed = { label: string; is_default: boolean };

/** The labels of a person's GitHub accounts marked default, by accounts_list and by the accounts resource. */
async function marked(p: Person) {
  const listed = ((await p.client.callTool({ name: 'accounts_list', arguments: { provider: 'github' } })) as Result).structuredContent!.accounts as Listed[];
  const read = await p.client.readResource({ uri: 'switchboard://accounts' });
  const resource = (JSON.parse((read.contents[0] as { text: string }).text) as { accounts: Array<Listed & { provider: string }> }).accounts.filter((a) => a.provider === 'github');
  const defaults = (accounts: Listed[]) => accounts.filter((a) => a.is_default).map((a) => a.label);
  expect(defaults(resource)).toEqual(defaults(listed));
  return { labels: listed.map((a) => a.label), defaults: defaults(listed) };
}

/** The token a call without `account` sent to GitHub, or the error it got. */
async function usedWithoutAccount(p: Person): Promise<string> {
  const before = bed.sandbox.servers.github.requests.length;
  const result = (await p.client.callTool({ name: 'github_api_call', arguments: { method: 'GET', endpoint: '/user', headers: { accept: 'application/vnd.github+json' } } })) as Result;
  if (result.isError) return text(result);
  return String(bed.sandbox.servers.github.requests.slice(before).at(-1)!.headers.authorization).replace(/^Bearer /, '');
}

describe.each(ADAPTERS)('the default account of each person on $name', (adapter: Adapter) => {
  async function team() {
    const server = await startTeamServer({ sandbox: bed.sandbox, location: await adapter.location() });
    bed.closeAfterTest(() => server.close());
    const { store } = server.runtime.deps;
    const ops = await githubAccount(store.ownedBy(PERSONAL_OWNER), 'ops');
    return { server, store, ops, ada: await person(server, store, 'ada'), bob: await person(server, store, 'bob'), cy: await person(server, store, 'cy') };
  }

  it('marks, for each person, exactly the account their call without "account" uses', async () => {
    const { server, store, ops, ada, bob, cy } = await team();
    const operator = store.ownedBy(PERSONAL_OWNER);
    await operator.accounts.share('ops', ada.user.id);
    const adaOwn = await githubAccount(store.ownedBy(ada.user.id), 'ada-github');

    // Ada: her own account and the operator's shared one; hers is the default, the operator's is not hers.
    expect(await marked(ada)).toEqual({ labels: ['ops', 'ada-github'], defaults: ['ada-github'] });
    expect(await usedWithoutAccount(ada)).toBe(adaOwn.token);
    // The operator's own default is unchanged for the operator.
    expect((await operator.accounts.list()).map((a) => [a.label, a.isDefault])).toEqual([['ops', true]]);

    // Bob: nothing shared, nothing of his own.
    expect(await marked(bob)).toEqual({ labels: [], defaults: [] });
    expect(await usedWithoutAccount(bob)).toMatch(/No github account is connected/);

    // Shared with everyone: cy has no account of her own, so the operator's is her only one, and her default.
    await operator.accounts.share('ops', EVERYONE);
    expect(await marked(cy)).toEqual({ labels: ['ops'], defaults: ['ops'] });
    expect(await usedWithoutAccount(cy)).toBe(ops.token);
    expect((await marked(ada)).defaults).toEqual(['ada-github']);

    // Two shared accounts and none of her own: none is cy's default, and the error lists both without calling either so.
    await githubAccount(operator, 'ops-2');
    await operator.accounts.share('ops-2', EVERYONE);
    expect(await marked(cy)).toEqual({ labels: ['ops', 'ops-2'], defaults: [] });
    const none = await usedWithoutAccount(cy);
    expect(none).toMatch(/Several github accounts are connected and none is the default/);
    expect(none).toContain('"ops", "ops-2"');
    expect(none).not.toContain('(default)');

    // Ada still resolves to her own; an unknown label's error marks her default only.
    expect(await usedWithoutAccount(ada)).toBe(adaOwn.token);
    const unknown = (await ada.client.callTool({ name: 'github_api_call', arguments: { method: 'GET', endpoint: '/user', headers: { accept: 'application/vnd.github+json' }, account: 'nope' } })) as Result;
    expect(text(unknown)).toContain('Connected github accounts: "ops", "ada-github" (default), "ops-2"');

    // Her page: the default badge on her own account only; the shared ones say so and offer no change.
    const page = await pageSession(server, store, ada.user);
    const html = await (await page.get('/')).text();
    const row = (label: string) => new RegExp(`<li[^>]*data-label="${label}">[\\s\\S]*?</li>`).exec(html)![0];
    expect(row('ada-github')).toContain('badge default');
    for (const label of ['ops', 'ops-2']) {
      expect(row(label)).not.toContain('badge default');
      expect(row(label)).toContain('shared with you');
      expect(row(label)).not.toContain('/accounts/default');
    }

    // Her own account removed, the operator's two are what she has: none is her default until she chooses by label.
    await store.ownedBy(ada.user.id).accounts.remove('ada-github');
    expect(await marked(ada)).toEqual({ labels: ['ops', 'ops-2'], defaults: [] });
    expect(await usedWithoutAccount(ada)).toMatch(/none is the default/);
  }, 120_000);

  it("a person's first own account becomes their default over one shared with them", async () => {
    const { store, ada } = await team();
    await store.ownedBy(PERSONAL_OWNER).accounts.share('ops', ada.user.id);
    expect((await marked(ada)).defaults).toEqual(['ops']);
    const own = await githubAccount(store.ownedBy(ada.user.id), 'ada-github');
    expect(own.account.isDefault).toBe(true);
    expect((await marked(ada)).defaults).toEqual(['ada-github']);
    expect(await usedWithoutAccount(ada)).toBe(own.token);
  }, 60_000);
});
