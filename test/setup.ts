import { afterAll, afterEach, expect } from 'vitest';
import { takeMisses } from '../src/sandbox/server.js';

/** A request the sandbox has no route for fails the test that sent it, in every test file. */
function expectNoMisses(): void {
  expect(takeMisses(), 'requests the sandbox has no route for (it answered 501); add the route to src/sandbox/').toEqual([]);
}

afterEach(expectNoMisses);
afterAll(expectNoMisses);
