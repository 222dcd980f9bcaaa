import { existsSync, renameSync, rmSync } from 'node:fs';
import { InputError } from '../errors.js';
import { decryptSecret, encryptSecret, KEY_CHECK_AAD, KEY_CHECK_PLAINTEXT, loadKey, NEXT_KEY_SUFFIX, readKeyFile, type LoadedKey } from './crypto.js';

export class KeyRotatedError extends Error {
  override name = 'KeyRotatedError';
}

export const KEY_ROTATED_MESSAGE =
  'The secret key of this store was changed (switchboard secrets rotate) after this process opened it; restart this Switchboard process. Nothing was written.';

/** Where a store keeps its key check (the key check encrypted under the store key), whatever the database. */
export interface KeyCheckRecord {
  read(): Promise<string | undefined>;
  /** Stores `check` unless one is stored already (another process may have been first). */
  insertIfAbsent(check: string): Promise<void>;
  /** The store as a person names it in a message: a file, or a database without its password. */
  where: string;
}

export function keyMatches(key: Buffer, check: string): boolean {
  try {
    return decryptSecret(key, check, KEY_CHECK_AAD) === KEY_CHECK_PLAINTEXT;
  } catch {
    return false;
  }
}

/** Loads the key and proves it is the one the stored secrets were written with, before anything is written. */
export async function checkKey(record: KeyCheckRecord, options: { dataDir: string; secretKey?: string }): Promise<{ key: Buffer; check: string }> {
  const existingCheck = await record.read();
  let loaded = loadKey({ dataDir: options.dataDir, secretKey: options.secretKey, createKeyFile: existingCheck === undefined });
  if (existingCheck === undefined) await record.insertIfAbsent(encryptSecret(loaded.key, KEY_CHECK_PLAINTEXT, KEY_CHECK_AAD));
  const check = existingCheck ?? (await record.read())!;
  if (loaded.source === 'keyFile') loaded = finishInterruptedRotation(loaded, check);
  if (!keyMatches(loaded.key, check)) throw new InputError(keyMismatchMessage(loaded, record.where), 'SWITCHBOARD_SECRET_KEY');
  return { key: loaded.key, check };
}

/**
 * `secrets rotate` writes the new key to secret.key.next, commits the re-encryption, then renames the
 * file over secret.key. A crash in between leaves secret.key.next behind: if the store already takes it,
 * the rename is finished here; if the store still takes the old key, the rotation never committed and
 * the leftover is removed. Either way the store opens.
 */
function finishInterruptedRotation(loaded: LoadedKey, check: string): LoadedKey {
  const nextFile = loaded.keyFile + NEXT_KEY_SUFFIX;
  if (!existsSync(nextFile)) return loaded;
  if (keyMatches(loaded.key, check)) {
    rmSync(nextFile, { force: true });
    return loaded;
  }
  const next = readKeyFile(nextFile);
  if (!next || !keyMatches(next, check)) return loaded;
  renameSync(nextFile, loaded.keyFile);
  return { ...loaded, key: next };
}

export function keyMismatchMessage(loaded: LoadedKey, where: string): string {
  const head = `The secret key does not match the one the stored secrets in ${where} were encrypted with. Nothing was changed.`;
  return loaded.source === 'secretKey'
    ? `${head} Set SWITCHBOARD_SECRET_KEY to the key used before (or have SWITCHBOARD_SECRET_KEY_COMMAND print it), or unset it if they were encrypted with the key file ${loaded.keyFile}.`
    : `${head} The key came from the key file ${loaded.keyFile}; restore the original file, or set SWITCHBOARD_SECRET_KEY to the key used before.`;
}
