import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import { commandLines, shellBlocks, SWITCHBOARD } from './markdown.js';

/**
 * The commands of docs/accounts.md on the key and on backups, run as written through bash. The secrets managers and
 * PostgreSQL's client tools are not on this machine in a usable version, so stand-ins of the same names go first on
 * PATH, as the triggers page's `my-agent` does: each accepts exactly the arguments the page gives it, and does what the
 * real tool would (print the key; write and read the dump).
 */

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-docs-backups-'));
  dirs.push(dir);
  return dir;
}

function run(line: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `${SWITCHBOARD}\n${line}`], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A stand-in for an outside tool: runs `body` when its arguments are exactly `args`, else fails as the tool would on a typo. */
function standIn(bin: string, name: string, args: string[], body: string): void {
  const expected = args.map((a) => `'${a}'`).join(' ');
  writeFileSync(
    join(bin, name),
    `#!/bin/bash\nexpected=(${expected})\nif [ "$*" != "\${expected[*]}" ] || [ $# -ne \${#expected[@]} ]; then echo "${name}: unexpected arguments: $*" >&2; exit 64; fi\n${body}\n`,
  );
  chmodSync(join(bin, name), 0o755);
}

/** A data dir whose store holds one GitHub account, its secret encrypted under `secretKey` (or a new key file). */
async function seeded(secretKey?: string): Promise<string> {
  const dataDir = tempDir();
  const store = await openStore({ dataDir, secretKey });
  try {
    await store.accounts.add({ provider: 'github', label: 'docs-backup', secret: { kind: 'token', token: 'ghp_docs_backup_token' } });
  } finally {
    await store.close();
  }
  return dataDir;
}

describe('docs/accounts.md: The key from a secrets manager', () => {
  it('each of the four commands, as written, gives the key that opens the store', async () => {
    const lines = shellBlocks('docs/accounts.md', '## The key from a secrets manager').flatMap(commandLines);
    const exports = lines.filter((line) => line.startsWith('export SWITCHBOARD_SECRET_KEY_COMMAND='));
    expect(exports).toHaveLength(4);
    expect(lines.filter((line) => !exports.includes(line))).toEqual(['switchboard accounts list']);
    const key = randomBytes(32).toString('base64');
    const dataDir = await seeded(key);
    const bin = tempDir();
    const print = `printf '%s\\n' '${key}'`;
    standIn(bin, 'vault', ['kv', 'get', '-field=key', 'secret/switchboard'], print);
    standIn(bin, 'aws', ['secretsmanager', 'get-secret-value', '--secret-id', 'switchboard', '--query', 'SecretString', '--output', 'text'], print);
    standIn(bin, 'op', ['read', 'op://vault/switchboard/key'], print);
    standIn(bin, 'pass', ['show', 'switchboard/key'], print);
    for (const line of exports) {
      const r = await run(`${line}\nswitchboard accounts list`, { SWITCHBOARD_DATA_DIR: dataDir, PATH: `${bin}:${process.env.PATH}` });
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/github +docs-backup/);
      expect(r.stdout + r.stderr).not.toContain(key);
    }
  });
});

describe('docs/accounts.md: Backups and restores', () => {
  const [sqlite, postgres] = shellBlocks('docs/accounts.md', '## Backups and restores').map(commandLines);

  it('SQLite: the backup, restored into a new data directory holding the key file, has the account', async () => {
    expect(sqlite).toHaveLength(2);
    const dataDir = await seeded();
    // /var/backups and /var/lib/switchboard stand for the reader's own directories.
    const backups = tempDir();
    const restored = tempDir();
    const local = (line: string) => line.replace('/var/backups', backups).replace('/var/lib/switchboard', restored);
    const backup = await run(local(sqlite![0]!), { SWITCHBOARD_DATA_DIR: dataDir });
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/^ {2}accounts +1$/m);
    copyFileSync(join(dataDir, 'secret.key'), join(restored, 'secret.key'));
    const restore = await run(local(sqlite![1]!), { SWITCHBOARD_DATA_DIR: tempDir() });
    expect(restore.code, restore.stderr).toBe(0);
    const list = await run('switchboard accounts list', { SWITCHBOARD_DATA_DIR: restored });
    expect(list.stdout).toMatch(/github +docs-backup/);
  });

  it('PostgreSQL: pg_dump and pg_restore take the URL the instances use, and db backup points to them', async () => {
    expect(postgres).toEqual([
      'pg_dump --format=custom --file=switchboard.dump "$SWITCHBOARD_DATABASE_URL"',
      'pg_restore --no-owner --dbname="$SWITCHBOARD_DATABASE_URL" switchboard.dump',
    ]);
    const url = 'postgres://switchboard@db.example.net:5432/switchboard';
    const bin = tempDir();
    const work = tempDir();
    standIn(bin, 'pg_dump', ['--format=custom', '--file=switchboard.dump', url], `echo dumped > "${work}/switchboard.dump"`);
    standIn(bin, 'pg_restore', ['--no-owner', `--dbname=${url}`, 'switchboard.dump'], `grep -q dumped switchboard.dump && echo restored > "${work}/restored"`);
    for (const line of postgres!) {
      const r = await run(`cd "${work}"\n${line}`, { SWITCHBOARD_DATABASE_URL: url, PATH: `${bin}:${process.env.PATH}` });
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
    }
    expect(readFileSync(join(work, 'restored'), 'utf8')).toBe('restored\n');
    const refused = await run(`switchboard db backup --to ${join(work, 'b.db')}`, { SWITCHBOARD_DATABASE_URL: url, SWITCHBOARD_DATA_DIR: tempDir() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/use pg_dump, and keep the key with the dump \(docs\/accounts\.md, "Backups and restores"\)/);
  });
});
