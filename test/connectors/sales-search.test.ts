import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_API_KEYS } from '../../src/sandbox/index.js';
import { startHarness, type Harness } from '../harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.store.accounts.add({ provider: 'sales', label: 'v2', meta: { dialect: 'v2' }, secret: { kind: 'api_key', apiKey: SANDBOX_API_KEYS.sales } });
});
afterAll(() => h.close());
beforeEach(() => {
  h.sandbox.servers.sales.reset();
  h.sandbox.states.sales.credits.used = 0;
});

const requests = () => h.sandbox.servers.sales.requests;
const state = () => h.sandbox.states.sales;
const LABELS = 'GET /prospecting/filters/companies/industries_labels';
const industryId = (name: string) => {
  const mains = [...new Set(state().companies.map((c) => c.industry))].sort();
  return mains.indexOf(name) + 1;
};

describe('sales_search_contacts', () => {
  it('pages through every match with an opaque cursor, sending the prospecting body', async () => {
    const engineers = state().people.filter((p) => p.jobTitle.toLowerCase().includes('engineer')).map((p) => p.fullName);
    expect(engineers.length).toBeGreaterThan(10);
    const first = await h.ok('sales_search_contacts', { jobTitles: ['Engineer'], limit: 10 });
    const req = requests()[0]!;
    expect(`${req.method} ${req.path}`).toBe('POST /prospecting/contact/search');
    expect(req.headers.api_key).toBe(SANDBOX_API_KEYS.sales);
    expect(req.body).toEqual({ pages: { page: 0, size: 10 }, filters: { contacts: { include: { jobTitles: ['Engineer'] } } } });
    expect(first.contacts).toHaveLength(10);
    expect(first.total).toBe(engineers.length);
    // Lusha bills the page in the body (billing.creditsCharged) and sends no balance.
    expect(first.credits_used).toBe(1);
    expect(state().credits.used).toBe(1);
    expect(first.credits_remaining).toBeUndefined();
    expect(first.next_cursor).toEqual(expect.any(String));
    expect(first.contacts[0]).toEqual({
      name: 'Ravi Kumar',
      jobTitle: 'Engineering Manager',
      company: 'Initech',
      companyDomain: 'initech.example',
      location: 'Toronto, Ontario, Canada',
      hasEmail: true,
      hasPhone: false,
    });

    const second = await h.ok('sales_search_contacts', { cursor: first.next_cursor });
    expect(requests()[1]!.body).toEqual({ pages: { page: 1, size: 10 }, filters: { contacts: { include: { jobTitles: ['Engineer'] } } } });
    expect(second.next_cursor).toBeUndefined();
    expect([...first.contacts, ...second.contacts].map((c: { name: string }) => c.name).sort()).toEqual([...engineers].sort());
    // The same criteria may be repeated with the cursor.
    await h.ok('sales_search_contacts', { jobTitles: ['Engineer'], cursor: first.next_cursor });
    expect(requests()[2]!.body.pages).toEqual({ page: 1, size: 10 });
  });

  it('filters by industry (resolved to ids), company size and location', async () => {
    const r = await h.ok('sales_search_contacts', { industries: ['software'], companySize: { min: 500 }, location: { country: 'United States' } });
    expect(requests().map((q) => `${q.method} ${q.path}`)).toEqual([LABELS, 'POST /prospecting/contact/search']);
    expect(requests()[1]!.body).toEqual({
      pages: { page: 0, size: 25 },
      filters: {
        contacts: { include: { locations: [{ country: 'United States' }] } },
        companies: { include: { sizes: [{ min: 500 }], mainIndustriesIds: [industryId('Software')] } },
      },
    });
    expect(r.contacts.length).toBeGreaterThan(0);
    expect(new Set(r.contacts.map((c: { company: string }) => c.company))).toEqual(new Set(['Contoso']));
  });

  it('takes a sub-industry, and names the known industries for an unknown one without searching', async () => {
    const r = await h.ok('sales_search_contacts', { industries: ['Apparel'] });
    expect(requests()[1]!.body.filters.companies.include).toEqual({ subIndustriesIds: [expect.any(Number)] });
    expect(new Set(r.contacts.map((c: { company: string }) => c.company))).toEqual(new Set(['Fabrikam']));
    const text = await h.fails('sales_search_contacts', { industries: ['Aerospace'] });
    expect(text).toMatch(/no industry named "Aerospace"; known industries: .*Software/);
    expect(requests().at(-1)!.path).toBe('/prospecting/filters/companies/industries_labels');
  });

  it.each([
    [{}, /at least one criterion/],
    [{ cursor: 'not-a-cursor' }, /"cursor" is not a next_cursor/],
    [{ companySize: { min: 100, max: 10 } }, /min" is above/],
    [{ location: {} }, /needs a country, state or city/],
    [{ jobTitles: ['CEO'], limit: 5 }, /limit/],
  ])('refuses %j and sends nothing', async (args, why) => {
    expect(await h.fails('sales_search_contacts', args)).toMatch(why);
    expect(requests()).toEqual([]);
  });

  it('refuses a cursor with other criteria', async () => {
    const first = await h.ok('sales_search_contacts', { jobTitles: ['Engineer'], limit: 10 });
    expect(await h.fails('sales_search_contacts', { jobTitles: ['Sales'], cursor: first.next_cursor })).toMatch(/belongs to a search with other criteria/);
    expect(requests()).toHaveLength(1);
  });

  it('reports the provider refusing the search', async () => {
    h.sandbox.servers.sales.once('POST /prospecting/contact/search', { status: 400, body: { error: { code: 400, message: 'filters.contacts.include.jobTitles is too long' } } });
    expect(await h.fails('sales_search_contacts', { jobTitles: ['CEO'] })).toMatch(/answered 400 to POST \/prospecting\/contact\/search \(400: filters\.contacts\.include\.jobTitles is too long\)/);
  });

  it('uses the same prospecting endpoint for a v2 account', async () => {
    await h.ok('sales_search_contacts', { jobTitles: ['CEO'], account: 'v2' });
    expect(requests()[0]!.path).toBe('/prospecting/contact/search');
  });
});

describe('what a search costs', () => {
  const answer = (billing?: { resultsReturned: number; creditsCharged: number }) => ({
    requestId: 'r-1',
    currentPage: 0,
    pageLength: 1,
    totalResults: 1,
    data: [{ id: 'c-1', name: 'Acme Corporation', domain: 'acme.example' }],
    ...(billing ? { billing } : {}),
  });

  it('is what the body says (billing.creditsCharged), whatever a header says', async () => {
    h.sandbox.servers.sales.once('POST /prospecting/company/search', { body: answer({ resultsReturned: 1, creditsCharged: 7 }), headers: { 'x-credits-used': '9' } });
    const r = await h.ok('sales_search_companies', { location: { city: 'Austin' } });
    expect(r).toMatchObject({ companies: [{ name: 'Acme Corporation' }], credits_used: 7 });
  });

  it('falls back to the x-credits headers only when the body has no billing', async () => {
    h.sandbox.servers.sales.once('POST /prospecting/company/search', { body: answer(), headers: { 'x-credits-used': '2', 'x-credits-remaining': '40' } });
    expect(await h.ok('sales_search_companies', { location: { city: 'Austin' } })).toMatchObject({ credits_used: 2, credits_remaining: 40 });
  });

  it('grows with the page: 1 credit per 25 results or part of it, none for an empty page', async () => {
    const wide = await h.ok('sales_search_contacts', { companySize: { min: 1 }, limit: 50 });
    expect(wide.contacts.length).toBeGreaterThan(25);
    expect(wide.credits_used).toBe(2);
    const none = await h.ok('sales_search_companies', { location: { country: 'Atlantis' } });
    expect(none).toMatchObject({ companies: [], total: 0, credits_used: 0 });
    expect(state().credits.used).toBe(2);
  });

  it('is refused when the credits cannot pay for it', async () => {
    state().credits.used = state().credits.total;
    expect(await h.fails('sales_search_contacts', { jobTitles: ['Engineer'] })).toMatch(/answered 402 to POST \/prospecting\/contact\/search .*Not enough credits/);
  });

  it('is not called free in the tool descriptions', async () => {
    const { tools } = await h.client.listTools();
    for (const name of ['sales_search_contacts', 'sales_search_companies']) {
      const description = tools.find((t) => t.name === name)!.description!;
      expect(description, name).not.toMatch(/\bfree\b/i);
      expect(description, name).toMatch(/costs credits/);
    }
  });
});

describe('sales_search_companies', () => {
  it('finds companies by industry and location, in the compact company shape', async () => {
    const r = await h.ok('sales_search_companies', { industries: ['Software'] });
    expect(requests()[1]!.body).toEqual({ pages: { page: 0, size: 25 }, filters: { companies: { include: { mainIndustriesIds: [industryId('Software')] } } } });
    expect(r.companies.map((c: { name: string }) => c.name)).toEqual(['Contoso', 'Initech']);
    expect(r.companies[0]).toEqual({ name: 'Contoso', domain: 'contoso.example', size: '501-1000', industry: 'Software / Enterprise Software', location: 'Seattle, Washington, United States' });
    expect(r).toMatchObject({ total: 2, credits_used: 1 });
    expect(r.next_cursor).toBeUndefined();

    const de = await h.ok('sales_search_companies', { location: { country: 'Germany' }, companySize: { min: 1000, max: 20000 } });
    expect(requests()[2]!.body.filters).toEqual({ companies: { include: { sizes: [{ min: 1000, max: 20000 }], locations: [{ country: 'Germany' }] } } });
    expect(de.companies.map((c: { name: string }) => c.name)).toEqual(['Globex']);
  });

  it('reports a provider failure', async () => {
    h.sandbox.servers.sales.once('POST /prospecting/company/search', { status: 500, body: { error: { code: 500, message: 'search index unavailable' } } });
    const text = await h.fails('sales_search_companies', { location: { city: 'Austin' } });
    expect(text).toMatch(/answered 500 to POST \/prospecting\/company\/search .*search index unavailable/);
    expect(requests()).toHaveLength(1);
  });

  it('takes no job titles', async () => {
    expect(await h.fails('sales_search_companies', { jobTitles: ['CEO'] })).toMatch(/unknown field\(s\) "jobTitles"/);
  });
});
