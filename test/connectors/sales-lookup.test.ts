import { connect } from 'node:net';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dialectOf } from '../../src/connectors/sales/dialect.js';
import { SANDBOX_API_KEYS } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/index.js';
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
afterEach(() => {
  delete h.deps.salesCacheDays;
});

const requests = () => h.sandbox.servers.sales.requests;
const only = () => {
  expect(requests()).toHaveLength(1);
  return requests()[0]!;
};
const credits = () => h.sandbox.states.sales.credits;

const JORDAN = {
  name: 'Jordan Lee',
  jobTitle: 'Procurement Lead',
  company: 'Fabrikam',
  companyDomain: 'fabrikam.example',
  emails: ['jordan.lee@fabrikam.example', 'jordan.lee.home@mail.example'],
  phones: ['+1 415 555 0142 (mobile)'],
  location: 'San Francisco, California, United States',
  social: { linkedin: 'https://www.linkedin.com/in/jordan-lee-sbx' },
  confidence: 'A+',
};
const CONTOSO = {
  name: 'Contoso',
  domain: 'contoso.example',
  size: '501-1000',
  industry: 'Software / Enterprise Software',
  location: 'Seattle, Washington, United States',
  revenue: '$100M - $250M',
  technologies: ['Microsoft 365', 'GitHub', 'Vercel', 'Stripe'],
  social: { linkedin: 'https://www.linkedin.com/company/contoso', twitter: 'https://twitter.com/contoso' },
};

describe('tools/list', () => {
  it('lists the six tools, compact, each saying the connector is beta', async () => {
    const { tools } = await h.client.listTools();
    const mine = tools.filter((t) => /^sales_(find|enrich|search)_/.test(t.name));
    expect(mine.map((t) => t.name).sort()).toEqual(
      ['sales_enrich_companies', 'sales_enrich_contacts', 'sales_find_company', 'sales_find_contact', 'sales_search_companies', 'sales_search_contacts'],
    );
    for (const t of mine) {
      expect(t.description!.length, t.name).toBeLessThanOrEqual(300);
      expect(t.description, t.name).toMatch(/\bBeta\b/);
      expect(t.annotations, t.name).toEqual({ readOnlyHint: true });
      expect(countTokens(JSON.stringify(t.outputSchema)), `${t.name} output schema`).toBeLessThanOrEqual(330);
    }
  });
});

describe('sales_find_contact', () => {
  it('finds a person by email (normalised), with the key in the api_key header and the spec body', async () => {
    const r = await h.ok('sales_find_contact', { email: '  Jordan.Lee@FABRIKAM.example ' });
    const req = only();
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/person');
    expect(req.headers.api_key).toBe(SANDBOX_API_KEYS.sales);
    expect(req.body).toEqual({ email: 'jordan.lee@fabrikam.example' });
    expect(r).toEqual({ status: 'matched', contact: JORDAN, cached: false, credits_used: 2, credits_remaining: 998 });
  });

  it('finds by LinkedIn URL and by first name + last name + company', async () => {
    const byUrl = await h.ok('sales_find_contact', { linkedInUrl: 'linkedin.com/in/priya-patel-sbx/' });
    expect(requests()[0]!.body).toEqual({ linkedInUrl: 'https://www.linkedin.com/in/priya-patel-sbx' });
    expect(byUrl.contact).toMatchObject({ name: 'Priya Patel', phones: [] });
    expect(byUrl.credits_used).toBe(1);
    const byName = await h.ok('sales_find_contact', { firstName: 'Lena', lastName: 'Fischer', company: 'globex.example' });
    expect(requests()[1]!.body).toEqual({ firstName: 'Lena', lastName: 'Fischer', company: 'globex.example' });
    expect(byName.contact).toMatchObject({ name: 'Lena Fischer', jobTitle: 'Chief Technology Officer', company: 'Globex', location: 'Berlin, Germany' });
  });

  it('answers no match as an empty result, not an error, at no cost', async () => {
    const r = await h.ok('sales_find_contact', { email: 'nobody@nowhere.example' });
    expect(r).toEqual({ status: 'no_match', cached: false, credits_used: 0, credits_remaining: 1000 });
  });

  it.each([
    [{}, /No identifying data/],
    [{ firstName: 'Sam' }, /add lastName and company/],
    [{ firstName: 'Sam', lastName: 'Rivera' }, /add company/],
    [{ email: 'sam.rivera@acme.example', linkedInUrl: 'https://www.linkedin.com/in/sam-rivera-sbx' }, /mixes combinations/],
    [{ email: 'sam.rivera@acme.example', firstName: 'Sam', lastName: 'Rivera', company: 'Acme' }, /mixes combinations/],
    [{ email: 'not-an-email' }, /not an email address/],
    [{ linkedInUrl: 'https://example.com/in/sam' }, /LinkedIn profile URL/],
    [{ email: '   ' }, /No identifying data/],
  ])('takes exactly one identifying combination: %j is refused and nothing is sent', async (args, why) => {
    const text = await h.fails('sales_find_contact', args);
    expect(text).toMatch(why);
    expect(text).toContain('email; or linkedInUrl; or firstName + lastName + company');
    expect(requests()).toEqual([]);
  });

  it('reports the provider refusing for lack of credits (402)', async () => {
    credits().used = credits().total;
    const text = await h.fails('sales_find_contact', { email: 'sam.rivera@acme.example' });
    expect(text).toMatch(/answered 402 to POST \/person/);
    expect(text).toMatch(/Not enough credits/);
  });
});

