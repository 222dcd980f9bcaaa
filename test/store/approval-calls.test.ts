import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTERS, cleanUp, openAt, type Adapter } from './adapters.js';

/** The calls MCP tasks wait on: kept encrypted, bound to their approval and person, gone after their expiry. */

afterEach(() => cleanUp());

const call = JSON.stringify({ tool: 'outlook_send_email', args: { to: ['jordan.lee@fabrikam.example'], body: 'Quarterly numbers attached.' } });
const later = (ms: number) => new Date(Date.now() + ms).toISOString();

describe.each(ADAPTERS)('kept calls on $name', (adapter: Adapter) => {
  it('keeps a call encrypted for its approval and person only, keeps the first of two, and its result beside it', async () => {
    const location = await adapter.location();
    const store = await openAt(location, { secretKey: 'kept calls key' });
    const now = new Date().toISOString();
    await store.approvals.keepCall('apr_1', 'ada', call, later(60_000));
    await store.approvals.keepCall('apr_1', 'ada', '{"tool":"other","args":{}}', later(60_000));
    expect(await store.approvals.keptCall('apr_1', 'ada', now)).toEqual({ call });
    expect(await store.approvals.keptCall('apr_1', 'bob', now)).toBeUndefined();
    expect(await store.approvals.keptCall('apr_2', 'ada', now)).toBeUndefined();

    const [row] = await adapter.raw(location, 'SELECT call_enc FROM approval_calls WHERE approval_id = ?', 'apr_1');
    expect(row!.call_enc).not.toMatch(/Quarterly|jordan|outlook/);
    // Moved to another person by hand, the row no longer opens: the ciphertext is bound to its approval and person.
    await adapter.raw(location, 'UPDATE approval_calls SET owner = ? WHERE approval_id = ?', 'bob', 'apr_1');
    expect(await store.approvals.keptCall('apr_1', 'bob', now)).toBeUndefined();
    await adapter.raw(location, 'UPDATE approval_calls SET owner = ? WHERE approval_id = ?', 'ada', 'apr_1');

    await store.approvals.keepResult('apr_1', 'ada', '{"content":[]}', later(120_000));
    expect(await store.approvals.keptCall('apr_1', 'ada', now)).toEqual({ call, result: '{"content":[]}' });
  });

  it('reads a call past its expiry as gone, and removes it when the next call is kept', async () => {
    const location = await adapter.location();
    const store = await openAt(location, { secretKey: 'kept calls key' });
    await store.approvals.keepCall('apr_old', 'ada', call, later(1_000));
    expect(await store.approvals.keptCall('apr_old', 'ada', later(2_000))).toBeUndefined();
    await adapter.raw(location, 'UPDATE approval_calls SET expires_at = ? WHERE approval_id = ?', later(-1_000), 'apr_old');
    await store.approvals.keepCall('apr_new', 'ada', call, later(60_000));
    expect((await adapter.raw(location, 'SELECT approval_id FROM approval_calls')).map((r) => r.approval_id)).toEqual(['apr_new']);
  });
});
