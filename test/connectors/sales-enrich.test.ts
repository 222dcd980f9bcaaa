import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_API_KEYS, salesRoutes, type SandboxRequest, type SandboxResponse } from '../../src/sandbox/index.js';
import type { SalesPerson } from '../../src/sandbox/sales/routes.js';
import { startHarness, type Harness } from '../harness.js';
import { emptySalesCache } from '../store/states.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.store.accounts.add({ provider: 'sales', label: 'v2', meta: { dialect: 'v2' }, secret: { kind: 'api_key', apiKey: SANDBOX_API_KEYS.sales } });
});
afterAll(() => h.close());
beforeEach(async () => {
  h.sandbox.servers.sales.reset();
  h.sandbox.states.sales.credits.used = 0;
  await emptySalesCache(h.store);
});

const requests = (key?: string) => h.sandbox.servers.sales.requests.filter((r) => !key || `${r.method} ${r.path}` === key);
const credits = () => h.sandbox.states.sales.credits;
const people = () => h.sandbox.states.sales.people;
const cost = (p: SalesPerson) => (p.phoneNumbers.length ? 2 : 1);

interface Row {
  input: Record<string, string>;
  status: 'matched' | 'no_match' | 'error';
  person?: SalesPerson;
}

/** Every fifth record is a known person (by email, LinkedIn URL, or name + company in turn); two are invalid; the rest match nobody. */
function rows(n: number): Row[] {
  return Array.from({ length: n }, (_, i): Row => {
    if (i === 7 || i === 131) return { input: { firstName: 'Only' }, status: 'error' };
    if (i % 5 !== 0) return { input: { email: `ghost-${i}@nowhere.example` }, status: 'no_match' };
    const p = people()[(i / 5) % people().length]!;
    const mode = (i / 5) % 3;
    const input = mode === 0 ? { email: p.emailAddresses[0]!.email } : mode === 1 ? { linkedInUrl: p.socialLinks.linkedin } : { firstName: p.firstName, lastName: p.lastName, company: p.company.name };
    return { input, status: 'matched', person: p };
  });
}

async function enrichWithProgress(args: Record<string, unknown>, name = 'sales_enrich_contacts') {
  const events: Progress[] = [];
  const result = (await h.client.callTool({ name, arguments: args }, undefined, { onprogress: (p) => events.push(p) })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content).slice(0, 500)).toBeFalsy();
  return { out: result.structuredContent as any, events };
}

/** The real bulk route, refusing the batch that holds `ghost-101` (the middle one) with 429 `times` times. */
function middleBatchRateLimited(times: number, response: SandboxResponse = { status: 429, body: { message: 'Too many requests' } }) {
  const real = salesRoutes(h.sandbox.states.sales)['POST /person/bulk']!;
  const seen = { middle: 0 };
  h.sandbox.servers.sales.use('POST /person/bulk', (req: SandboxRequest) => {
    if (!JSON.stringify(req.body).includes('"ghost-101@')) return real(req);
    seen.middle++;
    return seen.middle <= times ? response : real(req);
  });
  return seen;
}

function checkRows(out: any, expected: Row[]) {
  expect(out.results).toHaveLength(expected.length);
  expected.forEach((row, i) => {
    const got = out.results[i];
    expect(got.status, `record ${i}`).toBe(row.status);
    if (row.person) expect(got.contact.name, `record ${i}`).toBe(row.person.fullName);
    if (row.status === 'error') expect(got.error, `record ${i}`).toMatch(/^Not sent: .*add lastName and company/);
    if (row.status === 'no_match') expect(got.contact, `record ${i}`).toBeUndefined();
  });
}

