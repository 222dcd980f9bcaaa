import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { openStore, type Store } from '../../src/store/index.js';
import { rotateSecrets } from '../../src/store/rotate.js';
import { ADAPTERS, cleanUp, type Adapter, type StoreLocation } from './adapters.js';

let adapter: Adapter;
let location: StoreLocation;
let dataDir: string;
afterEach(cleanUp);

const keyFile = () => join(dataDir, 'secret.key');

/** A store with one secret of every kind; answers what each decrypts to. */
async function seed(secretKey?: string) {
  const store = await openStore({ ...location, secretKey });
  try {
    const token = await store.accounts.add({ provider: 'github', label: 'pat', secret: { kind: 'token', token: 'ghp_rotate_me_0001' } });
    const oauth = await store.accounts.add({
      provider: 'outlook',
      label: 'work',
      secret: { kind: 'oauth', token: 'EwB-access', refreshToken: 'M.C5-refresh', expiresAt: 1_900_000_000_000 },
    });
    const trigger = await store.triggers.create({ kind: 'github.new_issue', accountId: token.id, config: {}, secrets: { forward: 'fwd-secret-01', webhook: 'wh-secret-01' } });
    await store.triggers.create({ kind: 'outlook.new_email', accountId: oauth.id, config: {} });
    const { hook, secret: hookSecret } = await store.hooks.create({ provider: 'github', accountId: token.id, target: 'repo:o/r', events: ['issues'] });
    const subscription = { id: 'sub_rotate', mode: 'webhook' as const, name: 'github.new_issue', arguments: {}, url: 'https://agent.example/hook', triggerId: trigger.id, refreshBefore: null };
    await store.subscriptions.upsert({ ...subscription, secret: 'whsec_old_rotate_secret' });
    await store.subscriptions.upsert({ ...subscription, secret: 'whsec_new_rotate_secret', previousUntil: 4_000_000_000_000 });
    return { ids: { token: token.id, oauth: oauth.id, trigger: trigger.id, hook: hook.id, subscription: subscription.id }, hookSecret };
  } finally {
    await store.close();
  }
}

async function readAll(store: Store, ids: Awaited<ReturnType<typeof seed>>['ids']) {
  return {
    token: (await store.accounts.resolve('github', ids.token)).secret,
    oauth: (await store.accounts.resolve('outlook', ids.oauth)).secret,
    trigger: await store.triggers.secrets(ids.trigger),
    hook: await store.hooks.secret(ids.hook),
    subscription: await store.subscriptions.secrets(ids.subscription),
  };
}

/** The raw ciphertexts and the key check, to prove what changed and what did not. */
async function snapshot(secretKey?: string): Promise<string> {
  // Opening proves the key, as a command would.
  await (await openStore({ ...location, secretKey })).close();
  return JSON.stringify([
    await adapter.raw(location, 'SELECT id, secret_enc FROM accounts ORDER BY id'),
    await adapter.raw(location, 'SELECT id, secret_enc FROM triggers ORDER BY id'),
    await adapter.raw(location, 'SELECT id, secret_enc FROM hooks ORDER BY id'),
    await adapter.raw(location, 'SELECT id, secret_enc FROM event_subscriptions ORDER BY id'),
    (await adapter.raw(location, "SELECT value FROM meta WHERE key = 'key_check'"))[0],
  ]);
}

