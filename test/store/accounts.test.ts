import { afterEach, describe, expect, it } from 'vitest';
import { AccountError, InputError } from '../../src/errors.js';
import type { AccountSecret, NewAccount } from '../../src/store/index.js';
import { ADAPTERS, cleanUp, openAt } from './adapters.js';

afterEach(cleanUp);

const token = (value: string): AccountSecret => ({ kind: 'token', token: value });
const outlook = (label?: string, identity?: string): NewAccount => ({ provider: 'outlook', label, identity, secret: token(`tok_${label ?? identity}`) });

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe.each(ADAPTERS)('accounts on $name', (adapter) => {
  let location: Awaited<ReturnType<typeof adapter.location>>;
  async function freshStore() {
    location = await adapter.location();
    return openAt(location, { secretKey: 'test passphrase' });
  }
  const raw = (sql: string, ...params: unknown[]) => adapter.raw(location, sql, ...params);

  describe('add', () => {
    it('returns the account without its secret, with an acc_ id and the first of a provider as default', async () => {
      const { accounts } = await freshStore();
      const work = await accounts.add({
        provider: 'outlook',
        identity: 'work@acme.com',
        groups: ['mail', 'calendar'],
        scopes: ['Mail.Read'],
        meta: { tenant: 'acme' },
        secret: { kind: 'oauth', token: 'at_123456', refreshToken: 'rt_123456', expiresAt: 1 },
      });
      expect(work).toEqual({
        id: expect.stringMatching(/^acc_[a-z2-7]{10}$/),
        provider: 'outlook',
        label: 'work@acme.com',
        identity: 'work@acme.com',
        isDefault: true,
        status: 'active',
        groups: ['mail', 'calendar'],
        scopes: ['Mail.Read'],
        meta: { tenant: 'acme' },
        baseUrl: null,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        lastUsedAt: null,
      });
      expect(JSON.stringify(work)).not.toContain('at_123456');
      const home = await accounts.add(outlook('home'));
      expect(home.isDefault).toBe(false);
      expect(home.id).not.toBe(work.id);
      expect((await accounts.add({ provider: 'github', secret: token('ghp_1') })).isDefault).toBe(true);
    });

    it('defaults the label to the identity, else the provider, suffixing " 2", " 3" on collisions', async () => {
      const { accounts } = await freshStore();
      expect((await accounts.add({ provider: 'github', secret: token('a') })).label).toBe('github');
      expect((await accounts.add({ provider: 'github', secret: token('b') })).label).toBe('github 2');
      expect((await accounts.add({ provider: 'github', secret: token('c') })).label).toBe('github 3');
      expect((await accounts.add({ provider: 'github', identity: 'octocat', secret: token('d') })).label).toBe('octocat');
      expect((await accounts.add({ provider: 'github', identity: 'OctoCat', secret: token('e') })).label).toBe('OctoCat 2');
      expect((await accounts.add({ provider: 'vercel', secret: token('f') })).label).toBe('vercel');
      const long = 'x'.repeat(70);
      const first = await accounts.add({ provider: 'sales', identity: long, secret: token('g') });
      const second = await accounts.add({ provider: 'sales', identity: long, secret: token('h') });
      expect(first.label).toBe('x'.repeat(64));
      expect(second.label).toBe('x'.repeat(62) + ' 2');
    });

    it('refuses an explicit label taken within the provider (any case), suggesting a free one', async () => {
      const { accounts } = await freshStore();
      await accounts.add(outlook('Work'));
      await accounts.add(outlook('work 2'));
      const error = await rejection(accounts.add(outlook('work')));
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).field).toBe('label');
      expect(error.message).toContain('already labelled "work"');
      expect(error.message).toContain('"work 3"');
      expect(await accounts.list()).toHaveLength(2);
      expect((await accounts.add({ provider: 'github', label: 'work', secret: token('x') })).label).toBe('work');
    });

    it('trims labels and refuses empty, over-long or control-character labels', async () => {
      const { accounts } = await freshStore();
      expect((await accounts.add(outlook('  padded  '))).label).toBe('padded');
      for (const bad of ['', '   ', 'y'.repeat(65), 'line\nbreak', 'tab\there', 'bell\u0007']) {
        const error = await rejection(accounts.add(outlook(bad)));
        expect(error).toBeInstanceOf(InputError);
        expect((error as InputError).field).toBe('label');
      }
      expect((await accounts.add(outlook('z'.repeat(64)))).label).toHaveLength(64);
      expect(await accounts.list()).toHaveLength(2);
    });
  });

  describe('list and find', () => {
    it('orders by provider then creation and filters by provider and group', async () => {
      const { accounts } = await freshStore();
      await accounts.add({ provider: 'vercel', label: 'v', secret: token('1') });
      await accounts.add({ ...outlook('mail-only'), groups: ['mail'] });
      await accounts.add({ provider: 'github', label: 'g', secret: token('2') });
      await accounts.add({ ...outlook('both'), groups: ['mail', 'calendar'] });
      await accounts.add({ ...outlook('cal'), groups: ['calendar'] });
      expect((await accounts.list()).map((a) => a.label)).toEqual(['g', 'mail-only', 'both', 'cal', 'v']);
      expect((await accounts.list({ provider: 'outlook' })).map((a) => a.label)).toEqual(['mail-only', 'both', 'cal']);
      expect((await accounts.list({ group: 'calendar' })).map((a) => a.label)).toEqual(['both', 'cal']);
      expect((await accounts.list({ provider: 'github', group: 'mail' })).map((a) => a.label)).toEqual([]);
      expect(await accounts.list({ group: 'cal' })).toEqual([]);
    });

    it('finds by id or case-insensitive label, within the provider when given', async () => {
      const { accounts } = await freshStore();
      const work = await accounts.add(outlook('Work'));
      const gh = await accounts.add({ provider: 'github', label: 'octo', secret: token('g') });
      expect(await accounts.find(work.id)).toEqual(work);
      expect(await accounts.find('WORK')).toEqual(work);
      expect(await accounts.find('work', 'outlook')).toEqual(work);
      expect(await accounts.find('work', 'github')).toBeUndefined();
      expect(await accounts.find(gh.id, 'outlook')).toBeUndefined();
      expect(await accounts.find('nobody')).toBeUndefined();
    });

    it('refuses a label shared by several providers unless the provider or the id is given', async () => {
      const { accounts } = await freshStore();
      const o = await accounts.add(outlook('work'));
      const g = await accounts.add({ provider: 'github', label: 'Work', secret: token('g') });
      const error = await rejection(accounts.find('work'));
      expect(error).toBeInstanceOf(InputError);
      expect(error.message).toContain('Use the account id, or name the provider');
      expect(error.message).toContain(`Work (github, ${g.id})`);
      expect(error.message).toContain(`work (outlook, ${o.id})`);
      expect((await accounts.find('work', 'github'))?.id).toBe(g.id);
      expect((await accounts.find(o.id))?.id).toBe(o.id);
      await expect(accounts.remove('work')).rejects.toThrow(/several providers/);
      expect(await accounts.list()).toHaveLength(2);
    });
  });

  describe('resolve', () => {
    it('returns the named, default or only account with its secret', async () => {
      const { accounts } = await freshStore();
      const work = await accounts.add(outlook('work'));
      expect(await accounts.resolve('outlook')).toEqual({ account: work, secret: token('tok_work') });
      const home = await accounts.add(outlook('home'));
      expect((await accounts.resolve('outlook')).account.id).toBe(work.id);
      expect((await accounts.resolve('outlook', 'HOME')).account.id).toBe(home.id);
      expect((await accounts.resolve('outlook', home.id)).secret).toEqual(token('tok_home'));
    });

    it('names the connected labels when the ref matches nothing', async () => {
      const { accounts } = await freshStore();
      await accounts.add(outlook('work'));
      await accounts.add(outlook('home'));
      const gh = await accounts.add({ provider: 'github', label: 'x', secret: token('g') });
      const error = await rejection(accounts.resolve('outlook', 'x'));
      expect(error).toBeInstanceOf(AccountError);
      expect(error.message).toBe(
        'No outlook account "x". Connected outlook accounts: "work" (default), "home". Pass one of these labels as "account".',
      );
      await expect(accounts.resolve('outlook', gh.id)).rejects.toThrow(`No outlook account "${gh.id}"`);
    });

    it('asks for a label when several accounts exist and none is the default', async () => {
      const store = await freshStore();
      await store.accounts.add(outlook('work'));
      await store.accounts.add(outlook('home'));
      await raw('UPDATE accounts SET is_default = false');
      await expect(store.accounts.resolve('outlook')).rejects.toThrow(
        new AccountError('Several outlook accounts are connected and none is the default. Connected outlook accounts: "work", "home". Pass one of these labels as "account".'),
      );
      await raw("DELETE FROM accounts WHERE label = 'home'");
      expect((await store.accounts.resolve('outlook')).account.label).toBe('work');
    });

    it('says how to connect an account when the provider has none', async () => {
      const { accounts } = await freshStore();
      await expect(accounts.resolve('github')).rejects.toThrow(
        new AccountError('No github account is connected. Connect one with: switchboard accounts add github --token-stdin.'),
      );
      await expect(accounts.resolve('sales', 'x')).rejects.toThrow(/No sales account "x".*switchboard accounts add sales --api-key-stdin/);
    });

    it('refuses an account that needs reconnecting, and serves it again once active', async () => {
      const { accounts } = await freshStore();
      const work = await accounts.add(outlook('work'));
      await accounts.setStatus(work.id, 'needs_reconnect');
      expect((await accounts.find(work.id))?.status).toBe('needs_reconnect');
      const error = await rejection(accounts.resolve('outlook'));
      expect(error).toBeInstanceOf(AccountError);
      expect(error.message).toContain('"work" needs to be reconnected');
      expect(error.message).toContain('switchboard accounts add outlook --label "work" --token-stdin');
      expect(error.message).not.toContain('tok_work');
      await accounts.setStatus(work.id, 'active');
      expect((await accounts.resolve('outlook')).secret).toEqual(token('tok_work'));
    });
  });

  describe('remove, rename, setDefault', () => {
    it('hands the default to the oldest remaining account when the default is removed', async () => {
      const { accounts } = await freshStore();
      const a = await accounts.add(outlook('a'));
      const b = await accounts.add(outlook('b'));
      const c = await accounts.add(outlook('c'));
      const gh = await accounts.add({ provider: 'github', secret: token('g') });
      expect((await accounts.remove('A')).id).toBe(a.id);
      expect((await accounts.find(b.id))?.isDefault).toBe(true);
      expect((await accounts.find(c.id))?.isDefault).toBe(false);
      await accounts.remove(c.id);
      expect((await accounts.find(b.id))?.isDefault).toBe(true);
      await accounts.remove(b.id);
      expect(await accounts.list()).toEqual([gh]);
      expect((await accounts.add(outlook('d'))).isDefault).toBe(true);
    });

    it('refuses unknown refs with the valid labels', async () => {
      const { accounts } = await freshStore();
      const work = await accounts.add(outlook('work'));
      for (const attempt of [() => accounts.remove('nope'), () => accounts.rename('nope', 'x'), () => accounts.setDefault('nope')]) {
        const error = await rejection(attempt());
        expect(error).toBeInstanceOf(InputError);
        expect(error.message).toContain(`No account "nope". Connected accounts: "work" (outlook, ${work.id})`);
      }
    });

    it('renames, allowing a case change of its own label and refusing a sibling label', async () => {
      const { accounts } = await freshStore();
      const work = await accounts.add(outlook('work'));
      await accounts.add(outlook('home'));
      expect((await accounts.rename('work', 'Office')).label).toBe('Office');
      expect((await accounts.rename(work.id, 'OFFICE')).label).toBe('OFFICE');
      const error = await rejection(accounts.rename(work.id, 'Home'));
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).field).toBe('label');
      await expect(accounts.rename(work.id, '\u0000')).rejects.toThrow(InputError);
      expect((await accounts.find(work.id))?.label).toBe('OFFICE');
    });

    it('moves the default within a provider only', async () => {
      const { accounts } = await freshStore();
      const work = await accounts.add(outlook('work'));
      const home = await accounts.add(outlook('home'));
      const gh = await accounts.add({ provider: 'github', secret: token('g') });
      expect((await accounts.setDefault('home')).isDefault).toBe(true);
      expect((await accounts.find(work.id))?.isDefault).toBe(false);
      expect((await accounts.find(gh.id))?.isDefault).toBe(true);
      expect((await accounts.resolve('outlook')).account.id).toBe(home.id);
      expect((await accounts.setDefault(home.id)).isDefault).toBe(true);
      expect((await accounts.list({ provider: 'outlook' })).filter((a) => a.isDefault)).toHaveLength(1);
    });
  });

  describe('updateSecret, setStatus, touch', () => {
    it('replaces the secret', async () => {
      const { accounts } = await freshStore();
      const work = await accounts.add(outlook('work'));
      await accounts.updateSecret(work.id, { kind: 'oauth', token: 'new_at_1', refreshToken: 'new_rt_1', expiresAt: 42 });
      expect((await accounts.resolve('outlook')).secret).toEqual({ kind: 'oauth', token: 'new_at_1', refreshToken: 'new_rt_1', expiresAt: 42 });
    });

    it('records the last use', async () => {
      const { accounts } = await freshStore();
      const work = await accounts.add(outlook('work'));
      const before = Date.now();
      await accounts.touch(work.id);
      const lastUsedAt = (await accounts.find(work.id))?.lastUsedAt;
      expect(Date.parse(lastUsedAt ?? '')).toBeGreaterThanOrEqual(before - 1);
      await expect(accounts.touch('acc_gone000000')).resolves.toBeUndefined();
    });

    it('refuses unknown ids and statuses', async () => {
      const { accounts } = await freshStore();
      const work = await accounts.add(outlook('work'));
      await expect(accounts.updateSecret('acc_missing000', token('x'))).rejects.toThrow(InputError);
      await expect(accounts.setStatus('acc_missing000', 'active')).rejects.toThrow(InputError);
      await expect(accounts.setStatus(work.id, 'broken' as 'active')).rejects.toThrow(/Unknown account status/);
      expect((await accounts.find(work.id))?.status).toBe('active');
    });
  });
});