describe('sales_enrich_contacts', () => {
  it('enriches 250 records through a 429 in the middle: statuses in input order, back-off, progress notifications', async () => {
    const expected = rows(250);
    const seen = middleBatchRateLimited(4);
    const { out, events } = await enrichWithProgress({ contacts: expected.map((r) => r.input) });

    checkRows(out, expected);
    expect(out).toMatchObject({ matched: 50, no_match: 198, errors: 2 });
    const charged = expected.filter((r) => r.person).reduce((n, r) => n + cost(r.person!), 0);
    expect(out.credits_used).toBe(charged);
    expect(credits().used).toBe(charged);
    expect(out.credits_remaining).toBe(1000 - charged);
    expected.forEach((row, i) => row.person && expect(out.results[i].credits_used, `record ${i}`).toBe(cost(row.person)));

    // 248 distinct identifiers in batches of 100, 100 and 48; the middle one was refused four times, then answered.
    expect(seen.middle).toBe(5);
    const sent = requests('POST /person/bulk');
    expect(sent).toHaveLength(7);
    expect(sent.map((r) => r.body.length).sort()).toEqual([100, 100, 100, 100, 100, 100, 48]);
    for (const r of sent) {
      expect(r.headers.api_key).toBe(SANDBOX_API_KEYS.sales);
      for (const item of r.body) expect([['email'], ['linkedInUrl'], ['company', 'firstName', 'lastName']]).toContainEqual(Object.keys(item).sort());
    }

    expect(events.length).toBeGreaterThanOrEqual(4);
    expect(events.every((e) => e.total === 250)).toBe(true);
    expect(events.map((e) => e.progress)).toEqual([...events.map((e) => e.progress)].sort((a, b) => a - b));
    expect(new Set(events.map((e) => e.progress)).size).toBe(events.length);
    expect(events[0]!.progress).toBe(2);
    expect(events.at(-1)!.progress).toBe(250);
  });

  it('gives up on a batch still rate limited after the back-off budget: its records are errors, the others go on', async () => {
    const expected = rows(250);
    const seen = middleBatchRateLimited(Infinity);
    const { out } = await enrichWithProgress({ contacts: expected.map((r) => r.input) });
    expect(seen.middle).toBe(5);
    // Unique identifiers 100-199 (input 101-201, without the invalid 131) were in the refused batch.
    const refused = new Set(expected.map((_, i) => i).filter((i) => i >= 101 && i <= 201 && i !== 131));
    expect(refused.size).toBe(100);
    out.results.forEach((r: any, i: number) => {
      if (refused.has(i)) {
        expect(r.status, `record ${i}`).toBe('error');
        expect(r.error).toMatch(/^Not looked up: still rate limited after 5 attempts/);
        expect(r.error).toMatch(/answered 429 to POST \/person\/bulk/);
      } else expect(r.status, `record ${i}`).toBe(expected[i]!.status);
    });
    expect(out.errors).toBe(102);
  });

  it('stops at once when the provider asks to wait longer than the budget, saying when to retry', async () => {
    const expected = rows(250);
    const seen = middleBatchRateLimited(Infinity, { status: 429, headers: { 'retry-after': '3600' }, body: { message: 'Too many requests: daily limit reached.' } });
    const { out } = await enrichWithProgress({ contacts: expected.map((r) => r.input) });
    expect(seen.middle).toBe(1);
    expect(out.results[101].error).toMatch(/still rate limited after 1 attempts.*daily limit reached.*retry after 3600 s/);
    expect(out.matched).toBe(expected.filter((r, i) => r.person && !(i >= 101 && i <= 201)).length);
  });

  it('sends a repeated identifier once, and answers from the cache next time (refresh: true pays again)', async () => {
    const sam = 'sam.rivera@acme.example';
    const first = await h.ok('sales_enrich_contacts', {
      contacts: [{ email: sam }, { email: sam.toUpperCase() }, { email: 'ghost@nowhere.example' }, { linkedInUrl: 'https://www.linkedin.com/in/priya-patel-sbx' }],
    });
    expect(requests()[0]!.body).toEqual([{ email: sam }, { email: 'ghost@nowhere.example' }, { linkedInUrl: 'https://www.linkedin.com/in/priya-patel-sbx' }]);
    expect(first.results.map((r: any) => [r.status, r.credits_used, r.cached])).toEqual([
      ['matched', 2, undefined],
      ['matched', 0, undefined],
      ['no_match', 0, undefined],
      ['matched', 1, undefined],
    ]);
    expect(first.credits_used).toBe(3);

    const second = await h.ok('sales_enrich_contacts', { contacts: [{ email: sam }, { email: 'ghost@nowhere.example' }, { email: 'dana.ortiz@contoso.example' }] });
    expect(requests()).toHaveLength(2);
    expect(requests()[1]!.body).toEqual([{ email: 'ghost@nowhere.example' }, { email: 'dana.ortiz@contoso.example' }]);
    expect(second.results[0]).toEqual({ status: 'matched', contact: first.results[0].contact, cached: true, credits_used: 0 });
    expect(second.credits_used).toBe(2);

    expect(await h.ok('sales_find_contact', { email: sam })).toMatchObject({ cached: true, credits_used: 0 });
    expect(requests()).toHaveLength(2);

    const fresh = await h.ok('sales_enrich_contacts', { contacts: [{ email: sam }], refresh: true });
    expect(requests()).toHaveLength(3);
    expect(fresh.results[0]).toMatchObject({ status: 'matched', credits_used: 2 });
    expect(fresh.results[0].cached).toBeUndefined();
  });

  it('fails the whole call on a refused key (401) instead of repeating it for every batch', async () => {
    h.sandbox.servers.sales.once('POST /person/bulk', { status: 401, body: { message: 'Unauthorized: the API key is not valid.' } });
    const text = await h.fails('sales_enrich_contacts', { contacts: [{ email: 'sam.rivera@acme.example' }] });
    expect(text).toMatch(/answered 401 to POST \/person\/bulk/);
    expect(text).toMatch(/reconnect the account/);
  });

  it('refuses unknown fields in a record by name, sending nothing', async () => {
    expect(await h.fails('sales_enrich_contacts', { contacts: [{ email: 'a@b.example', linkedin: 'x' }] })).toMatch(/contacts\.0: unknown field\(s\) "linkedin"/);
    expect(await h.fails('sales_enrich_contacts', { contacts: [] })).toMatch(/contacts/);
    expect(requests()).toEqual([]);
  });
});

