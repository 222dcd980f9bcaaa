import type { Readable } from 'node:stream';
import { reportMiss, SANDBOX_MISS } from '../../src/sandbox/index.js';

/**
 * Reads a child process's log for the sandbox's 'no route' lines and reports each, so that a miss in a
 * `--sandbox` child fails the test that caused it, as one in this process does (test/setup.ts).
 */
export function watchMisses(stream: Readable | null | undefined): void {
  let rest = '';
  stream?.on('data', (chunk) => {
    const lines = (rest + String(chunk)).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      if (!line.includes(SANDBOX_MISS)) continue;
      const entry = parse(line);
      if (entry?.msg === SANDBOX_MISS) reportMiss(`${entry.provider} ${entry.method} ${entry.path} (in a child process)`);
    }
  });
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line.slice(line.indexOf('{')));
  } catch {
    return undefined;
  }
}
