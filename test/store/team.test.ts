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
      expect((await a.team.users.list()).map((u) => u.id)).toEqual([first.id, second.id]);
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

  it('secrets rotate drops the records and keys, and keeps the people', async () => {
    const user = await a.team.users.signIn(person('1'));
    await a.team.records.put('Client', 'client-1', '{}', {});
    await a.team.keys.ensure('jwks', () => 'old');
    await a.close();
    await b.close();
    await rotateSecrets({ ...location, secretKey: 'team key', newSecretKey: 'new team key' });
    const c = await openAt(location, { secretKey: 'new team key' });
    expect(await c.team.users.get(user.id)).toMatchObject({ login: 'user-1' });
    expect(await c.team.records.get('Client', 'client-1')).toBeUndefined();
    expect(await c.team.keys.ensure('jwks', () => 'new')).toBe('new');
  });
});
