import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_API_KEYS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { client, http } from './http.js';

let sandbox: Sandbox;
let api: ReturnType<typeof client>;
let base: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  base = sandbox.baseUrls.sales;
  api = client(base, { api_key: SANDBOX_API_KEYS.sales });
});
afterAll(() => sandbox.close());

const state = () => sandbox.states.sales;
const remaining = () => state().credits.total - state().credits.used;

describe('auth and key check', () => {
  it('refuses a missing or unknown api_key with 401 {message}', async () => {
    const none = await http('POST', `${base}/person`, { body: { email: 'sam.rivera@acme.example' } });
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ message: expect.any(String) });
    const bad = await http('GET', `${base}/account/usage`, { headers: { api_key: 'nope' } });
    expect(bad.status).toBe(401);
    const bearer = await http('GET', `${base}/account/usage`, { headers: { authorization: `Bearer ${SANDBOX_API_KEYS.sales}` } });
    expect(bearer.status).toBe(401);
  });

  it('GET /account/usage reports credits in its body and costs none', async () => {
    const before = remaining();
    const res = await api('GET', '/account/usage');
    expect(res.status).toBe(200);
    expect(res.body.usage.credits).toMatchObject({ total: 1000, used: expect.any(Number), remaining: before });
    expect(remaining()).toBe(before);
    // A path of Lusha's own: like Lusha, no credit headers.
    expect(res.headers['x-credits-remaining']).toBeUndefined();
  });
});

