import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const keysOf = (value: unknown): string[] =>
  Array.isArray(value) ? value.flatMap(keysOf) : value && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]) : [];

describe('accounts, wherever they are shown', () => {
  it('switchboard://accounts says what accounts_list says, in snake_case', async () => {
    const listed = await h.ok('accounts_list', {});
    const read = await h.client.readResource({ uri: 'switchboard://accounts' });
    const resource = JSON.parse((read.contents[0] as { text: string }).text);
    expect(resource).toEqual(listed);
    expect(listed.accounts.length).toBeGreaterThan(0);
    expect(keysOf(resource).filter((k) => !/^[a-z0-9_]+$/.test(k))).toEqual([]);
    expect(resource.accounts[0]).toHaveProperty('is_default');
  });
});
