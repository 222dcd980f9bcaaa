import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANARY, startHarness, type Harness } from '../harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

type Listed = { label: string; provider: string; is_default: boolean };

/** The labels marked default, per provider, by accounts_list; the accounts resource must say the same. */
async function defaults(): Promise<Record<string, string[]>> {
  const listed = (await h.ok('accounts_list')).accounts as Listed[];
  const read = await h.client.readResource({ uri: 'switchboard://accounts' });
  expect((JSON.parse((read.contents[0] as { text: string }).text) as { accounts: Listed[] }).accounts).toEqual(listed);
  const marked: Record<string, string[]> = {};
  for (const a of listed) marked[a.provider] = [...(marked[a.provider] ?? []), ...(a.is_default ? [a.label] : [])];
  return marked;
}

/** The GitHub token a call without `account` sent. */
async function tokenUsed(): Promise<string> {
  const before = h.sandbox.servers.github.requests.length;
  await h.ok('github_api_call', { method: 'GET', endpoint: '/user', headers: { accept: 'application/vnd.github+json' } });
  return String(h.sandbox.servers.github.requests.slice(before).at(-1)!.headers.authorization).replace(/^Bearer /, '');
}

describe('the default account in personal mode', () => {
  it('is marked on exactly the account a call without "account" uses, and follows a change of default', async () => {
    const sampleToken = h.sandbox.accounts.find((a) => a.provider === 'github')!.secret.token;
    expect(await defaults()).toEqual({ outlook: ['sample'], sales: ['sample'], github: ['sample'], vercel: ['sample'] });
    expect(await tokenUsed()).toBe(sampleToken);

    await h.store.accounts.setDefault('canary');
    expect((await defaults()).github).toEqual(['canary']);
    expect(await tokenUsed()).toBe(CANARY);
    expect(await h.fails('github_api_call', { method: 'GET', endpoint: '/user', headers: { accept: 'application/vnd.github+json' }, account: 'nope' })).toContain(
      'Connected github accounts: "sample", "canary" (default)',
    );

    // A group filter leaves the default where it is: a filtered list does not make its only entry the default.
    const mail = (await h.ok('accounts_list', { group: 'mail' })).accounts as Listed[];
    expect(mail.map((a) => [a.label, a.is_default])).toEqual([['sample', true]]);
    await h.store.accounts.setDefault((await h.store.accounts.find('sample', 'github'))!.id);
    expect(await tokenUsed()).toBe(sampleToken);
    expect((await defaults()).github).toEqual(['sample']);
  });
});
