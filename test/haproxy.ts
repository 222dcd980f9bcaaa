import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Debian's HAProxy and the libraries it links that a machine without it usually lacks. */
const PACKAGES = ['haproxy', 'liblua5.3-0', 'libopentracing-c-wrapper0', 'libopentracing1'];
const CACHE = fileURLToPath(new URL('../node_modules/.cache/haproxy', import.meta.url));

export interface HaproxyBinary {
  path: string;
  env: Record<string, string>;
}

function onPath(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * HAProxy for the deployment test: the machine's own if it has one, else Debian's package unpacked (no root needed)
 * into node_modules/.cache, so `npm test` provisions it itself on a Debian or Ubuntu machine.
 */
export function haproxyBinary(): HaproxyBinary {
  const installed = onPath();
  if (installed) return { path: installed, env: {} };
  const binary = join(CACHE, 'usr/sbin/haproxy');
  if (!existsSync(binary)) {
    const downloads = mkdtempSync(join(tmpdir(), 'switchboard-haproxy-'));
    try {
      execFileSync('apt-get', ['download', ...PACKAGES], { cwd: downloads, stdio: 'pipe' });
      mkdirSync(CACHE, { recursive: true });
      for (const deb of readdirSync(downloads).filter((f) => f.endsWith('.deb'))) execFileSync('dpkg-deb', ['-x', join(downloads, deb), CACHE]);
    } catch (error) {
      rmSync(CACHE, { recursive: true, force: true });
      throw new Error(
        `The deployment test needs HAProxy: install it (apt-get install haproxy, brew install haproxy), or let the test unpack Debian's package, which needs apt-get and the Debian archive (${(error as Error).message.split('\n')[0]}).`,
      );
    } finally {
      rmSync(downloads, { recursive: true, force: true });
    }
  }
  const libraries = ['usr/lib/x86_64-linux-gnu', 'usr/lib/aarch64-linux-gnu', 'usr/lib'].map((d) => join(CACHE, d)).filter(existsSync);
  return { path: binary, env: { LD_LIBRARY_PATH: [...libraries, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') } };
}