describe('sales_find_company', () => {
  it('finds a company by domain (normalised) and by name', async () => {
    const r = await h.ok('sales_find_company', { domain: 'https://www.Contoso.example/about' });
    expect(only()).toMatchObject({ method: 'POST', path: '/company', body: { domain: 'contoso.example' } });
    expect(requests()[0]!.headers.api_key).toBe(SANDBOX_API_KEYS.sales);
    expect(r).toEqual({ status: 'matched', company: CONTOSO, cached: false, credits_used: 1, credits_remaining: 999 });
    const byName = await h.ok('sales_find_company', { name: 'Globex' });
    expect(requests()[1]!.body).toEqual({ name: 'Globex' });
    expect(byName.company).toMatchObject({ name: 'Globex', size: '5001-10000', location: 'Berlin, Germany' });
  });

  it('answers no match as an empty result', async () => {
    expect(await h.ok('sales_find_company', { name: 'Umbrella' })).toEqual({ status: 'no_match', cached: false, credits_used: 0, credits_remaining: 1000 });
  });

  it.each([
    [{}, /"domain" \(like acme\.com\) or "name"/],
    [{ domain: 'acme.example', name: 'Acme' }, /not both/],
    [{ domain: 'not a domain' }, /not a domain/],
  ])('refuses %j and sends nothing', async (args, why) => {
    expect(await h.fails('sales_find_company', args)).toMatch(why);
    expect(requests()).toEqual([]);
  });

  it('reports a provider failure once: a POST is not sent twice on a 500', async () => {
    h.sandbox.servers.sales.once('POST /company', { status: 500, body: { message: 'database unavailable' } });
    const text = await h.fails('sales_find_company', { domain: 'acme.example' });
    expect(text).toMatch(/answered 500 to POST \/company \(database unavailable\)/);
    expect(text).toMatch(/retry later/);
    expect(requests()).toHaveLength(1);
  });
});

