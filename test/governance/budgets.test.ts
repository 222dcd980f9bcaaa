import { afterEach, describe, expect, it } from 'vitest';
import { budgetGate } from '../../src/governance/budgets.js';
import { budgetUsage } from '../../src/governance/usage.js';
import { fixedPolicy, PolicySchema } from '../../src/policy.js';
import { PERSONAL_OWNER } from '../../src/store/index.js';
import { startHarness, type Harness } from '../harness.js';
import { ADAPTERS, cleanUp, openAt, type Adapter } from '../store/adapters.js';

/**
 * Budgets on one person's tool calls, through a real MCP client: at the limit the call is refused with what was used,
 * the limit and when it resets, and nothing reaches the stand-in provider; the next window (on a clock the test moves)
 * lets calls through again.
 */

const HOUR = 3_600_000;
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await cleanUp();
});

/** A harness on the adapter's store whose budgets follow `policy` and count on the returned clock. */
async function governed(adapter: Adapter, policy: unknown) {
  const location = await adapter.location();
  h = await startHarness({ databaseUrl: location.databaseUrl });
  const clock = { now: Date.parse('2030-03-04T10:15:00Z') };
  h.deps.policy = fixedPolicy(PolicySchema.parse(policy));
  h.deps.budgets = budgetGate(() => h!.store.budgets, () => clock.now);
  return { h, clock };
}

const sent = (h: Harness, provider: 'github' | 'outlook' | 'sales') => h.sandbox.servers[provider].requests.length;

