import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_API_KEYS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { client, http } from '../sandbox/http.js';

// The v2 and prospecting contract of the sales sandbox, which the connector's tests rely on.
let sandbox: Sandbox;
let api: ReturnType<typeof client>;
let base: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  base = sandbox.baseUrls.sales;
  api = client(base, { api_key: SANDBOX_API_KEYS.sales });
});
afterAll(() => sandbox.close());

const remaining = () => sandbox.states.sales.credits.total - sandbox.states.sales.credits.used;

describe('v2 person and company', () => {
  it('GET /v2/person answers { contact: { data, isCreditCharged }, company } and charges 1', async () => {
    const before = remaining();
    const res = await api('GET', '/v2/person?linkedinUrl=https://www.linkedin.com/in/sam-rivera-sbx');
    expect(res.status).toBe(200);
    expect(res.body.contact).toMatchObject({ isCreditCharged: true, data: { fullName: 'Sam Rivera', jobTitle: { title: 'VP Operations' }, companyId: 'sbx-company-0001' } });
    expect(res.body.company).toMatchObject({ domain: 'acme.example', mainIndustry: 'Manufacturing', revenueRange: [50e6, 100e6] });
    // As at Lusha, the charge is in the body only.
    expect(res.headers['x-credits-used']).toBeUndefined();
    expect(res.headers['x-credits-remaining']).toBeUndefined();
    expect(remaining()).toBe(before - 1);
  });

  it('a v2 no match is EMPTY_DATA: in the contact for a person, a 404 for a company', async () => {
    const person = await api('GET', '/v2/person?email=ghost@nowhere.example');
    expect(person.status).toBe(200);
    expect(person.body.contact).toEqual({ data: null, error: { code: 404, name: 'EMPTY_DATA', message: expect.any(String) }, isCreditCharged: false });
    const company = await api('GET', '/v2/company?company=Umbrella');
    expect(company.status).toBe(404);
    expect(company.body.error.name).toBe('EMPTY_DATA');
  });

  it('v2 errors are { error: { code, message } }, the spec paths keep { message }', async () => {
    const bad = await api('GET', '/v2/person?firstName=Sam');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { code: 400, message: expect.stringContaining('linkedinUrl') } });
    const unauth = await http('GET', `${base}/v2/company?domain=acme.example`);
    expect(unauth.body).toEqual({ error: { code: 401, message: expect.any(String) } });
    expect((await http('POST', `${base}/person`, { body: { email: 'a@b.example' } })).body).toEqual({ message: expect.any(String) });
  });

  it('POST /v2/person answers a map keyed by contactId, with the companies beside it', async () => {
    const before = remaining();
    const res = await api('POST', '/v2/person', {
      body: {
        contacts: [
          { contactId: 'a', email: 'dana.ortiz@contoso.example' },
          { contactId: 'b', fullName: 'Mia Wong', companies: [{ domain: 'northwind.example', isCurrent: true }] },
          { contactId: 'c', email: 'ghost@nowhere.example' },
          { contactId: 'd', fullName: 'Mia Wong' },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.contacts)).toEqual(['a', 'b', 'c', 'd']);
    expect(res.body.contacts.a.data.fullName).toBe('Dana Ortiz');
    expect(res.body.contacts.b.data.fullName).toBe('Mia Wong');
    expect(res.body.contacts.c.error.name).toBe('EMPTY_DATA');
    expect(res.body.contacts.d.error.name).toBe('INVALID_INPUT');
    expect(Object.keys(res.body.companies).sort()).toEqual(['sbx-company-0003', 'sbx-company-0004']);
    expect(Object.values(res.body.contacts).map((c: any) => c.isCreditCharged)).toEqual([true, true, false, false]);
    expect(res.headers['x-credits-used']).toBeUndefined();
    expect(remaining()).toBe(before - 2);
  });

  it('refuses bulk calls without unique ids or with more than 100 records', async () => {
    expect((await api('POST', '/v2/person', { body: { contacts: [{ email: 'a@b.example' }] } })).status).toBe(400);
    expect((await api('POST', '/v2/company', { body: { companies: [{ id: '1', domain: 'a.example' }, { id: '1', domain: 'b.example' }] } })).status).toBe(400);
    const many = Array.from({ length: 101 }, (_, i) => ({ id: String(i), domain: 'acme.example' }));
    expect((await api('POST', '/v2/company', { body: { companies: many } })).status).toBe(400);
  });
});