describe('the lookup cache', () => {
  it('answers a repeat without a second paid call, and refresh: true pays again', async () => {
    const first = await h.ok('sales_find_contact', { email: 'jordan.lee@fabrikam.example' });
    expect(first).toMatchObject({ cached: false, credits_used: 2 });
    const again = await h.ok('sales_find_contact', { email: 'JORDAN.LEE@fabrikam.EXAMPLE' });
    expect(again).toEqual({ status: 'matched', contact: JORDAN, cached: true, credits_used: 0 });
    expect(requests()).toHaveLength(1);
    expect(credits().used).toBe(2);
    const fresh = await h.ok('sales_find_contact', { email: 'jordan.lee@fabrikam.example', refresh: true });
    expect(fresh).toMatchObject({ status: 'matched', cached: false, credits_used: 2 });
    expect(requests()).toHaveLength(2);
    expect(credits().used).toBe(4);
  });

  it('canonicalises LinkedIn URLs and company domains', async () => {
    await h.ok('sales_find_contact', { linkedInUrl: 'https://www.linkedin.com/in/priya-patel-sbx' });
    expect((await h.ok('sales_find_contact', { linkedInUrl: 'http://uk.linkedin.com/in/Priya-Patel-sbx/?trk=people' })).cached).toBe(true);
    await h.ok('sales_find_company', { domain: 'acme.example' });
    expect((await h.ok('sales_find_company', { domain: 'HTTPS://WWW.ACME.EXAMPLE/' })).cached).toBe(true);
    expect(requests()).toHaveLength(2);
  });

  it('does not cache a no-match', async () => {
    await h.ok('sales_find_company', { name: 'Umbrella' });
    expect((await h.ok('sales_find_company', { name: 'Umbrella' })).cached).toBe(false);
    expect(requests()).toHaveLength(2);
  });

  it('is kept per account', async () => {
    await h.ok('sales_find_contact', { email: 'sam.rivera@acme.example' });
    const other = await h.ok('sales_find_contact', { email: 'sam.rivera@acme.example', account: 'v2' });
    expect(other.cached).toBe(false);
    expect(requests().map((r) => `${r.method} ${r.path}`)).toEqual(['POST /person', 'GET /v2/person']);
  });

  it('expires after the configured number of days (0: every lookup is paid)', async () => {
    await h.ok('sales_find_company', { domain: 'acme.example' });
    h.deps.salesCacheDays = 0;
    expect((await h.ok('sales_find_company', { domain: 'acme.example' })).cached).toBe(false);
    expect(requests()).toHaveLength(2);
  });

  it('lives in SQLite, so it survives a restart', async () => {
    await h.ok('sales_find_company', { domain: 'initech.example' });
    const reopened = await openStore({ dataDir: h.dataDir, secretKey: 'test-secret-key' });
    try {
      const account = (await reopened.accounts.resolve('sales')).account;
      const rows = await reopened.salesCache.get(account.id, 'company', ['domain:initech.example'], '1970-01-01T00:00:00.000Z');
      expect(JSON.parse(rows.get('domain:initech.example')!)).toMatchObject({ name: 'Initech', domain: 'initech.example' });
    } finally {
      await reopened.close();
    }
  });
});

describe('the v2 dialect (account meta dialect: v2)', () => {
  it('find_contact sends GET /v2/person with query parameters (linkedinUrl) and returns the same person', async () => {
    const spec = await h.ok('sales_find_contact', { email: 'jordan.lee@fabrikam.example' });
    const r = await h.ok('sales_find_contact', { linkedInUrl: 'https://www.linkedin.com/in/jordan-lee-sbx/', account: 'v2' });
    const req = requests()[1]!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/v2/person');
    expect(req.headers.api_key).toBe(SANDBOX_API_KEYS.sales);
    expect(Object.fromEntries(req.query)).toEqual({ linkedinUrl: 'https://www.linkedin.com/in/jordan-lee-sbx' });
    expect(req.rawBody.length).toBe(0);
    // Lusha says what it charged in the body (isCreditCharged) and sends no balance.
    expect(r).toEqual({ status: 'matched', contact: spec.contact, cached: false, credits_used: 1 });
    expect(credits().used).toBe(3); // 2 for the spec lookup, 1 for this one
  });

  it('find_contact by name sends companyDomain or companyName, and a no-match is empty', async () => {
    await h.ok('sales_find_contact', { firstName: 'Mia', lastName: 'Wong', company: 'northwind.example', account: 'v2' });
    await h.ok('sales_find_contact', { firstName: 'Mia', lastName: 'Wong', company: 'Northwind Traders', account: 'v2' });
    expect(Object.fromEntries(requests()[0]!.query)).toEqual({ firstName: 'Mia', lastName: 'Wong', companyDomain: 'northwind.example' });
    expect(Object.fromEntries(requests()[1]!.query)).toEqual({ firstName: 'Mia', lastName: 'Wong', companyName: 'Northwind Traders' });
    expect(await h.ok('sales_find_contact', { email: 'ghost@nowhere.example', account: 'v2' })).toMatchObject({ status: 'no_match', credits_used: 0 });
  });

  it('find_company sends GET /v2/company, maps to the same company, and takes its 404 EMPTY_DATA as no match', async () => {
    const spec = await h.ok('sales_find_company', { domain: 'contoso.example' });
    const r = await h.ok('sales_find_company', { domain: 'contoso.example', account: 'v2' });
    expect(Object.fromEntries(requests()[1]!.query)).toEqual({ domain: 'contoso.example' });
    expect(r.company).toEqual(spec.company);
    await h.ok('sales_find_company', { name: 'Globex', account: 'v2' });
    expect(Object.fromEntries(requests()[2]!.query)).toEqual({ company: 'Globex' });
    expect(await h.ok('sales_find_company', { name: 'Umbrella', account: 'v2' })).toEqual({ status: 'no_match', cached: false, credits_used: 0 });
  });

  it('a 404 that is not EMPTY_DATA is an error', async () => {
    h.sandbox.servers.sales.once('GET /v2/company', { status: 404, body: { error: { code: 404, message: 'Cannot GET /v2/company' } } });
    expect(await h.fails('sales_find_company', { domain: 'acme.example', account: 'v2' })).toMatch(/answered 404 to GET \/v2\/company.*Cannot GET/);
  });
});

