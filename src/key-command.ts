import { spawnSync, type SpawnSyncOptionsWithStringEncoding } from 'node:child_process';
import { InputError } from './errors.js';

export const KEY_COMMAND = 'SWITCHBOARD_SECRET_KEY_COMMAND';
export const KEY_COMMAND_TIMEOUT = 'SWITCHBOARD_SECRET_KEY_COMMAND_TIMEOUT';
const DEFAULT_TIMEOUT_SECONDS = 10;

export interface KeyCommand {
  /** A shell command line, run with /bin/sh -c; what it prints on standard output is the key. */
  command: string;
  timeoutMs: number;
}

/** SWITCHBOARD_SECRET_KEY_COMMAND and its timeout, or undefined when it is not set. */
export function keyCommandOf(env: Record<string, string | undefined>): KeyCommand | undefined {
  const command = env[KEY_COMMAND]?.trim();
  const timeoutText = env[KEY_COMMAND_TIMEOUT]?.trim() || String(DEFAULT_TIMEOUT_SECONDS);
  if (!command) {
    if (env[KEY_COMMAND_TIMEOUT]?.trim()) throw new InputError(`${KEY_COMMAND_TIMEOUT} goes with ${KEY_COMMAND}: set that too, or leave the timeout out.`, KEY_COMMAND_TIMEOUT);
    return undefined;
  }
  // Two sources of one key: whichever won, the other would be silently ignored, and a store opened with the wrong one is refused anyway.
  if (env.SWITCHBOARD_SECRET_KEY?.trim()) {
    throw new InputError(`SWITCHBOARD_SECRET_KEY and ${KEY_COMMAND} are both set: keep one of the two (unset SWITCHBOARD_SECRET_KEY to take the key from the command).`, KEY_COMMAND);
  }
  const seconds = Number(timeoutText);
  if (!/^\d+(\.\d+)?$/.test(timeoutText) || seconds <= 0 || seconds > 600) {
    throw new InputError(`${KEY_COMMAND_TIMEOUT} must be a number of seconds above 0 and at most 600, not "${timeoutText}".`, KEY_COMMAND_TIMEOUT);
  }
  return { command, timeoutMs: seconds * 1000 };
}

/**
 * Runs the key command and returns the key it printed (one line; the trailing newline dropped). Every failure names
 * the variable, the exit code and the last line of the command's standard error; never its standard output.
 */
export function runKeyCommand(keyCommand: KeyCommand, env: Record<string, string | undefined>): string {
  const options: SpawnSyncOptionsWithStringEncoding = {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: keyCommand.timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024,
  };
  // A process group of its own (honoured by spawnSync, though not in its type), so that a timeout also ends what the shell started.
  const run = spawnSync('/bin/sh', ['-c', keyCommand.command], Object.assign(options, { detached: true }));
  const stdout = run.stdout ?? '';
  const said = lastLine(run.stderr ?? '', stdout);
  const fail = (what: string) => new InputError(`${KEY_COMMAND} ${what}${said ? `; its last line of standard error: ${said}` : ''}. ${FIX}`, KEY_COMMAND);
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
    if (run.pid) killGroup(run.pid);
    throw fail(`did not finish within ${keyCommand.timeoutMs / 1000} s and was stopped (raise ${KEY_COMMAND_TIMEOUT} if the secrets manager is slow)`);
  }
  if (run.error) throw fail(`could not be run (${(run.error as NodeJS.ErrnoException).code ?? run.error.message})`);
  if (run.status !== 0) throw fail(run.signal ? `was ended by ${run.signal}` : `failed with exit code ${run.status}`);
  const key = stdout.replace(/\r?\n$/, '');
  if (!key.trim()) throw fail('exited 0 but printed nothing on standard output');
  if (/[\r\n]/.test(key.trim())) throw fail(`printed ${key.trim().split(/\r?\n/).length} lines; it must print the key alone, on one line`);
  if (/\p{Cc}/u.test(key)) throw fail('printed control characters; it must print the key alone, as text');
  return key;
}

const FIX = 'It must print the key alone (64 hex characters, 32 bytes in base64, or a passphrase), as SWITCHBOARD_SECRET_KEY would hold it, and exit 0.';

/** The last line the command wrote to standard error, cut short, with anything it also printed as the key removed. */
function lastLine(stderr: string, stdout: string): string {
  let line = stderr.trim().split(/\r?\n/).at(-1)?.trim() ?? '';
  for (const part of stdout.split(/\s+/).filter((p) => p.length >= 4)) line = line.split(part).join('[redacted]');
  line = line.replace(/\p{Cc}/gu, ' ');
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}
