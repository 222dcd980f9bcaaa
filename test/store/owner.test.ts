import { afterEach, describe, expect, it } from 'vitest';
import { EVERYONE, PERSONAL_OWNER, type NewEvent, type Store } from '../../src/store/index.js';
import { ADAPTERS, cleanUp, openAt } from './adapters.js';

afterEach(cleanUp);

const github = (label: string) => ({ provider: 'github' as const, label, secret: { kind: 'token' as const, token: `ghp_${label}_${Math.random()}` } });
const event = (key: string): NewEvent => ({ dedupeKey: key, occurredAt: '2026-11-24T00:00:00Z', summary: key, payload: { key } });

describe.each(ADAPTERS)('owners on $name', (adapter) => {
  async function fresh(): Promise<{ store: Store; ada: Store; bob: Store; adaId: string; bobId: string }> {
    const store = await openAt(await adapter.location(), { secretKey: 'owner test key' });
    const ada = await store.team.users.signIn({ provider: 'github', subject: '1', login: 'ada', email: null });
    const bob = await store.team.users.signIn({ provider: 'github', subject: '2', login: 'bob', email: null });
    return { store, ada: store.ownedBy(ada.id), bob: store.ownedBy(bob.id), adaId: ada.id, bobId: bob.id };
  }

  it('keeps accounts apart: the same label for two owners, a default each, no reach by id or label', async () => {
    const { store, ada, bob } = await fresh();
    const adaWork = await ada.accounts.add(github('work'));
    const bobWork = await bob.accounts.add(github('work'));
    expect(adaWork.isDefault && bobWork.isDefault).toBe(true);
    expect((await ada.accounts.list()).map((a) => a.id)).toEqual([adaWork.id]);
    expect(await bob.accounts.find(adaWork.id)).toBeUndefined();
    expect((await bob.accounts.resolve('github', 'work')).account.id).toBe(bobWork.id);
    expect((await bob.accounts.resolve('github')).account.id).toBe(bobWork.id);
    await expect(bob.accounts.remove(adaWork.id)).rejects.toThrow(/No account/);
    await expect(bob.accounts.rename(adaWork.id, 'mine')).rejects.toThrow(/No account/);
    await expect(bob.accounts.updateSecret(adaWork.id, { kind: 'token', token: 'x' })).rejects.toThrow();
    // The store as opened is every owner's: the server's own work reaches both.
    expect((await store.accounts.list()).map((a) => a.id).sort()).toEqual([adaWork.id, bobWork.id].sort());
    expect(await store.ownedBy(PERSONAL_OWNER).accounts.list()).toEqual([]);
  });

  it('shares an account only by grant: usable, not changeable, and taken back', async () => {
    const { store, ada, bob, bobId } = await fresh();
    const operator = store.ownedBy(PERSONAL_OWNER);
    const bot = await operator.accounts.add(github('bot'));
    expect(await ada.accounts.find('bot')).toBeUndefined();
    await operator.accounts.share('bot', bobId);
    expect((await bob.accounts.resolve('github', 'bot')).account.id).toBe(bot.id);
    expect(await ada.accounts.find('bot')).toBeUndefined();
    await expect(bob.accounts.remove('bot')).rejects.toThrow(/No account/);
    await expect(bob.accounts.share('bot', EVERYONE)).rejects.toThrow(/No account/);
    // Their own account of the same label comes first.
    const own = await bob.accounts.add(github('bot'));
    expect((await bob.accounts.find('bot'))!.id).toBe(own.id);
    await operator.accounts.share('bot', EVERYONE);
    expect((await ada.accounts.find('bot'))!.id).toBe(bot.id);
    const grants = await operator.accounts.grants();
    expect(grants).toHaveLength(2);
    expect(grants).toEqual(expect.arrayContaining([{ accountId: bot.id, grantee: bobId }, { accountId: bot.id, grantee: EVERYONE }]));
    expect((await operator.accounts.unshare('bot', EVERYONE)).removed).toBe(true);
    expect(await ada.accounts.find('bot')).toBeUndefined();
  });

  it('keeps triggers, events, cursors, failures and sales lookups apart', async () => {
    const { store, ada, bob } = await fresh();
    const account = await ada.accounts.add(github('work'));
    await expect(bob.triggers.create({ kind: 'github.new_issue', accountId: account.id, config: {} })).rejects.toThrow(/No account/);
    const trigger = await ada.triggers.create({ kind: 'github.new_issue', accountId: account.id, config: {} });
    expect(await bob.triggers.get(trigger.id)).toBeUndefined();
    expect(await bob.triggers.list()).toEqual([]);
    expect(await bob.triggers.remove(trigger.id)).toBeUndefined();
    expect(await bob.triggers.commit(trigger.id, { events: [event('from-bob')] })).toEqual([]);
    const [e] = await store.triggers.commit(trigger.id, { events: [event('e1')] });
    expect((await ada.events.after(0, { limit: 10 })).map((x) => x.id)).toEqual([e!.id]);
    expect(await bob.events.after(0, { limit: 10 })).toEqual([]);
    expect(await bob.events.after(0, { limit: 10, triggerIds: [trigger.id] })).toEqual([]);
    expect(await bob.events.latest(trigger.id, 5)).toEqual([]);
    expect(await bob.events.lastId()).toBe(0);
    expect(await ada.events.lastId()).toBe(e!.id);

    await ada.events.setCursor('inbox', e!.id);
    expect(await bob.events.cursor('inbox')).toBeUndefined();
    await ada.events.recordFailure('inbox', e!.id, { attempts: 3, error: 'boom' });
    expect(await bob.events.failures()).toEqual([]);
    expect(await bob.events.requestRetry({})).toBe(0);
    expect((await ada.events.failures()).map((f) => f.consumer)).toEqual(['inbox']);
    expect(await store.ownedBy(PERSONAL_OWNER).events.failures()).toEqual([]);

    await ada.salesCache.put(account.id, 'person', [['ada@example.com', '{"found":true}']], '2026-11-24T00:00:00Z');
    expect((await ada.salesCache.get(account.id, 'person', ['ada@example.com'], '2026-01-01T00:00:00Z')).size).toBe(1);
    expect((await bob.salesCache.get(account.id, 'person', ['ada@example.com'], '2026-01-01T00:00:00Z')).size).toBe(0);
  });

  it('stops a disabled person\'s triggers and commits nothing for them until enabled', async () => {
    const { store, ada, adaId } = await fresh();
    const account = await ada.accounts.add(github('work'));
    const trigger = await ada.triggers.create({ kind: 'github.new_issue', accountId: account.id, config: {} });
    await store.team.users.setDisabled(adaId, true);
    expect(await store.work.claimPolls('test', ['github.new_issue'], 10, 1000)).toEqual([]);
    expect(await store.triggers.commit(trigger.id, { events: [event('while-disabled')] })).toEqual([]);
    await store.team.users.setDisabled(adaId, false);
    expect((await store.work.claimPolls('test', ['github.new_issue'], 10, 1000)).map((t) => t.id)).toEqual([trigger.id]);
    expect(await store.triggers.commit(trigger.id, { events: [event('enabled')] })).toHaveLength(1);
    await store.team.users.remove(adaId);
    expect(await store.triggers.get(trigger.id)).toBeUndefined();
    expect(await store.events.after(0, { limit: 10 })).toEqual([]);
  });
});