describe('which dialect an account speaks', () => {
  const account = (meta: Record<string, string>) => ({ meta }) as Parameters<typeof dialectOf>[0];

  it('is the chosen one, else v2 at api.lusha.com and spec anywhere else', () => {
    expect(dialectOf(account({}), new URL('https://api.lusha.com'))).toBe('v2');
    expect(dialectOf(account({}), new URL('https://API.Lusha.com/'))).toBe('v2');
    expect(dialectOf(account({}), new URL('http://127.0.0.1:8080'))).toBe('spec');
    expect(dialectOf(account({}), new URL('https://api.lusha.com.example'))).toBe('spec');
    expect(dialectOf(account({ dialect: 'spec' }), new URL('https://api.lusha.com'))).toBe('spec');
    expect(dialectOf(account({ dialect: 'v2' }), new URL('http://127.0.0.1:8080'))).toBe('v2');
  });

  /** Connections for any host go to the sandbox, so the base URL can be Lusha's own without leaving the machine. */
  function toSandbox(): Agent {
    const port = Number(new URL(h.sandbox.baseUrls.sales).port);
    return new Agent({
      connect: (_options, done) => {
        const socket = connect({ host: '127.0.0.1', port });
        socket.once('connect', () => done(null, socket));
        socket.once('error', (error) => done(error, null));
      },
    });
  }

  async function atLusha(run: () => Promise<void>) {
    const saved = { baseUrls: h.deps.baseUrls, dispatcher: h.deps.dispatcher };
    const agent = toSandbox();
    h.deps.baseUrls = { ...saved.baseUrls, sales: 'https://api.lusha.com' };
    h.deps.dispatcher = agent;
    try {
      await run();
    } finally {
      Object.assign(h.deps, saved);
      await agent.close();
    }
  }

  it('an account with no dialect speaks v2 at api.lusha.com, and --dialect spec keeps the specification there', async () => {
    await h.store.accounts.add({ provider: 'sales', label: 'at-lusha', secret: { kind: 'api_key', apiKey: SANDBOX_API_KEYS.sales } });
    await h.store.accounts.add({ provider: 'sales', label: 'spec-at-lusha', meta: { dialect: 'spec' }, secret: { kind: 'api_key', apiKey: SANDBOX_API_KEYS.sales } });
    await atLusha(async () => {
      const v2 = await h.ok('sales_find_contact', { email: 'jordan.lee@fabrikam.example', account: 'at-lusha' });
      const spec = await h.ok('sales_find_company', { domain: 'contoso.example', account: 'spec-at-lusha' });
      expect(v2).toEqual({ status: 'matched', contact: JORDAN, cached: false, credits_used: 1 });
      expect(spec).toEqual({ status: 'matched', company: CONTOSO, cached: false, credits_used: 1, credits_remaining: 998 });
    });
    expect(requests().map((r) => `${r.method} ${r.path} ${r.headers.host}`)).toEqual(['GET /v2/person api.lusha.com', 'POST /company api.lusha.com']);
    // The same account without a dialect speaks the specification's paths anywhere else (the sandbox).
    await h.ok('sales_find_company', { domain: 'acme.example', account: 'at-lusha' });
    expect(requests()[2]).toMatchObject({ method: 'POST', path: '/company' });
  });
});
