import { afterEach, describe, expect, it } from 'vitest';
import type { AuditInput } from '../../src/store/types.js';
import { ADAPTERS, cleanUp, openAt, postgresAdapter } from './adapters.js';

afterEach(cleanUp);

const entry = (n: number, over: Partial<AuditInput> = {}): AuditInput => ({
  at: new Date(Date.UTC(2026, 0, 1, 0, n)).toISOString(),
  owner: n % 2 ? 'u-ana' : 'u-bo',
  auth: 'oauth',
  clientName: 'agent 1.0',
  action: 'tool.call',
  tool: 'github_get_issue',
  effect: 'read',
  account: 'acc-1',
  target: `octo/hello#${n}`,
  outcome: 'ok',
  providerStatus: 200,
  durationMs: n,
  ...over,
});

describe.each(ADAPTERS)('the audit trail in the $name store', (adapter) => {
  async function filled(count: number) {
    const location = await adapter.location();
    const store = await openAt(location);
    await store.audit.append(Array.from({ length: count }, (_, i) => entry(i + 1)));
    return { location, store };
  }

  it('chains what it appends and verifies it intact, with a count', async () => {
    const { store } = await filled(5);
    await store.audit.append([entry(6, { outcome: 'error', errorClass: 'ProviderError', providerStatus: 404 })]);
    expect(await store.audit.verify()).toEqual({ intact: true, records: 6, from: 1, through: 6 });
    const [newest] = await store.audit.list({ limit: 1 });
    expect(newest).toMatchObject({ seq: 6, outcome: 'error', errorClass: 'ProviderError', providerStatus: 404, target: 'octo/hello#6' });
    const [, before] = await store.audit.list({ limit: 2 });
    expect(newest!.prevHash).toBe(before!.hash);
  });

  it('names an edited record by its sequence', async () => {
    const { location, store } = await filled(5);
    await adapter.raw(location, "UPDATE audit SET target = 'octo/other#3' WHERE seq = ?", 3);
    expect(await store.audit.verify()).toMatchObject({ intact: false, seq: 3, reason: expect.stringContaining('altered') });
  });

  it('names a deleted record, in the middle and at the end', async () => {
    const { location, store } = await filled(5);
    await adapter.raw(location, 'DELETE FROM audit WHERE seq = ?', 4);
    expect(await store.audit.verify()).toMatchObject({ intact: false, seq: 4, reason: expect.stringContaining('missing') });
    const other = await filled(5);
    await adapter.raw(other.location, 'DELETE FROM audit WHERE seq = ?', 5);
    expect(await other.store.audit.verify()).toMatchObject({ intact: false, seq: 5, reason: expect.stringContaining('removed') });
  });

  it('notices a record re-numbered to close the gap left by a deleted one', async () => {
    const { location, store } = await filled(5);
    await adapter.raw(location, 'DELETE FROM audit WHERE seq = ?', 5);
    await adapter.raw(location, 'UPDATE audit SET seq = 5 WHERE seq = ?', 4);
    await adapter.raw(location, 'UPDATE audit SET seq = 4 WHERE seq = ?', 3);
    expect(await store.audit.verify()).toMatchObject({ intact: false, seq: 3 });
  });

  it('still verifies after retention removed the oldest, and still detects an edit in what remains', async () => {
    const { location, store } = await filled(6);
    expect(await store.audit.prune(entry(4).at)).toBe(3);
    expect(await store.audit.verify()).toEqual({ intact: true, records: 3, from: 4, through: 6 });
    await store.audit.append([entry(7)]);
    expect(await store.audit.verify()).toMatchObject({ intact: true, records: 4 });
    await adapter.raw(location, "UPDATE audit SET outcome = 'ok', error_class = NULL, duration_ms = 1 WHERE seq = ?", 5);
    expect(await store.audit.verify()).toMatchObject({ intact: false, seq: 5 });
  });

  it('shows an owner only their own records, and everyone\'s to the store as opened', async () => {
    const { store } = await filled(6);
    const ana = await store.ownedBy('u-ana').audit.list();
    expect(ana.map((r) => r.seq)).toEqual([5, 3, 1]);
    expect(await store.ownedBy('u-ana').audit.list({ owner: 'u-bo' })).toHaveLength(3);
    expect((await store.ownedBy('u-ana').audit.list({ owner: 'u-bo' })).every((r) => r.owner === 'u-ana')).toBe(true);
    expect((await store.ownedBy('u-ana').audit.scan({ afterSeq: 0, limit: 100 })).map((r) => r.owner)).toEqual(['u-ana', 'u-ana', 'u-ana']);
    expect(await store.audit.list()).toHaveLength(6);
    expect(await store.audit.list({ tool: 'github_get_issue', since: entry(5).at })).toHaveLength(2);
  });

  it('offers no way to change or delete a record but retention', async () => {
    const { store } = await filled(1);
    expect(Object.keys(store.audit).sort()).toEqual(['append', 'list', 'prune', 'scan', 'verify']);
  });
});

describe('the audit trail in PostgreSQL shared by two instances', () => {
  it('stays one chain when both append at once', async () => {
    const location = await postgresAdapter.location();
    const [a, b] = [await openAt(location), await openAt(location)];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).audit.append([entry(i * 2 + 1), entry(i * 2 + 2)])),
    );
    expect(await a.audit.verify()).toEqual({ intact: true, records: 40, from: 1, through: 40 });
    expect(await b.audit.verify()).toMatchObject({ intact: true, records: 40 });
  });
});
