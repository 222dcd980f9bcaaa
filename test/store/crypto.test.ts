import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DecryptedSecrets, decryptSecret, encryptSecret, keyFromString, loadKey } from '../../src/store/crypto.js';
import { openStore } from '../../src/store/index.js';
import { ADAPTERS, cleanUp } from './adapters.js';

const tempDir = () => mkdtempSync(join(os.tmpdir(), 'switchboard-crypto-'));
const key = randomBytes(32);

function flipFirstChar(part: string): string {
  return (part[0] === 'A' ? 'B' : 'A') + part.slice(1);
}

describe('encryptSecret / decryptSecret', () => {
  it('round-trips and writes a versioned blob with a fresh IV each time', () => {
    const a = encryptSecret(key, 'ghp_plaintext_token', 'acc_1');
    const b = encryptSecret(key, 'ghp_plaintext_token', 'acc_1');
    expect(a).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('ghp_plaintext_token');
    expect(decryptSecret(key, a, 'acc_1')).toBe('ghp_plaintext_token');
    expect(decryptSecret(key, b, 'acc_1')).toBe('ghp_plaintext_token');
  });

  it('refuses a tampered ciphertext, tag or IV instead of returning garbage', () => {
    const blob = encryptSecret(key, '{"kind":"token","token":"abc"}', 'acc_1');
    const parts = blob.split('.');
    for (const index of [1, 2, 3]) {
      const tampered = parts.map((p, i) => (i === index ? flipFirstChar(p) : p)).join('.');
      expect(() => decryptSecret(key, tampered, 'acc_1')).toThrow(/could not be decrypted: it was altered/);
    }
    expect(() => decryptSecret(key, `v2.${parts.slice(1).join('.')}`, 'acc_1')).toThrow(/not in the v1 format/);
    expect(() => decryptSecret(key, 'not a blob', 'acc_1')).toThrow(/not in the v1 format/);
  });

  it('refuses a ciphertext moved to another account (AAD) or read with another key', () => {
    const blob = encryptSecret(key, 'secret', 'acc_aaaaaaaaaa');
    expect(() => decryptSecret(key, blob, 'acc_bbbbbbbbbb')).toThrow(/belongs to another account/);
    expect(() => decryptSecret(randomBytes(32), blob, 'acc_aaaaaaaaaa')).toThrow(/another key/);
  });

  it('remembers a decrypted secret by blob and owner only: a remembered blob moved to another owner or altered is still refused', () => {
    const secrets = new DecryptedSecrets(key, 2);
    const blob = encryptSecret(key, 'hook secret', 'hk_aaaa');
    expect(secrets.get(blob, 'hk_aaaa')).toBe('hook secret');
    expect(secrets.get(blob, 'hk_aaaa')).toBe('hook secret');
    expect(() => secrets.get(blob, 'hk_bbbb')).toThrow(/belongs to another account/);
    const parts = blob.split('.');
    expect(() => secrets.get([parts[0], parts[1], flipFirstChar(parts[2]!), parts[3]].join('.'), 'hk_aaaa')).toThrow(/it was altered/);
    // Past its size it starts over, decrypting again.
    for (const owner of ['hk_1', 'hk_2', 'hk_3']) expect(secrets.get(encryptSecret(key, owner, owner), owner)).toBe(owner);
    expect(() => new DecryptedSecrets(randomBytes(32)).get(blob, 'hk_aaaa')).toThrow(/another key/);
  });
});

describe('key formats', () => {
  const raw = randomBytes(32);
  it('takes 64 hex chars, base64 and base64url as the raw key', () => {
    expect(keyFromString(raw.toString('hex'))).toEqual(raw);
    expect(keyFromString(raw.toString('hex').toUpperCase())).toEqual(raw);
    expect(keyFromString(raw.toString('base64'))).toEqual(raw);
    expect(keyFromString(raw.toString('base64url'))).toEqual(raw);
    expect(keyFromString(`  ${raw.toString('hex')}\n`)).toEqual(raw);
  });
  it('derives a stable 32-byte key from a passphrase', () => {
    const derived = keyFromString('correct horse battery staple');
    expect(derived).toHaveLength(32);
    expect(keyFromString('correct horse battery staple')).toEqual(derived);
    expect(keyFromString('correct horse battery stapler')).not.toEqual(derived);
    expect(derived.toString('utf8')).not.toContain('correct horse');
  });
  it('treats a near-miss of hex as a passphrase, not as a truncated key', () => {
    const almostHex = raw.toString('hex').slice(0, 63);
    expect(keyFromString(almostHex)).not.toEqual(Buffer.from(almostHex, 'hex'));
    expect(keyFromString(almostHex)).toHaveLength(32);
  });
});