describe('prospecting', () => {
  it('lists industry labels with sub-industries', async () => {
    const res = await api('GET', '/prospecting/filters/companies/industries_labels');
    expect(res.body).toContainEqual({ id: expect.any(Number), value: 'Software', subIndustries: expect.arrayContaining([{ id: expect.any(Number), value: 'IT Services' }]) });
  });

  it('searches contacts by page, with previews only, and bills the page in the body', async () => {
    const before = remaining();
    const res = await api('POST', '/prospecting/contact/search', { body: { pages: { page: 0, size: 10 }, filters: { contacts: { include: { jobTitles: ['chief'] } } } } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ requestId: expect.any(String), currentPage: 0, totalResults: 3, billing: { resultsReturned: 3, creditsCharged: 1 } });
    expect(res.body.data[0]).toEqual(expect.objectContaining({ contactId: expect.any(String), name: 'Dana Ortiz', hasEmails: true, hasPhones: true }));
    expect(res.body.data[0].emailAddresses).toBeUndefined();
    expect(res.headers['x-credits-used']).toBeUndefined();
    expect(res.headers['x-credits-remaining']).toBeUndefined();
    expect(remaining()).toBe(before - 1);
  });

  it('charges 1 credit per 25 results or part of it, nothing for an empty page or the filter labels', async () => {
    const before = remaining();
    const all = await api('POST', '/prospecting/company/search', { body: { pages: { page: 0, size: 50 }, filters: { companies: { include: { sizes: [{ min: 1 }] } } } } });
    expect(all.body.billing).toEqual({ resultsReturned: all.body.data.length, creditsCharged: Math.ceil(all.body.data.length / 25) });
    const people = await api('POST', '/prospecting/contact/search', { body: { pages: { page: 0, size: 50 }, filters: { companies: { include: { sizes: [{ min: 1 }] } } } } });
    expect(people.body.data.length).toBeGreaterThan(25);
    expect(people.body.billing).toEqual({ resultsReturned: people.body.data.length, creditsCharged: 2 });
    const none = await api('POST', '/prospecting/company/search', { body: { filters: { companies: { include: { names: ['Umbrella'] } } } } });
    expect(none.body).toMatchObject({ totalResults: 0, data: [], billing: { resultsReturned: 0, creditsCharged: 0 } });
    await api('GET', '/prospecting/filters/companies/industries_labels');
    expect(remaining()).toBe(before - all.body.billing.creditsCharged - 2);
  });

  it('refuses a page the credits cannot pay with 402', async () => {
    const saved = sandbox.states.sales.credits.used;
    sandbox.states.sales.credits.used = sandbox.states.sales.credits.total;
    const res = await api('POST', '/prospecting/contact/search', { body: { filters: { contacts: { include: { jobTitles: ['chief'] } } } } });
    sandbox.states.sales.credits.used = saved;
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ error: { code: 402, message: expect.stringMatching(/Not enough credits/) } });
  });

  it('refuses unknown filters, no filter, and page sizes outside 10-50', async () => {
    const search = (body: unknown) => api('POST', '/prospecting/contact/search', { body });
    expect((await search({ filters: { contacts: { include: { titles: ['CEO'] } } } })).body.error.message).toMatch(/Unknown filter/);
    expect((await search({ filters: {} })).status).toBe(400);
    expect((await search({ pages: { page: 0, size: 5 }, filters: { contacts: { include: { jobTitles: ['CEO'] } } } })).status).toBe(400);
    expect((await api('POST', '/prospecting/company/search', { body: { filters: { contacts: { include: { jobTitles: ['CEO'] } } } } })).status).toBe(400);
  });
});
