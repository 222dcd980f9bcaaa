import type { Readable } from 'node:stream';
import { expect } from 'vitest';
import { reportMiss, SANDBOX_MISS } from '../../src/sandbox/index.js';
import { takeMisses } from '../../src/sandbox/server.js';

/**
 * A request the sandbox has no route for fails the test that sent it, in every test file (test/setup.ts runs this
 * after each test): every sandbox server's misses in this process and those reported by watchMisses, so no test file
 * checks its own servers' misses.
 */
export function expectNoMisses(): void {
  expect(takeMisses(), 'requests the sandbox has no route for (it answered 501); add the route to src/sandbox/').toEqual([]);
}

/**
 * Reads a child process's log for the sandbox's 'no route' lines and reports each, so that a miss in a
 * `--sandbox` child fails the test that caused it, as one in this process does (expectNoMisses).
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