describe('loadKey', () => {
  it('uses secretKey without touching the data dir', () => {
    const dir = tempDir();
    const loaded = loadKey({ dataDir: dir, secretKey: key.toString('hex') });
    expect(loaded.key).toEqual(key);
    expect(loaded.source).toBe('secretKey');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('creates secret.key with mode 0600 on first run and reuses it', () => {
    const dir = tempDir();
    const first = loadKey({ dataDir: dir });
    const file = join(dir, 'secret.key');
    expect(first.source).toBe('keyFile');
    expect(first.keyFile).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toEqual(first.key);
    expect(loadKey({ dataDir: dir }).key).toEqual(first.key);
    expect(readdirSync(dir)).toEqual(['secret.key']);
  });

  it('never overwrites an existing key file', () => {
    const dir = tempDir();
    const file = join(dir, 'secret.key');
    writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600 });
    expect(loadKey({ dataDir: dir }).key).toEqual(key);
    expect(readFileSync(file, 'utf8')).toBe(key.toString('base64') + '\n');
  });

  it('refuses a damaged key file and, when told not to create one, a missing file', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'secret.key'), 'dG9vIHNob3J0\n');
    expect(() => loadKey({ dataDir: dir })).toThrow(/is damaged/);
    const empty = tempDir();
    expect(() => loadKey({ dataDir: empty, createKeyFile: false })).toThrow(/key file .*secret\.key is missing.*SWITCHBOARD_SECRET_KEY/);
    expect(existsSync(join(empty, 'secret.key'))).toBe(false);
  });
});

describe.each(ADAPTERS)('openStore key check on $name', (adapter) => {
  afterEach(cleanUp);
  const secret = { kind: 'token' as const, token: 'ghp_keycheck_token_123' };

  it('refuses another secretKey with a clear message that never shows the key, and changes nothing', async () => {
    const location = await adapter.location();
    const dir = location.dataDir;
    const rightKey = randomBytes(32).toString('hex');
    const wrongKey = 'wrong passphrase 42';
    const store = await openStore({ ...location, secretKey: rightKey });
    await store.accounts.add({ provider: 'github', label: 'me', secret });
    const checkBefore = await adapter.raw(location, "SELECT value FROM meta WHERE key = 'key_check'");
    await store.close();

    const failure = await openStore({ ...location, secretKey: wrongKey }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toMatch(/secret key does not match the one the stored secrets .* were encrypted with/);
    expect(failure?.message).toContain('SWITCHBOARD_SECRET_KEY');
    expect(failure?.message).toContain(join(dir, 'secret.key'));
    expect(failure?.message).not.toContain(wrongKey);
    expect(failure?.message).not.toContain(rightKey);
    expect(existsSync(join(dir, 'secret.key'))).toBe(false);

    const again = await openStore({ ...location, secretKey: rightKey });
    expect(await adapter.raw(location, "SELECT value FROM meta WHERE key = 'key_check'")).toEqual(checkBefore);
    expect((await again.accounts.resolve('github')).secret).toEqual(secret);
    await again.close();
  });

  it('refuses a secretKey that differs from the key file the secrets were written with, keeping the file', async () => {
    const location = await adapter.location();
    const dir = location.dataDir;
    const store = await openStore(location);
    await store.accounts.add({ provider: 'github', secret });
    await store.close();
    const keyFileBefore = readFileSync(join(dir, 'secret.key'), 'utf8');

    await expect(openStore({ ...location, secretKey: randomBytes(32).toString('base64') })).rejects.toThrow(/does not match/);
    expect(readFileSync(join(dir, 'secret.key'), 'utf8')).toBe(keyFileBefore);
    const again = await openStore(location);
    expect((await again.accounts.resolve('github')).secret).toEqual(secret);
    await again.close();
  });

  it('refuses a replaced key file, and works again once the original is back', async () => {
    const location = await adapter.location();
    const dir = location.dataDir;
    const store = await openStore(location);
    await store.close();
    const keyFile = join(dir, 'secret.key');
    const original = readFileSync(keyFile, 'utf8');
    writeFileSync(keyFile, randomBytes(32).toString('base64'));
    await expect(openStore(location)).rejects.toThrow(/key file .*secret\.key; restore the original file/);
    writeFileSync(keyFile, original);
    await expect(openStore(location).then((s) => s.close())).resolves.toBeUndefined();
  });

  it('refuses to invent a new key file when the stored secrets need the lost one', async () => {
    const location = await adapter.location();
    const dir = location.dataDir;
    await (await openStore(location)).close();
    const keyFile = join(dir, 'secret.key');
    rmSync(keyFile);
    await expect(openStore(location)).rejects.toThrow(/key file .*secret\.key is missing/);
    expect(existsSync(keyFile)).toBe(false);
  });

  it('accepts the same key given in another format', async () => {
    const location = await adapter.location();
    const raw = randomBytes(32);
    const first = await openStore({ ...location, secretKey: raw.toString('hex') });
    await first.accounts.add({ provider: 'sales', secret: { kind: 'api_key', apiKey: 'sales_key_123456' } });
    await first.close();
    const store = await openStore({ ...location, secretKey: raw.toString('base64url') });
    expect((await store.accounts.resolve('sales')).secret.apiKey).toBe('sales_key_123456');
    await store.close();
  });
});
