import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, scryptSync } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../errors.js';

export const KEY_FILE_NAME = 'secret.key';
export const KEY_CHECK_PLAINTEXT = 'switchboard key check';
export const KEY_CHECK_AAD = 'meta:key_check';
/** The next key during `secrets rotate`: written before the re-encryption commits, renamed over the key file after. */
export const NEXT_KEY_SUFFIX = '.next';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BLOB_VERSION = 'v1';
// Fixed on purpose: a passphrase must derive the same key on every machine and every run.
const PASSPHRASE_SALT = 'switchboard/secret-key/v1';

export type KeySource = 'secretKey' | 'keyFile';

export interface LoadedKey {
  key: Buffer;
  source: KeySource;
  keyFile: string;
}

export interface LoadKeyOptions {
  dataDir: string;
  secretKey?: string;
  /** When false, a missing key file is an error instead of being created. */
  createKeyFile?: boolean;
}

/** The store's encryption key: from `secretKey` when given, else from `<dataDir>/secret.key` (created on first run). */
export function loadKey(options: LoadKeyOptions): LoadedKey {
  const keyFile = join(options.dataDir, KEY_FILE_NAME);
  const given = options.secretKey?.trim();
  if (given) return { key: keyFromString(given), source: 'secretKey', keyFile };
  const existing = readKeyFile(keyFile);
  if (existing) return { key: existing, source: 'keyFile', keyFile };
  if (options.createKeyFile === false) {
    throw new InputError(
      `The stored secrets are encrypted, but the key file ${keyFile} is missing. ` +
        'Restore that file, or set SWITCHBOARD_SECRET_KEY to the key they were encrypted with. Nothing was changed.',
      'SWITCHBOARD_SECRET_KEY',
    );
  }
  return { key: createKeyFile(keyFile), source: 'keyFile', keyFile };
}

/** 64 hex chars or base64/base64url of 32 bytes are used as is; anything else is a passphrase. */
export function keyFromString(secretKey: string): Buffer {
  const text = secretKey.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const decoded = Buffer.from(text, 'base64');
    if (decoded.length === KEY_BYTES) return decoded;
  }
  return scryptSync(text, PASSPHRASE_SALT, KEY_BYTES);
}

/** The key in a key file, or undefined when the file does not exist. */
export function readKeyFile(keyFile: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(keyFile, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    const why = code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' || code === 'EPERM' ? 'permission denied to this user' : (error as Error).message;
    throw new InputError(`The key file ${keyFile} cannot be read: ${why}${code ? ` (${code})` : ''}. Make it a file this user may read, or set SWITCHBOARD_SECRET_KEY.`, 'SWITCHBOARD_SECRET_KEY');
  }
  const key = Buffer.from(text, 'base64');
  if (key.length !== KEY_BYTES || !/^[A-Za-z0-9+/_-]+=*$/.test(text)) {
    throw new InputError(`The key file ${keyFile} is damaged: it must hold ${KEY_BYTES} bytes in base64. Restore it from a backup. Nothing was changed.`, 'SWITCHBOARD_SECRET_KEY');
  }
  return key;
}

// Written aside and linked into place: link() fails if the name exists, so a racing process
// never clobbers the winner's key and never reads a half-written file.
function createKeyFile(keyFile: string): Buffer {
  const key = randomBytes(KEY_BYTES);
  const draft = `${keyFile}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(draft, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  try {
    linkSync(draft, keyFile);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const winner = readKeyFile(keyFile);
    if (!winner) throw error;
    return winner;
  } finally {
    unlinkSync(draft);
  }
}

/** A key for one other purpose (e.g. keyed hashes), derived from the store key with HKDF-SHA256. */
export function deriveKey(key: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `switchboard/${purpose}`, KEY_BYTES));
}

/** AES-256-GCM; `aad` binds the ciphertext to its owner (an account id) so it cannot be moved to another row. */
export function encryptSecret(key: Buffer, plaintext: string, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [BLOB_VERSION, iv, tag, ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

export class SecretDecryptionError extends Error {
  override name = 'SecretDecryptionError';
}

/** decryptSecret that remembers recent plaintexts by blob and owner: a hook's secret, read for every delivery, is decrypted once. */
export class DecryptedSecrets {
  private readonly known = new Map<string, string>();

  constructor(
    private readonly key: Buffer,
    private readonly size = 1000,
  ) {}

  get(blob: string, aad: string): string {
    const id = `${aad}\n${blob}`;
    let plaintext = this.known.get(id);
    if (plaintext === undefined) {
      plaintext = decryptSecret(this.key, blob, aad);
      if (this.known.size >= this.size) this.known.clear();
      this.known.set(id, plaintext);
    }
    return plaintext;
  }
}

export function decryptSecret(key: Buffer, blob: string, aad: string): string {
  const parts = blob.split('.');
  if (parts.length !== 4 || parts[0] !== BLOB_VERSION) {
    throw new SecretDecryptionError(`A stored secret is not in the ${BLOB_VERSION} format; it was damaged or written by another program.`);
  }
  const [iv, tag, ciphertext] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new SecretDecryptionError('A stored secret is damaged: its IV or authentication tag has the wrong length.');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptionError(
      'A stored secret could not be decrypted: it was altered, belongs to another account, or was encrypted with another key.',
    );
  }
}

/** How a lookup is found (a keyed hash of it) and what its encrypted result is bound to, in every adapter. */
export function salesCacheKeys(key: Buffer) {
  const hashKey = deriveKey(key, 'sales-cache/lookup-key');
  return {
    hash: (accountId: string, kind: string, lookup: string) => createHmac('sha256', hashKey).update(JSON.stringify([accountId, kind, lookup])).digest('base64url'),
    aad: (accountId: string, kind: string, keyHash: string) => `sales_cache:${accountId}:${kind}:${keyHash}`,
  };
}
