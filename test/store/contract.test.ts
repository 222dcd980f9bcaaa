import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { ADAPTERS, cleanUp, openAt, type StoreLocation } from './adapters.js';

afterEach(cleanUp);

/** The parts of the Store contract the other store suites leave out, on every adapter. */
describe.each(ADAPTERS)('the store contract on $name', (adapter) => {
  let location: StoreLocation;
  let store: Store;
  let accountId: string;

  beforeEach(async () => {
    location = await adapter.location();
    store = await openAt(location, { secretKey: 'contract key' });
    accountId = (await store.accounts.add({ provider: 'github', label: 'octo', identity: 'octo', groups: ['repo'], secret: { kind: 'token', token: 'ghp_contract_1' } })).id;
  });

  it('reconnects an account: new secret, identity, groups and scopes, meta merged, active again, same id and label', async () => {
    await store.accounts.setStatus(accountId, 'needs_reconnect');
    const again = await store.accounts.reconnect(accountId, {
      identity: 'octo-renamed',
      scopes: ['repo', 'workflow'],
      meta: { enterprise: 'no' },
      secret: { kind: 'oauth', token: 'gho_new_token', refreshToken: 'ghr_new_refresh', expiresAt: 5 },
    });
    expect(again).toMatchObject({ id: accountId, label: 'octo', identity: 'octo-renamed', status: 'active', groups: ['repo'], scopes: ['repo', 'workflow'], meta: { enterprise: 'no' } });
    expect((await store.accounts.resolve('github')).secret).toEqual({ kind: 'oauth', token: 'gho_new_token', refreshToken: 'ghr_new_refresh', expiresAt: 5 });
    await expect(store.accounts.reconnect('acc_missing000', { secret: { kind: 'token', token: 'x' } })).rejects.toThrow(/No account with id "acc_missing000"/);
  });

  it('keeps JSON as it was given: key order, nesting, unicode', async () => {
    const config = { zeta: 1, alpha: { nested: [3, 1, 2], 'ключ': 'значение ✓' }, middle: null };
    const trigger = await store.triggers.create({ kind: 'github.push', accountId, config });
    expect(JSON.stringify((await store.triggers.get(trigger.id))!.config)).toBe(JSON.stringify(config));
    const payload = { z: 'last first', a: [{ y: 2, b: 1 }], emoji: '🚀' };
    await store.triggers.commit(trigger.id, { events: [{ dedupeKey: 'k', occurredAt: '2026-11-22T10:00:00+02:00', summary: 's', payload }] });
    const [event] = await store.events.after(0, { limit: 1 });
    expect(JSON.stringify(event!.payload)).toBe(JSON.stringify(payload));
    expect(event!.occurredAt).toBe('2026-11-22T10:00:00+02:00');
    expect((await store.events.after(0, { limit: 1, payloads: false }))[0]!.payload).toBeNull();
  });

  it('updates a trigger\'s state and provider refs, replaces its secrets, and lists by kind', async () => {
    const push = await store.triggers.create({ kind: 'github.push', accountId, config: {} });
    await store.triggers.create({ kind: 'github.new_issue', accountId, config: {} });
    await store.triggers.update(push.id, { state: { since: 'x' }, providerRefs: { hookId: 'hk_1' } });
    expect(await store.triggers.get(push.id)).toMatchObject({ state: { since: 'x' }, providerRefs: { hookId: 'hk_1' } });
    await store.triggers.setSecrets(push.id, { webhook: 'wh_secret_value_1' });
    expect(await store.triggers.secrets(push.id)).toEqual({ webhook: 'wh_secret_value_1' });
    expect((await store.triggers.list({ kind: 'github.push' })).map((t) => t.id)).toEqual([push.id]);
    expect(await store.triggers.list({ accountId: 'acc_other000000' })).toEqual([]);
    expect(await store.triggers.remove('trg_missing')).toBeUndefined();
  });

  it('keeps webhooks per provider, account and target, with a secret shown once and the triggers that use them', async () => {
    const { hook, secret } = await store.hooks.create({ provider: 'github', accountId, target: 'repo:octo/hello', events: ['issues'] });
    expect(hook).toMatchObject({ id: expect.stringMatching(/^hk_[0-9a-f]{16}$/), provider: 'github', accountId, target: 'repo:octo/hello', remoteId: null, events: ['issues'] });
    expect(secret.length).toBeGreaterThanOrEqual(40);
    expect(await store.hooks.secret(hook.id)).toBe(secret);
    const [row] = await adapter.raw(location, 'SELECT secret_enc FROM hooks');
    expect(row!.secret_enc).not.toContain(secret);
    await expect(store.hooks.create({ provider: 'github', accountId, target: 'repo:octo/hello', events: [] })).rejects.toThrow();

    await store.hooks.update(hook.id, { remoteId: '991', events: ['issues', 'push'] });
    expect(await store.hooks.find('github', accountId, 'repo:octo/hello')).toMatchObject({ id: hook.id, remoteId: '991', events: ['issues', 'push'] });
    expect(await store.hooks.find('github', accountId, 'repo:octo/other')).toBeUndefined();

    const using = await store.triggers.create({ kind: 'github.push', accountId, config: {}, providerRefs: { hookId: hook.id } });
    await store.triggers.create({ kind: 'github.push', accountId, config: {}, providerRefs: { hookId: 'hk_someone_else' } });
    expect((await store.hooks.triggers(hook.id)).map((t) => t.id)).toEqual([using.id]);
    const intake = await store.hooks.intake(hook.id);
    expect(intake!.secret).toBe(secret);
    expect(intake!.triggers.map((t) => [t.id, t.providerRefs])).toEqual([[using.id, { hookId: hook.id }]]);
    const { hook: bare } = await store.hooks.create({ provider: 'github', accountId, target: 'repo:octo/bare', events: ['push'] });
    expect((await store.hooks.intake(bare.id))!.triggers).toEqual([]);
    expect(await store.hooks.intake('hk_0000000000000000')).toBeUndefined();

    await store.hooks.remove(hook.id);
    expect(await store.hooks.get(hook.id)).toBeUndefined();
    await expect(store.hooks.secret(hook.id)).rejects.toThrow(/No hook/);
    expect(await store.hooks.intake(hook.id)).toBeUndefined();
  });

  it('removes an account\'s webhooks with it', async () => {
    const { hook } = await store.hooks.create({ provider: 'github', accountId, target: 'org:octo', events: ['push'] });
    await store.accounts.remove(accountId);
    expect(await store.hooks.get(hook.id)).toBeUndefined();
  });

  it('caches sales lookups per account and kind since a time, and purges what is older', async () => {
    const sales = (await store.accounts.add({ provider: 'sales', secret: { kind: 'api_key', apiKey: 'sales_contract_key' } })).id;
    await store.salesCache.put(sales, 'company', [['domain:old.example', '{"n":"old"}']], '2026-01-01T00:00:00.000Z');
    await store.salesCache.put(sales, 'company', [['domain:new.example', '{"n":"new"}']], '2026-06-01T00:00:00.000Z');
    const keys = ['domain:old.example', 'domain:new.example', 'domain:none.example'];
    expect([...(await store.salesCache.get(sales, 'company', keys, '2025-01-01T00:00:00.000Z'))]).toEqual([
      ['domain:old.example', '{"n":"old"}'],
      ['domain:new.example', '{"n":"new"}'],
    ]);
    expect([...(await store.salesCache.get(sales, 'company', keys, '2026-03-01T00:00:00.000Z')).keys()]).toEqual(['domain:new.example']);
    expect((await store.salesCache.get(sales, 'person', keys, '2025-01-01T00:00:00.000Z')).size).toBe(0);
    expect((await store.salesCache.get(sales, 'company', [], '2025-01-01T00:00:00.000Z')).size).toBe(0);
    expect(await store.salesCache.purge(sales, '2026-03-01T00:00:00.000Z')).toBe(1);
    expect([...(await store.salesCache.get(sales, 'company', keys, '2025-01-01T00:00:00.000Z')).keys()]).toEqual(['domain:new.example']);
  });

  it('grants a lease on the store\'s own clock when no time is given, and renews it for its holder only', async () => {
    expect(await store.leases.acquire('poll:x', 'a', 60_000)).toBe(true);
    expect(await store.leases.acquire('poll:x', 'b', 60_000)).toBe(false);
    expect(await store.leases.acquire('poll:x', 'a', 60_000)).toBe(true);
    await store.leases.release('poll:x', 'b');
    expect(await store.leases.acquire('poll:x', 'b', 60_000)).toBe(false);
    await store.leases.release('poll:x', 'a');
    expect(await store.leases.acquire('poll:x', 'b', 60_000)).toBe(true);
  });
});
