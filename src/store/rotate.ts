import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { InputError } from '../errors.js';
import { keyFromString, loadKey, NEXT_KEY_SUFFIX } from './crypto.js';
import { syncDirectory } from './durable-files.js';
import type { Rekeying, RotateCounts } from './rekeying.js';
import { openSqliteRekeying } from './sqlite/rotate.js';

export interface RotateOptions {
  dataDir: string;
  /** SWITCHBOARD_DATABASE_URL: the store is this PostgreSQL database. */
  databaseUrl?: string;
  /** SWITCHBOARD_SECRET_KEY: the current key, when it is not in the key file. */
  secretKey?: string;
  /** SWITCHBOARD_NEW_SECRET_KEY: the key to re-encrypt under; without it a new random key goes to the key file. */
  newSecretKey?: string;
  /** Rotate even though a server seems to be running on this data dir. */
  force?: boolean;
  /** Tests: runs after the commit and before the new key file takes the old one's place (a crash there). */
  beforeKeySwap?: () => void;
}

export interface RotateResult extends RotateCounts {
  /** Where the new key is: the key file, or SWITCHBOARD_NEW_SECRET_KEY (then SWITCHBOARD_SECRET_KEY must be set to it). */
  newKeyIn: 'keyFile' | 'newSecretKey';
  keyFile: string;
  /** The key file that held the old key and is no longer used (when the new key is given in the environment). */
  staleKeyFile?: string;
}

/**
 * `switchboard secrets rotate`: re-encrypts every secret (accounts, triggers, hooks and the key check)
 * under a new key in one transaction, and drops the sales lookup cache in it: its rows are found by an
 * HMAC of the identifier under the old key, which cannot be recomputed without keeping the identifiers,
 * and a rotation (often after a suspected leak) is a good moment to shed personal data; the cost is that
 * the next lookups are paid again. Sign-ins waiting for their redirect, web sessions and cut results are
 * dropped too: a sign-in is started again, the page asks to log in again. The current key is proven first
 * (a wrong or missing one changes nothing). A new key file is written aside as secret.key.next before
 * the commit and renamed over secret.key after it, so at every moment one of the two files opens the
 * store (openStore finishes or discards an interrupted swap).
 */
export async function rotateSecrets(o: RotateOptions): Promise<RotateResult> {
  // Proves the current key (and finishes an interrupted rotation) before anything is written.
  let store: Rekeying;
  try {
    store = o.databaseUrl ? await (await import('./pg/rotate.js')).openPgRekeying({ ...o, databaseUrl: o.databaseUrl }) : await openSqliteRekeying(o);
  } catch (error) {
    throw error instanceof InputError ? error : new InputError((error as Error).message);
  }
  try {
    const current = loadKey({ dataDir: o.dataDir, secretKey: o.secretKey, createKeyFile: false });
    if (!o.force && (await store.serverRunning())) {
      throw new InputError(
        'A Switchboard server is running on this store (it renewed its presence in the last 20 s). Stop every `switchboard serve` using it, ' +
          'then run this again; a server left running could not read the secrets after the rotation. Nothing was changed.',
      );
    }
    let newKey: Buffer;
    if (o.newSecretKey?.trim()) newKey = keyFromString(o.newSecretKey);
    else if (current.source === 'secretKey') {
      throw new InputError(
        'The current key comes from SWITCHBOARD_SECRET_KEY, so the new one must too: set SWITCHBOARD_NEW_SECRET_KEY to the new key ' +
          '(32 random bytes as hex or base64, e.g. from `openssl rand -base64 32`), run this again, then put it in SWITCHBOARD_SECRET_KEY (or where SWITCHBOARD_SECRET_KEY_COMMAND reads it). Nothing was changed.',
        'SWITCHBOARD_NEW_SECRET_KEY',
      );
    } else newKey = randomBytes(32);
    if (newKey.equals(current.key)) throw new InputError('The new key is the same as the current one. Nothing was changed.', 'SWITCHBOARD_NEW_SECRET_KEY');

    const toFile = !o.newSecretKey?.trim();
    const nextFile = current.keyFile + NEXT_KEY_SUFFIX;
    if (toFile) writeDurably(nextFile, newKey.toString('base64') + '\n');

    let counts: RotateCounts;
    try {
      counts = await store.reencrypt(current.key, newKey);
    } catch (error) {
      if (toFile) rmSync(nextFile, { force: true });
      throw error;
    }
    // Committed: from here the store opens only with the new key, which is safe in secret.key.next.
    o.beforeKeySwap?.();
    if (toFile) {
      renameSync(nextFile, current.keyFile);
      syncDirectory(dirname(current.keyFile));
    }
    return {
      ...counts,
      newKeyIn: toFile ? 'keyFile' : 'newSecretKey',
      keyFile: current.keyFile,
      ...(!toFile && current.source === 'keyFile' ? { staleKeyFile: current.keyFile } : {}),
    };
  } finally {
    await store.close();
  }
}

function writeDurably(file: string, text: string): void {
  rmSync(file, { force: true });
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  syncDirectory(dirname(file));
}