describe.each(ADAPTERS)('budgets on %s', (adapter: Adapter) => {
  it('stops provider requests at the hourly limit, sending nothing, and lets them through in the next hour', async () => {
    const { h, clock } = await governed(adapter, { budgets: [{ accounts: ['github'], providerRequestsPerHour: 3 }] });
    for (let i = 0; i < 3; i++) await h.ok('github_api_call', { method: 'GET', endpoint: '/user', headers: { accept: 'application/vnd.github+json' }, account: 'sample' });
    const before = sent(h, 'github');
    const refused = await h.fails('github_api_call', { method: 'GET', endpoint: '/user', headers: { accept: 'application/vnd.github+json' }, account: 'sample' });
    expect(refused).toBe(
      'Budget reached: providerRequestsPerHour is 3 for you on the github account "sample" (policy budgets.0), and 3 are used in this window. ' +
        'It resets at 2030-03-04T11:00:00.000Z (in 45 min). Nothing was sent to the provider: call again after the reset, or ask an admin to raise the budget.',
    );
    expect(sent(h, 'github')).toBe(before);
    // Another provider's account is not under this rule.
    await h.ok('outlook_api_call', { method: 'GET', endpoint: '/me' });

    const usage = await budgetUsage(h.store, await h.deps.policy!.current(), { now: clock.now });
    expect(usage).toEqual([expect.objectContaining({ owner: PERSONAL_OWNER, account: 'github "sample"', budget: 'providerRequestsPerHour', used: 3, limit: 3, rule: 'budgets.0' })]);

    clock.now += HOUR;
    await h.ok('github_api_call', { method: 'GET', endpoint: '/user', headers: { accept: 'application/vnd.github+json' }, account: 'sample' });
    expect(sent(h, 'github')).toBe(before + 1);
  });

  it('counts each attempt of a retried request, and stops the retries at the limit', async () => {
    const { h } = await governed(adapter, { budgets: [{ accounts: ['github'], providerRequestsPerHour: 2 }] });
    h.sandbox.servers.github.once('GET /user', { status: 502, body: { message: 'Bad gateway' } }, 5);
    const before = sent(h, 'github');
    const refused = await h.fails('github_api_call', { method: 'GET', endpoint: '/user', headers: { accept: 'application/vnd.github+json' }, account: 'sample' });
    expect(refused).toMatch(/^Budget reached: providerRequestsPerHour is 2 .* and 2 are used in this window/);
    expect(sent(h, 'github') - before, 'the third attempt was not sent').toBe(2);
  });

  it('counts emails sent per UTC day, by send_email and by a reply through outlook_api_call, and refuses the next unsent', async () => {
    const { h, clock } = await governed(adapter, { budgets: [{ for: ['*'], emailsPerDay: 2 }] });
    await h.ok('outlook_send_email', { to: ['jordan.lee@fabrikam.example'], subject: 'One', body: 'Hello.' });
    const { messages } = await h.ok('outlook_find_email', { limit: 1 });
    const reply = await h.call('outlook_api_call', { method: 'POST', endpoint: `/me/messages/${messages[0].id}/reply`, body: { comment: 'Thanks.' } });
    expect(reply.isError, JSON.stringify(reply.content)).toBeFalsy();
    const before = h.sandbox.servers.outlook.requests.length;
    const refused = await h.fails('outlook_send_email', { to: ['jordan.lee@fabrikam.example'], subject: 'Three', body: 'Hello.' });
    expect(refused).toMatch(/^Budget reached: emailsPerDay is 2 for you on the outlook account "sample" \(policy budgets\.0\), and 2 are used in this window\. It resets at 2030-03-05T00:00:00\.000Z/);
    expect(h.sandbox.servers.outlook.requests.length).toBe(before);
    // Reading is not sending.
    await h.ok('outlook_find_email', { limit: 1 });

    clock.now += 14 * HOUR;
    await h.ok('outlook_send_email', { to: ['jordan.lee@fabrikam.example'], subject: 'Next day', body: 'Hello.' });
  });

  it('counts the sales credits a lookup reports and refuses lookups once the day is spent', async () => {
    const { h, clock } = await governed(adapter, { budgets: [{ accounts: ['sales'], salesCreditsPerDay: 2 }] });
    const first = await h.ok('sales_find_company', { domain: 'acme.example' });
    const second = await h.ok('sales_find_company', { domain: 'contoso.example' });
    expect(first.credits_used + second.credits_used).toBe(2);
    // A cached answer costs nothing, yet at the limit every lookup waits for the next day.
    const before = sent(h, 'sales');
    expect(await h.fails('sales_find_company', { domain: 'acme.example', refresh: true })).toMatch(/^Budget reached: salesCreditsPerDay is 2 .* and 2 are used in this window/);
    expect(sent(h, 'sales')).toBe(before);
    const [line] = await budgetUsage(h.store, await h.deps.policy!.current(), { now: clock.now });
    expect(line).toMatchObject({ budget: 'salesCreditsPerDay', used: 2, limit: 2 });
    clock.now += 24 * HOUR;
    expect((await h.ok('sales_find_company', { domain: 'acme.example', refresh: true })).credits_used).toBe(1);
  });

  it('touches no counter when no budget rule applies', async () => {
    const { h, clock } = await governed(adapter, { budgets: [{ for: ['someone-else'], providerRequestsPerHour: 1 }] });
    for (let i = 0; i < 3; i++) await h.ok('github_api_call', { method: 'GET', endpoint: '/user', headers: { accept: 'application/vnd.github+json' }, account: 'sample' });
    expect(await h.store.budgets.list({ since: new Date(clock.now - 24 * HOUR).toISOString() })).toEqual([]);
  });
});

describe.each(ADAPTERS)('budget counters on %s', (adapter: Adapter) => {
  it('lets exactly the limit through when many takes race for the last units', async () => {
    const store = await openAt(await adapter.location(), { secretKey: 'budget test key' });
    const key = { owner: 'ada', accountId: 'acct-1', meter: 'providerRequests' as const, windowStart: '2030-03-04T10:00:00.000Z' };
    const results = await Promise.all(Array.from({ length: 25 }, () => store.budgets.take(key, 1, 10)));
    expect(results.filter((r) => r.taken)).toHaveLength(10);
    expect(results.filter((r) => !r.taken).every((r) => r.used === 10)).toBe(true);
    expect(await store.budgets.take(key, 1, 10)).toEqual({ taken: false, used: 10 });
    // Giving back never goes below zero; another person's counter is apart.
    await store.budgets.add(key, -50);
    expect(await store.budgets.take({ ...key, owner: 'bob' }, 4, 4)).toEqual({ taken: true, used: 4 });
    expect(await store.budgets.take(key, 2, 10)).toEqual({ taken: true, used: 2 });
    expect((await store.budgets.list({ since: '2030-03-04T00:00:00.000Z', owner: 'bob' })).map((r) => r.used)).toEqual([4]);
    expect(await store.budgets.prune('2030-03-05T00:00:00.000Z')).toBe(2);
  });
});
