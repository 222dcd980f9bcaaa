import { afterAll, afterEach } from 'vitest';
import { expectNoMisses } from './support/misses.js';

afterEach(expectNoMisses);
afterAll(expectNoMisses);