describe('sales_enrich_companies', () => {
  it('enriches by domain and name, one result per record in order', async () => {
    const out = await h.ok('sales_enrich_companies', {
      companies: [{ domain: 'ACME.example' }, { name: 'Fabrikam' }, { domain: 'nowhere.example' }, { domain: 'not a domain' }],
    });
    const req = requests('POST /company/bulk');
    expect(req).toHaveLength(1);
    expect(req[0]!.headers.api_key).toBe(SANDBOX_API_KEYS.sales);
    expect(req[0]!.body).toEqual([{ domain: 'acme.example' }, { name: 'Fabrikam' }, { domain: 'nowhere.example' }]);
    expect(out.results.map((r: any) => [r.status, r.company?.name, r.credits_used])).toEqual([
      ['matched', 'Acme Corporation', 1],
      ['matched', 'Fabrikam', 1],
      ['no_match', undefined, 0],
      ['error', undefined, 0],
    ]);
    expect(out.results[3].error).toMatch(/not a domain/);
    expect(out).toMatchObject({ matched: 2, no_match: 1, errors: 1, credits_used: 2, credits_remaining: 998 });
  });

  it("counts the credits each record's body reports, not the x-credits-used header", async () => {
    const acme = { name: 'Acme Corporation', domain: 'acme.example' };
    h.sandbox.servers.sales.once('POST /company/bulk', {
      body: { data: [{ index: 0, data: acme, creditsCharged: 1 }, { index: 1, data: null, creditsCharged: 0 }] },
      headers: { 'x-credits-used': '5', 'x-credits-remaining': '70' },
    });
    const out = await h.ok('sales_enrich_companies', { companies: [{ domain: 'acme.example' }, { name: 'Umbrella' }] });
    expect(out.results.map((r: any) => [r.status, r.credits_used])).toEqual([
      ['matched', 1],
      ['no_match', 0],
    ]);
    expect(out).toMatchObject({ credits_used: 1, credits_remaining: 70 });
  });

  it('reports records the provider refuses (out of credits) as errors, and the batch goes on', async () => {
    credits().used = credits().total - 1;
    const out = await h.ok('sales_enrich_companies', { companies: [{ domain: 'acme.example' }, { domain: 'globex.example' }, { name: 'Umbrella' }] });
    expect(out.results.map((r: any) => r.status)).toEqual(['matched', 'error', 'no_match']);
    expect(out.results[1].error).toMatch(/INSUFFICIENT_CREDITS: Not enough credits/);
    expect(out.credits_remaining).toBe(0);
  });

  it('turns a failed batch (500) into per-record errors rather than failing the call', async () => {
    h.sandbox.servers.sales.once('POST /company/bulk', { status: 500, body: { message: 'bulk worker crashed' } });
    const out = await h.ok('sales_enrich_companies', { companies: [{ domain: 'acme.example' }, { name: 'Globex' }] });
    expect(out.errors).toBe(2);
    for (const r of out.results) expect(r.error).toMatch(/Not looked up: .*answered 500 to POST \/company\/bulk \(bulk worker crashed\)/);
    expect(requests()).toHaveLength(1);
  });
});