describe('every path of the spec answers with the right shape', () => {
  const rows: Array<{ path: string; body: unknown; check: (b: any) => void }> = [
    { path: '/person', body: { email: 'sam.rivera@acme.example' }, check: (b) => expect(b.data).toMatchObject({ fullName: 'Sam Rivera', jobTitle: 'VP Operations', company: { domain: 'acme.example' }, emailAddresses: [{ email: 'sam.rivera@acme.example', emailConfidence: 'A+' }] }) },
    { path: '/company', body: { domain: 'https://www.contoso.example/about' }, check: (b) => expect(b.data).toMatchObject({ name: 'Contoso', industry: 'Software', employees: { min: 501, max: 1000 }, technologies: expect.arrayContaining(['Vercel']) }) },
    { path: '/person/bulk', body: [{ email: 'mia.wong@northwind.example' }, { linkedInUrl: 'linkedin.com/in/nobody' }], check: (b) => expect(b.data.map((r: any) => r.data?.fullName ?? null)).toEqual(['Mia Wong', null]) },
    { path: '/company/bulk', body: { companies: [{ name: 'Globex' }, { domain: 'initech.example' }] }, check: (b) => expect(b.data.map((r: any) => r.data.name)).toEqual(['Globex', 'Initech']) },
  ];
  it.each(rows)('POST $path', async ({ path, body, check }) => {
    const res = await api('POST', path, { body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers['x-credits-used']).toMatch(/^\d+$/);
    expect(res.headers['x-credits-remaining']).toBe(String(remaining()));
    check(res.body);
  });
});

describe('lookups', () => {
  it('finds a person by email, LinkedIn URL, or name + company, and charges 1 or 2 credits', async () => {
    const byEmail = await api('POST', '/person', { body: { email: 'JORDAN.LEE@fabrikam.example' } });
    expect(byEmail.body.data.fullName).toBe('Jordan Lee');
    expect(byEmail.headers['x-credits-used']).toBe('2');
    const byLinkedIn = await api('POST', '/person', { body: { linkedInUrl: 'https://www.linkedin.com/in/priya-patel-sbx/' } });
    expect(byLinkedIn.body.data.fullName).toBe('Priya Patel');
    expect(byLinkedIn.headers['x-credits-used']).toBe('1');
    const byName = await api('POST', '/person', { body: { firstName: 'lena', lastName: 'Fischer', company: 'globex.example' } });
    expect(byName.body.data.jobTitle).toBe('Chief Technology Officer');
  });

  it('no match is 200 { data: null } and costs nothing', async () => {
    const before = remaining();
    const res = await api('POST', '/person', { body: { email: 'nobody@nowhere.example' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: null, message: 'No match found' });
    expect(res.headers['x-credits-used']).toBe('0');
    expect(remaining()).toBe(before);
    expect((await api('POST', '/company', { body: { name: 'Umbrella' } })).body.data).toBeNull();
  });

  it('refuses a lookup without identifying data', async () => {
    const res = await api('POST', '/person', { body: { firstName: 'Sam' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('email');
    expect((await api('POST', '/company', { body: {} })).status).toBe(400);
  });

  it('bulk returns one result per input, in order, and continues past misses and bad records', async () => {
    const before = remaining();
    const res = await api('POST', '/person/bulk', {
      body: { contacts: [{ id: 'a', email: 'dana.ortiz@contoso.example' }, { id: 'b', email: 'ghost@nowhere.example' }, { id: 'c', firstName: 'x' }, { id: 'd', firstName: 'Ravi', lastName: 'Kumar', company: 'Initech' }] },
    });
    expect(res.body.data).toHaveLength(4);
    expect(res.body.data.map((r: any) => r.requestId)).toEqual(['a', 'b', 'c', 'd']);
    expect(res.body.data[0].data.fullName).toBe('Dana Ortiz');
    expect(res.body.data[1]).toMatchObject({ index: 1, data: null, message: 'No match found' });
    expect(res.body.data[2]).toMatchObject({ index: 2, data: null, error: { code: 'INVALID_INPUT' } });
    expect(res.body.data[3].data.fullName).toBe('Ravi Kumar');
    expect(res.headers['x-credits-used']).toBe('3');
    expect(remaining()).toBe(before - 3);
  });

  it('refuses empty and oversized bulk calls', async () => {
    expect((await api('POST', '/company/bulk', { body: [] })).status).toBe(400);
    const many = Array.from({ length: 101 }, () => ({ domain: 'acme.example' }));
    expect((await api('POST', '/company/bulk', { body: many })).status).toBe(400);
  });

  it('answers 402 when credits run out', async () => {
    const saved = state().credits.used;
    state().credits.used = state().credits.total;
    const res = await api('POST', '/company', { body: { domain: 'acme.example' } });
    expect(res.status).toBe(402);
    expect(res.body.message).toMatch(/credits/i);
    const bulk = await api('POST', '/company/bulk', { body: [{ domain: 'acme.example' }] });
    expect(bulk.body.data[0].error.code).toBe('INSUFFICIENT_CREDITS');
    state().credits.used = saved;
  });

  it("sends credit headers on the specification's paths only; Lusha's paths say it in the body", async () => {
    const spec = await api('POST', '/company', { body: { domain: 'acme.example' } });
    expect(spec.headers).toMatchObject({ 'x-credits-used': '1', 'x-credits-remaining': String(remaining()) });
    const refused = await api('POST', '/company', { body: {} });
    expect(refused.headers).toMatchObject({ 'x-credits-used': '0', 'x-credits-remaining': String(remaining()) });
    const lusha = [
      await api('GET', '/v2/company?domain=acme.example'),
      await api('POST', '/v2/company', { body: { companies: [{ id: '1', domain: 'acme.example' }] } }),
      await api('POST', '/prospecting/company/search', { body: { filters: { companies: { include: { names: ['Acme Corporation'] } } } } }),
      await api('GET', '/v2/company?domain='),
    ];
    expect(lusha.map((r) => r.status)).toEqual([200, 200, 200, 400]);
    for (const r of lusha) expect(Object.keys(r.headers).filter((k) => k.startsWith('x-credits-'))).toEqual([]);
    expect(lusha[1]!.body.companies['1'].isCreditCharged).toBe(true);
    expect(lusha[2]!.body.billing).toEqual({ resultsReturned: 1, creditsCharged: 1 });
  });

  it('counts requests in x-ratelimit headers', async () => {
    const a = await api('GET', '/account/usage');
    const b = await api('GET', '/account/usage');
    expect(Number(b.headers['x-ratelimit-remaining'])).toBe(Number(a.headers['x-ratelimit-remaining']) - 1);
  });
});