describe.each(ADAPTERS)('secrets rotate on $name', (each) => {
  beforeEach(async () => {
    adapter = each;
    location = await adapter.location();
    dataDir = location.dataDir;
  });

  it('re-encrypts every secret under a new key file in one go; the old key opens nothing any more', async () => {
    const { ids, hookSecret } = await seed();
    const oldKey = readFileSync(keyFile(), 'utf8').trim();
    const before = await snapshot();
    const result = await rotateSecrets(location);
    expect(result).toMatchObject({ accounts: 2, triggers: 1, hooks: 1, subscriptions: 1, newKeyIn: 'keyFile', keyFile: keyFile() });
    const newKey = readFileSync(keyFile(), 'utf8').trim();
    expect(newKey).not.toBe(oldKey);
    expect(existsSync(keyFile() + '.next')).toBe(false);
    const after = await snapshot();
    const [a, b] = [JSON.parse(before), JSON.parse(after)];
    for (const i of [0, 1, 2, 3]) for (const [j, row] of (a[i] as Array<{ secret_enc: string | null }>).entries()) if (row.secret_enc) expect(b[i][j].secret_enc).not.toBe(row.secret_enc);
    expect(b[4].value).not.toBe(a[4].value);

    const store = await openStore(location);
    try {
      expect(await readAll(store, ids)).toEqual({
        token: { kind: 'token', token: 'ghp_rotate_me_0001' },
        oauth: { kind: 'oauth', token: 'EwB-access', refreshToken: 'M.C5-refresh', expiresAt: 1_900_000_000_000 },
        trigger: { forward: 'fwd-secret-01', webhook: 'wh-secret-01' },
        hook: hookSecret,
        subscription: { current: 'whsec_new_rotate_secret', previous: 'whsec_old_rotate_secret', previousUntil: 4_000_000_000_000 },
      });
    } finally {
      await store.close();
    }
    await expect(openStore({ ...location, secretKey: oldKey })).rejects.toThrow(/does not match/);
  });

  it('refuses a wrong current key and changes nothing', async () => {
    await seed('the-right-key');
    const before = await snapshot('the-right-key');
    const error = await rotateSecrets({ ...location, secretKey: 'a-wrong-key', newSecretKey: 'a-new-key' }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(/does not match the one the stored secrets .* were encrypted with\. Nothing was changed\./);
    expect(await snapshot('the-right-key')).toBe(before);
  });

  it('refuses when the key file is missing and changes nothing', async () => {
    await seed();
    const before = await snapshot();
    const saved = readFileSync(keyFile());
    rmSync(keyFile());
    await expect(rotateSecrets(location)).rejects.toThrow(/the key file .*secret\.key is missing/);
    expect(existsSync(keyFile())).toBe(false);
    writeFileSync(keyFile(), saved, { mode: 0o600 });
    expect(await snapshot()).toBe(before);
  });

  it('with the key in SWITCHBOARD_SECRET_KEY, wants SWITCHBOARD_NEW_SECRET_KEY, then rotates to it', async () => {
    const { ids } = await seed('old-env-key');
    const before = await snapshot('old-env-key');
    await expect(rotateSecrets({ ...location, secretKey: 'old-env-key' })).rejects.toThrow(/set SWITCHBOARD_NEW_SECRET_KEY/);
    await expect(rotateSecrets({ ...location, secretKey: 'old-env-key', newSecretKey: 'old-env-key' })).rejects.toThrow(/same as the current one/);
    expect(await snapshot('old-env-key')).toBe(before);
    const result = await rotateSecrets({ ...location, secretKey: 'old-env-key', newSecretKey: 'new-env-key' });
    expect(result).toMatchObject({ newKeyIn: 'newSecretKey' });
    expect(result.staleKeyFile).toBeUndefined();
    await expect(openStore({ ...location, secretKey: 'old-env-key' })).rejects.toThrow(/does not match/);
    const store = await openStore({ ...location, secretKey: 'new-env-key' });
    try {
      expect((await readAll(store, ids)).trigger).toEqual({ forward: 'fwd-secret-01', webhook: 'wh-secret-01' });
    } finally {
      await store.close();
    }
  });

  it('a crash after the commit and before the key file swap leaves a store that opens with the new key', async () => {
    const { ids } = await seed();
    const oldKey = readFileSync(keyFile(), 'utf8');
    await expect(
      rotateSecrets({
        ...location,
        beforeKeySwap: () => {
          throw new Error('simulated crash');
        },
      }),
    ).rejects.toThrow('simulated crash');
    expect(readFileSync(keyFile(), 'utf8')).toBe(oldKey);
    expect(existsSync(keyFile() + '.next')).toBe(true);
    const store = await openStore(location);
    try {
      expect((await readAll(store, ids)).token.token).toBe('ghp_rotate_me_0001');
    } finally {
      await store.close();
    }
    expect(existsSync(keyFile() + '.next')).toBe(false);
    expect(readFileSync(keyFile(), 'utf8')).not.toBe(oldKey);
  });

  it('a crash before the commit leaves the old key in charge and the leftover next key is dropped', async () => {
    const { ids } = await seed();
    writeFileSync(keyFile() + '.next', Buffer.alloc(32, 7).toString('base64') + '\n', { mode: 0o600 });
    const store = await openStore(location);
    try {
      expect((await readAll(store, ids)).hook).toBeTruthy();
    } finally {
      await store.close();
    }
    expect(existsSync(keyFile() + '.next')).toBe(false);
  });

  it('a process still holding the old key cannot write secrets after the rotation, and says to restart', async () => {
    const { ids } = await seed();
    const old = await openStore(location);
    try {
      await rotateSecrets({ ...location, force: true });
      await expect(old.accounts.updateSecret(ids.token, { kind: 'token', token: 'ghp_written_with_old_key' })).rejects.toThrow(/restart this Switchboard process/);
      await expect(old.accounts.resolve('github', ids.token)).rejects.toThrow(/restart this Switchboard process/);
      await expect(old.triggers.setSecrets(ids.trigger, { forward: 'x' })).rejects.toThrow(/restart/);
    } finally {
      await old.close();
    }
    const store = await openStore(location);
    try {
      expect((await readAll(store, ids)).token.token).toBe('ghp_rotate_me_0001');
    } finally {
      await store.close();
    }
  });

  it('refuses while a server using the store is running, unless forced', async () => {
    await seed();
    const store = await openStore(location);
    await store.leases.acquire('instance:someone', 'someone', 60_000);
    await store.close();
    const before = await snapshot();
    await expect(rotateSecrets(location)).rejects.toThrow(/A Switchboard server is running on this store/);
    expect(await snapshot()).toBe(before);
    expect((await rotateSecrets({ ...location, force: true })).accounts).toBe(2);
  });

  it('says so when there is no store', async () => {
    await expect(rotateSecrets({ ...location, dataDir: join(dataDir, 'nothing-here') })).rejects.toThrow(/no Switchboard store/);
    expect(existsSync(join(dataDir, 'nothing-here'))).toBe(false);
  });
});