describe('the v2 dialect', () => {
  it('enrich_contacts sends POST /v2/person batches of at most 100 with contactIds, and maps the keyed answer back in order', async () => {
    const expected = rows(150);
    const { out, events } = await enrichWithProgress({ contacts: expected.map((r) => r.input), account: 'v2' });
    checkRows(out, expected);
    const sent = requests('POST /v2/person');
    expect(sent.map((r) => r.body.contacts.length).sort()).toEqual([100, 48]);
    const all = sent.flatMap((r) => r.body.contacts);
    for (const r of sent) {
      expect(r.headers.api_key).toBe(SANDBOX_API_KEYS.sales);
      expect(r.body.contacts.map((c: any) => c.contactId)).toEqual(r.body.contacts.map((_: unknown, i: number) => String(i)));
    }
    // Records 0, 5 and 10 name people 0, 1 and 2 by email, LinkedIn URL, and name + company.
    const [byEmail, byUrl, byName] = people();
    expect(all).toContainEqual({ contactId: expect.any(String), email: byEmail!.emailAddresses[0]!.email });
    expect(all).toContainEqual({ contactId: expect.any(String), linkedinUrl: byUrl!.socialLinks.linkedin });
    expect(all).toContainEqual({ contactId: expect.any(String), fullName: `${byName!.firstName} ${byName!.lastName}`, companies: [{ name: byName!.company.name, isCurrent: true }] });
    expect(all.filter((c: any) => Object.keys(c).some((k) => !['contactId', 'email', 'linkedinUrl', 'fullName', 'companies'].includes(k)))).toEqual([]);
    expect(out.credits_used).toBe(expected.filter((r) => r.person).length);
    expect(events.at(-1)).toMatchObject({ progress: 150, total: 150 });

    const spec = await h.ok('sales_find_contact', { email: expected[0]!.person!.emailAddresses[0]!.email });
    expect(out.results[0].contact).toEqual(spec.contact);
  });

  it('enrich_companies sends POST /v2/company with ids and maps no-matches as empty results', async () => {
    const out = await h.ok('sales_enrich_companies', { companies: [{ domain: 'initech.example' }, { name: 'Umbrella' }, { name: 'Northwind Traders' }], account: 'v2' });
    expect(requests('POST /v2/company')[0]!.body).toEqual({ companies: [{ id: '0', domain: 'initech.example' }, { id: '1', name: 'Umbrella' }, { id: '2', name: 'Northwind Traders' }] });
    expect(out.results.map((r: any) => [r.status, r.company?.name, r.credits_used])).toEqual([
      ['matched', 'Initech', 1],
      ['no_match', undefined, 0],
      ['matched', 'Northwind Traders', 1],
    ]);
    expect(out.results[0].company).toMatchObject({ revenue: '$1M - $10M', technologies: ['Jira', 'AWS'], size: '11-50' });
    // Read from each record's isCreditCharged: Lusha sends no credit headers and no balance.
    expect(out.credits_used).toBe(2);
    expect(out.credits_remaining).toBeUndefined();
    expect(credits().used).toBe(2);
  });

  it("takes a response's billing.creditsCharged over what the records say", async () => {
    h.sandbox.servers.sales.once('POST /v2/company', {
      body: { companies: { '0': { data: { name: 'Initech', domain: 'initech.example' }, isCreditCharged: true } }, billing: { resultsReturned: 1, creditsCharged: 4 } },
    });
    const out = await h.ok('sales_enrich_companies', { companies: [{ domain: 'initech.example' }], account: 'v2' });
    expect(out).toMatchObject({ matched: 1, credits_used: 4 });
  });
});
