import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileRefusal } from '../../src/cli-text.js';
import { makeDataDir, openStore } from '../../src/store/index.js';
import { runCli } from './cli.js';

/** Refusals a person can fix: exit 2, a message of their own (never "unexpected failure"), and nothing written. */
let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'switchboard-refusals-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function expectRefusal(r: { code: number | null; stderr: string }, message: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/unexpected failure/i);
}

describe('refusals exit 2 with their own message', () => {
  it('--host 0.0.0.0 without SWITCHBOARD_HTTP_TOKEN, before the store is created', async () => {
    const dataDir = join(root, 'never-made');
    for (const args of [['serve', '--http', '--host', '0.0.0.0'], ['serve', '--host', '0.0.0.0'], ['serve', '--sandbox', '--http', '--host', '0.0.0.0']]) {
      const r = await runCli([...args, '--port', '0'], { env: { SWITCHBOARD_DATA_DIR: dataDir } });
      expectRefusal(r, /^switchboard: Refusing to listen on 0\.0\.0\.0 \(--host\) without SWITCHBOARD_HTTP_TOKEN: .*bind 127\.0\.0\.1\. Nothing was started or written\.$/m);
      expect(existsSync(dataDir), args.join(' ')).toBe(false);
    }
  });

  it('a store whose key file is missing or damaged', async () => {
    const store = await openStore({ dataDir: root });
    await store.accounts.add({ provider: 'github', label: 'work', secret: { kind: 'token', token: 'ghp_refusal_test_token' } });
    await store.close();
    const keyFile = join(root, 'secret.key');
    rmSync(keyFile);
    const missing = await runCli(['accounts', 'list'], { env: { SWITCHBOARD_DATA_DIR: root } });
    expectRefusal(missing, new RegExp(`the key file ${keyFile} is missing\\. Restore that file, or set SWITCHBOARD_SECRET_KEY`));
    expect(existsSync(keyFile), 'no new key file was made in its place').toBe(false);
    writeFileSync(keyFile, 'not a key\n');
    const damaged = await runCli(['triggers', 'list'], { env: { SWITCHBOARD_DATA_DIR: root } });
    expectRefusal(damaged, /The key file .*secret\.key is damaged: it must hold 32 bytes in base64/);
  });

  it('a data directory that cannot be made names the parent and why', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    const r = await runCli(['accounts', 'list', '--data-dir', join(file, 'store')], { env: {} });
    expectRefusal(r, new RegExp(`Cannot create the data directory ${file}/store: the parent ${file} is a file, not a directory \\(ENOTDIR\\); .*--data-dir`));
  });

  it('a key file the file system will not read, named for what it is', async () => {
    mkdirSync(join(root, 'secret.key'));
    const r = await runCli(['accounts', 'list'], { env: { SWITCHBOARD_DATA_DIR: root } });
    expectRefusal(r, new RegExp(`^switchboard: The key file ${join(root, 'secret.key')} cannot be read: it is a directory \\(EISDIR\\)\\. Make it a file`, 'm'));
  });

  it('--database-url with --sandbox, whose store is its own', async () => {
    const r = await runCli(['users', 'list', '--sandbox', '--database-url', 'postgres://u@127.0.0.1:1/db'], { env: { SWITCHBOARD_DATA_DIR: root } });
    expectRefusal(r, /--database-url does not go with --sandbox/);
    expect(existsSync(join(root, 'sandbox'))).toBe(false);
  });
});

describe('the data directory', () => {
  it('is made a directory at a time, so a refusal says which parent refused: read-only, not writable, or full', () => {
    const refuse = (code: string) => (dir: string) => {
      if (dir.endsWith('/x')) throw Object.assign(new Error(`${code}: refused, mkdir '${dir}'`), { code, syscall: 'mkdir', path: dir });
    };
    const dataDir = join(root, 'x', 'y', 'z');
    expect(() => makeDataDir(dataDir, refuse('EROFS'))).toThrow(
      `Cannot create the data directory ${dataDir}: the parent ${root} is on a read-only file system (EROFS); choose another with --data-dir DIR (or SWITCHBOARD_DATA_DIR).`,
    );
    expect(() => makeDataDir(dataDir, refuse('EACCES'))).toThrow(`this user may not create directories in the parent ${root} (EACCES); give it access, or choose another with --data-dir DIR`);
    expect(() => makeDataDir(dataDir, refuse('ENOSPC'))).toThrow(`the disk of ${root} is full (ENOSPC)`);
    makeDataDir(dataDir);
    expect(existsSync(dataDir)).toBe(true);
  });

  it('any other file the file system refuses is named with what the refusal means, not as an unexpected failure', () => {
    const refusal = (code: string) => Object.assign(new Error(`${code}: refused`), { code, syscall: 'open', path: '/data/switchboard/sandbox.json' });
    expect(fileRefusal(refusal('EROFS'))).toBe(
      'Cannot open /data/switchboard/sandbox.json: it is on a read-only file system (EROFS). Fix that, or choose another data directory with --data-dir DIR (or SWITCHBOARD_DATA_DIR).',
    );
    expect(fileRefusal(refusal('EACCES'))).toMatch(/: permission denied to this user \(EACCES\)\./);
    expect(fileRefusal(refusal('ENOSPC'))).toMatch(/: the disk is full \(ENOSPC\)\./);
    expect(fileRefusal(new Error('something else'))).toBeUndefined();
  });
});
