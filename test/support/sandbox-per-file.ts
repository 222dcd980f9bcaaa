import { afterAll, afterEach, beforeAll } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { cleanUp } from '../store/adapters.js';

export interface SandboxPerFile {
  /** The stand-in providers, started once for the test file. */
  readonly sandbox: Sandbox;
  /** What a test opened (servers, clients, receivers): closed after it, newest first, before the stores it opened. */
  closeAfterTest(...closers: Array<() => Promise<unknown>>): void;
}

/** The set-up of the team-server tests: one sandbox per file, and each test's servers and stores closed after it. */
export function sandboxPerFile(): SandboxPerFile {
  let sandbox: Sandbox | undefined;
  const closers: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox?.close());
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
    await cleanUp();
  });
  return {
    get sandbox() {
      if (!sandbox) throw new Error('the sandbox starts in beforeAll: use it inside a test or hook');
      return sandbox;
    },
    closeAfterTest: (...more) => void closers.push(...more),
  };
}
