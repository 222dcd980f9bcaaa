import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { rotateSecrets } from '../../src/store/rotate.js';
import { ADAPTERS, cleanUp, openAt, type StoreLocation } from './adapters.js';

afterEach(cleanUp);

const person = (subject: string, login = `user-${subject}`) => ({ provider: 'github' as const, subject, login, email: `${login}@example.com` });

describe.each(ADAPTERS)('team store on $name', (adapter) => {
  let location: StoreLocation;
  let a: Store;
  let b: Store;

  beforeEach(async () => {
    location = await adapter.location();
    a = await openAt(location, { secretKey: 'team key' });
    b = await openAt(location, { secretKey: 'team key' });
  });

  describe('users', () => {
    it('makes the first person to sign in admin and the next members, and finds them again by provider subject', async () => {
      const first = await a.team.users.signIn(person('1'));
      const second = await b.team.users.signIn(person('2'));
      expect(first).toMatchObject({ role: 'admin', login: 'user-1', disabled: false, provider: 'github', subject: '1' });
      expect(second.role).toBe('member');
      const again = await b.team.users.signIn({ ...person('1'), login: 'renamed', email: null });
      expect(again).toMatchObject({ id: first.id, login: 'renamed', email: null, role: 'admin' });
      // Listed by sign-up time; two sign-ins within one millisecond may come in either order.
      const listed = await a.team.users.list();
      expect(listed.map((u) => u.id).sort()).toEqual([first.id, second.id].sort());
      expect(listed.map((u) => u.createdAt)).toEqual(listed.map((u) => u.createdAt).sort());
    });

    it('makes only one of many people signing in at once the first admin', async () => {
      const users = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).team.users.signIn(person(`p${i}`))));
      expect(users.filter((u) => u.role === 'admin')).toHaveLength(1);
    });

    it('takes the role the configuration gives, and keeps a disabled person disabled when they sign in again', async () => {
      const member = await a.team.users.signIn({ ...person('1'), role: 'member' });
      expect(member.role).toBe('member');
      expect((await a.team.users.signIn({ ...person('1'), role: 'admin' })).role).toBe('admin');
      expect(await b.team.users.setDisabled(member.id, true)).toMatchObject({ disabled: true });
      expect((await a.team.users.signIn(person('1'))).disabled).toBe(true);
      expect((await a.team.users.get(member.id))?.disabled).toBe(true);
      expect(await a.team.users.remove(member.id)).toMatchObject({ id: member.id });
      expect(await a.team.users.get(member.id)).toBeUndefined();
      expect(await a.team.users.setDisabled(member.id, false)).toBeUndefined();
    });
  });

  describe('authorization records', () => {
    it('are kept encrypted under hashed ids, readable by any instance, by id or uid', async () => {
      await a.team.records.put('Session', 'session-id-0123456789', JSON.stringify({ accountId: 'usr_1', secret: 'session-payload' }), {
        expiresInMs: 60_000,
        uid: 'session-uid-0123456789',
      });
      const raw = JSON.stringify(await adapter.raw(location, 'SELECT * FROM team_records'));
      expect(raw).not.toContain('session-id-0123456789');
      expect(raw).not.toContain('session-uid-0123456789');
      expect(raw).not.toContain('session-payload');
      expect(JSON.parse((await b.team.records.get('Session', 'session-id-0123456789'))!.payload)).toMatchObject({ accountId: 'usr_1' });
      expect((await b.team.records.getByUid('Session', 'session-uid-0123456789'))?.consumed).toBe(false);
      expect(await b.team.records.get('AccessToken', 'session-id-0123456789')).toBeUndefined();
    });

    it('are consumed, taken once, removed with their grant, and absent once expired', async () => {
      await a.team.records.put('AuthorizationCode', 'code-1', '{"n":1}', { expiresInMs: 60_000, grantId: 'grant-1' });
      await a.team.records.put('AccessToken', 'token-1', '{"n":2}', { expiresInMs: 60_000, grantId: 'grant-1' });
      await a.team.records.put('AccessToken', 'token-2', '{"n":3}', { expiresInMs: 60_000, grantId: 'grant-2' });
      await a.team.records.put('Client', 'client-1', '{"n":4}', {});
      await b.team.records.consume('AuthorizationCode', 'code-1');
      expect(await a.team.records.get('AuthorizationCode', 'code-1')).toEqual({ payload: '{"n":1}', consumed: true });
      await b.team.records.removeGrant('grant-1');
      expect(await a.team.records.get('AuthorizationCode', 'code-1')).toBeUndefined();
      expect(await a.team.records.get('AccessToken', 'token-1')).toBeUndefined();
      expect(await a.team.records.get('AccessToken', 'token-2')).toBeDefined();
      expect(await a.team.records.take('AccessToken', 'token-2')).toBe('{"n":3}');
      expect(await b.team.records.take('AccessToken', 'token-2')).toBeUndefined();
      expect(await a.team.records.get('Client', 'client-1')).toBeDefined();
      await a.team.records.remove('Client', 'client-1');
      expect(await a.team.records.get('Client', 'client-1')).toBeUndefined();

      await a.team.records.put('AccessToken', 'short', '{}', { expiresInMs: 60_000 });
      await adapter.raw(location, 'UPDATE team_records SET expires_at = expires_at - 120000');
      expect(await a.team.records.get('AccessToken', 'short')).toBeUndefined();
      expect(await a.team.records.take('AccessToken', 'short')).toBeUndefined();
    });

    it("go with their person when disabled or removed, and someone else's stay", async () => {
      const ada = await a.team.users.signIn(person('1'));
      const bob = await a.team.users.signIn(person('2'));
      await a.team.records.put('Session', 'ada-session', '{}', { expiresInMs: 60_000, owner: ada.id });
      await a.team.records.put('RefreshToken', 'ada-refresh', '{}', { expiresInMs: 60_000, grantId: 'ada-grant', owner: ada.id });
      await a.team.records.put('AccessToken', 'bob-access', '{}', { expiresInMs: 60_000, grantId: 'bob-grant', owner: bob.id });
      await a.team.records.put('Client', 'client-1', '{}', {});
      await a.webSessions.create('ada-web', { csrf: 'c', authed: true, owner: ada.id }, { max: 10, idleMs: 60_000 });
      await a.webSessions.create('bob-web', { csrf: 'c', authed: true, owner: bob.id }, { max: 10, idleMs: 60_000 });

      await b.team.users.setDisabled(ada.id, true);
      await b.team.users.setDisabled(ada.id, false);
      expect(await a.team.records.get('Session', 'ada-session')).toBeUndefined();
      expect(await a.team.records.get('RefreshToken', 'ada-refresh')).toBeUndefined();
      expect(await a.webSessions.touch('ada-web', { idleMs: 60_000 })).toBeUndefined();
      expect(await a.team.records.get('AccessToken', 'bob-access')).toBeDefined();
      expect(await a.team.records.get('Client', 'client-1')).toBeDefined();
      expect(await a.webSessions.touch('bob-web', { idleMs: 60_000 })).toMatchObject({ owner: bob.id });

      await b.team.users.remove(bob.id);
      expect(await a.team.records.get('AccessToken', 'bob-access')).toBeUndefined();
      expect(await a.webSessions.touch('bob-web', { idleMs: 60_000 })).toBeUndefined();
      expect(await a.team.records.get('Client', 'client-1')).toBeDefined();
    });

    it('replaces a record put again under the same id, and clears its consumed mark', async () => {
      await a.team.records.put('RefreshToken', 'rt', '{"v":1}', { expiresInMs: 60_000 });
      await a.team.records.consume('RefreshToken', 'rt');
      await b.team.records.put('RefreshToken', 'rt', '{"v":2}', { expiresInMs: 60_000 });
      expect(await a.team.records.get('RefreshToken', 'rt')).toEqual({ payload: '{"v":2}', consumed: false });
    });
  });

  describe('keys', () => {
    it('are made once and shared by every instance, kept encrypted', async () => {
      const made = await Promise.all([a.team.keys.ensure('jwks', () => 'secret-jwks-from-a'), b.team.keys.ensure('jwks', () => 'secret-jwks-from-b')]);
      expect(made[0]).toBe(made[1]);
      expect(await b.team.keys.ensure('jwks', () => 'another')).toBe(made[0]);
      expect(JSON.stringify(await adapter.raw(location, 'SELECT * FROM team_keys'))).not.toContain('secret-jwks');
    });
  });

  describe('personal access tokens', () => {
    const tokenFor = (owner: string, tokenHash: string, scope = 'switchboard:read') => ({ owner, name: 'agent', scope, tokenHash, expiresAt: '2099-01-01T00:00:00.000Z' });

    it('are found by hash, listed per person without it, revoked once, and all of a person revoked together', async () => {
      const ada = await a.team.users.signIn(person('1'));
      const bob = await a.team.users.signIn(person('2'));
      const first = await a.team.tokens.create(tokenFor(ada.id, 'a'.repeat(64), 'switchboard'));
      const second = await b.team.tokens.create({ ...tokenFor(ada.id, 'b'.repeat(64)), name: null });
      const bobs = await a.team.tokens.create(tokenFor(bob.id, 'c'.repeat(64)));
      expect(first).toEqual({
        id: expect.stringMatching(/^pat_[0-9a-f]{16}$/),
        owner: ada.id,
        name: 'agent',
        scope: 'switchboard',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        expiresAt: '2099-01-01T00:00:00.000Z',
        lastUsedAt: null,
        revokedAt: null,
      });
      expect(await b.team.tokens.findByHash('b'.repeat(64))).toEqual(second);
      expect(await b.team.tokens.findByHash('d'.repeat(64))).toBeUndefined();
      expect((await b.team.tokens.list()).map((t) => t.id).sort()).toEqual([first.id, second.id, bobs.id].sort());
      expect((await b.team.tokens.list({ owner: bob.id })).map((t) => t.id)).toEqual([bobs.id]);
      expect(JSON.stringify(await b.team.tokens.list())).not.toContain('a'.repeat(64));
      await expect(a.team.tokens.create(tokenFor(bob.id, 'a'.repeat(64)))).rejects.toThrow();

      const revoked = await b.team.tokens.revoke(first.id);
      expect(revoked?.revokedAt).toEqual(expect.any(String));
      expect((await a.team.tokens.revoke(first.id))?.revokedAt).toBe(revoked!.revokedAt);
      expect(await a.team.tokens.revoke('pat_0000000000000000')).toBeUndefined();
      const expired = await a.team.tokens.create({ ...tokenFor(ada.id, '9'.repeat(64)), expiresAt: '2020-01-01T00:00:00.000Z' });
      expect(await a.team.tokens.revokeAll(ada.id)).toBe(1);
      expect(await a.team.tokens.revokeAll(ada.id)).toBe(0);
      expect((await a.team.tokens.get(second.id))?.revokedAt).toEqual(expect.any(String));
      expect((await a.team.tokens.get(expired.id))?.revokedAt).toBeNull();
      expect((await a.team.tokens.get(bobs.id))?.revokedAt).toBeNull();
    });

    it('record a use only when none was recorded since the given time', async () => {
      const ada = await a.team.users.signIn(person('1'));
      const token = await a.team.tokens.create(tokenFor(ada.id, 'e'.repeat(64)));
      await a.team.tokens.touch(token.id, '2030-01-01T10:00:00.000Z', '2030-01-01T09:59:00.000Z');
      await b.team.tokens.touch(token.id, '2030-01-01T10:00:30.000Z', '2030-01-01T09:59:30.000Z');
      expect((await a.team.tokens.get(token.id))?.lastUsedAt).toBe('2030-01-01T10:00:00.000Z');
      await b.team.tokens.touch(token.id, '2030-01-01T10:01:01.000Z', '2030-01-01T10:00:01.000Z');
      expect((await a.team.tokens.get(token.id))?.lastUsedAt).toBe('2030-01-01T10:01:01.000Z');
    });

    it('go with the person they stand for', async () => {
      const ada = await a.team.users.signIn(person('1'));
      const token = await a.team.tokens.create(tokenFor(ada.id, 'f'.repeat(64)));
      await b.team.users.remove(ada.id);
      expect(await a.team.tokens.get(token.id)).toBeUndefined();
      expect(await adapter.raw(location, 'SELECT id FROM team_tokens')).toEqual([]);
    });
  });

  it('secrets rotate drops the records and keys, and keeps the people and their personal access tokens', async () => {
    const user = await a.team.users.signIn(person('1'));
    const token = await a.team.tokens.create({ owner: user.id, name: null, scope: 'switchboard', tokenHash: '0'.repeat(64), expiresAt: '2099-01-01T00:00:00.000Z' });
    await a.team.records.put('Client', 'client-1', '{}', {});
    await a.team.keys.ensure('jwks', () => 'old');
    await a.close();
    await b.close();
    await rotateSecrets({ ...location, secretKey: 'team key', newSecretKey: 'new team key' });
    const c = await openAt(location, { secretKey: 'new team key' });
    expect(await c.team.users.get(user.id)).toMatchObject({ login: 'user-1' });
    expect(await c.team.tokens.findByHash('0'.repeat(64))).toEqual(token);
    expect(await c.team.records.get('Client', 'client-1')).toBeUndefined();
    expect(await c.team.keys.ensure('jwks', () => 'new')).toBe('new');
  });
});
