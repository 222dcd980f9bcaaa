import type { Routes, SandboxRequest, SandboxResponse } from './server.js';
import { COMPANIES, PEOPLE } from './sales.data.js';
import { header, isObject, withMiddleware } from './util.js';

/**
 * B2B enrichment stand-in, Lusha-style: the key goes in the `api_key` header.
 *
 * Choices this sandbox makes where the spec shows none:
 * - `GET /account/usage` costs no credits and is how a key is checked: `{ usage: { credits: {...}, requests: {...} } }`.
 * - A single lookup with no match is not an error: 200 `{ data: null, message: "No match found" }`, 0 credits.
 * - Bulk bodies are an array, or `{ contacts: [...] }` / `{ companies: [...] }` (the API Call step sends objects);
 *   the answer has one result per input, in order: `{ data: [{ index, requestId?, data, message?, error? }] }`.
 * - Credits: a person costs 1, or 2 when phone numbers are returned; a company 1. Every response carries
 *   `x-credits-used` (this request) and `x-credits-remaining`; the daily request quota is in `x-ratelimit-*`.
 */

export interface SalesPerson {
  id: string;
  firstName: string;
  lastName: string;
  fullName: string;
  jobTitle: string;
  seniority: string;
  departments: string[];
  location: SalesCompany['location'];
  emailAddresses: Array<{ email: string; emailType: 'work' | 'personal'; emailConfidence: string }>;
  phoneNumbers: Array<{ number: string; phoneType: 'mobile' | 'direct' | 'phone'; doNotCall: boolean }>;
  socialLinks: { linkedin: string };
  company: { id: string; name: string; domain: string };
  updatedAt: string;
}
export interface SalesCompany {
  id: string;
  name: string;
  domain: string;
  fqdn: string;
  description: string;
  industry: string;
  subIndustry: string;
  employees: { min: number; max: number };
  size: string;
  revenueRange: string;
  founded: number;
  location: { city: string; state: string | null; country: string; countryIso2: string };
  technologies: string[];
  socialLinks: { linkedin: string; twitter: string; crunchbase: string | null };
  logoUrl: string;
}
export interface SalesState {
  /** Keys accepted in the `api_key` header. */
  apiKeys: Set<string>;
  people: SalesPerson[];
  companies: SalesCompany[];
  credits: { total: number; used: number; resetDate: string };
  /** Daily request quota; `reset` in epoch seconds. */
  requests: { limit: number; used: number; reset: number };
}

export const SALES_SAMPLE_KEY = 'sbx-sales-key-0001';
const MAX_BULK = 100;

export function createSalesState(): SalesState {
  const now = new Date();
  const tomorrow = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) / 1000;
  const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
  return {
    apiKeys: new Set([SALES_SAMPLE_KEY]),
    people: structuredClone(PEOPLE),
    companies: structuredClone(COMPANIES),
    credits: { total: 1000, used: 0, resetDate: nextMonth },
    requests: { limit: 5000, used: 0, reset: tomorrow },
  };
}

class SalesError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const lower = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : '');
const normUrl = (v: unknown) => lower(v).replace(/^https?:\/\//, '').replace(/^www\./, '').replace(/[?#].*$/, '').replace(/\/+$/, '');
const normDomain = (v: unknown) => normUrl(v).split('/')[0]!;

type Lookup<T> = { record: T | null; cost: number } | { invalid: string };

function findPerson(state: SalesState, input: unknown): Lookup<SalesPerson> {
  if (!isObject(input)) return { invalid: 'Each person must be an object.' };
  const email = lower(input.email);
  const linkedin = normUrl(input.linkedInUrl ?? input.linkedinUrl);
  const first = lower(input.firstName);
  const last = lower(input.lastName);
  const company = lower(input.company ?? input.companyName ?? input.companyDomain);
  if (!email && !linkedin && !(first && last && company)) {
    return { invalid: 'Provide email, linkedInUrl, or firstName + lastName + company.' };
  }
  const record =
    state.people.find(
      (p) =>
        (email && p.emailAddresses.some((e) => e.email.toLowerCase() === email)) ||
        (linkedin && normUrl(p.socialLinks.linkedin) === linkedin) ||
        (first && last && company && p.firstName.toLowerCase() === first && p.lastName.toLowerCase() === last && (p.company.name.toLowerCase() === company || p.company.domain === normDomain(company))),
    ) ?? null;
  return { record, cost: record ? (record.phoneNumbers.length ? 2 : 1) : 0 };
}

function findCompany(state: SalesState, input: unknown): Lookup<SalesCompany> {
  if (!isObject(input)) return { invalid: 'Each company must be an object.' };
  const domain = normDomain(input.domain ?? input.website ?? '');
  const name = lower(input.name ?? input.companyName);
  if (!domain && !name) return { invalid: 'Provide domain or name.' };
  const record = state.companies.find((c) => (domain && c.domain === domain) || (name && c.name.toLowerCase() === name)) ?? null;
  return { record, cost: record ? 1 : 0 };
}

function charge(state: SalesState, cost: number): void {
  if (state.credits.used + cost > state.credits.total) {
    throw new SalesError(402, `Not enough credits: this lookup needs ${cost}, ${state.credits.total - state.credits.used} left until ${state.credits.resetDate}.`);
  }
  state.credits.used += cost;
}

function single<T>(state: SalesState, req: SandboxRequest, find: (s: SalesState, input: unknown) => Lookup<T>): SandboxResponse {
  const result = find(state, req.body);
  if ('invalid' in result) throw new SalesError(400, `Invalid request: ${result.invalid}`);
  if (!result.record) return { status: 200, body: { data: null, message: 'No match found' }, headers: { 'x-credits-used': '0' } };
  charge(state, result.cost);
  return { status: 200, body: { data: result.record }, headers: { 'x-credits-used': String(result.cost) } };
}

function bulk<T>(state: SalesState, req: SandboxRequest, key: 'contacts' | 'companies', find: (s: SalesState, input: unknown) => Lookup<T>): SandboxResponse {
  const body = req.body;
  const items: unknown = Array.isArray(body) ? body : isObject(body) ? (body[key] ?? (key === 'contacts' ? (body.people ?? body.persons) : undefined)) : undefined;
  if (!Array.isArray(items) || items.length === 0) throw new SalesError(400, `Invalid request: send a non-empty array, or { "${key}": [...] }.`);
  if (items.length > MAX_BULK) throw new SalesError(400, `Invalid request: at most ${MAX_BULK} records per bulk call, got ${items.length}.`);
  let used = 0;
  const data = items.map((input, index) => {
    const requestId = isObject(input) ? (input.requestId ?? input.id ?? input.contactId ?? input.companyId) : undefined;
    const base = { index, ...(requestId !== undefined ? { requestId: String(requestId) } : {}) };
    const result = find(state, input);
    if ('invalid' in result) return { ...base, data: null, error: { code: 'INVALID_INPUT', message: result.invalid } };
    if (!result.record) return { ...base, data: null, message: 'No match found' };
    if (state.credits.used + result.cost > state.credits.total) return { ...base, data: null, error: { code: 'INSUFFICIENT_CREDITS', message: 'Not enough credits for this record.' } };
    state.credits.used += result.cost;
    used += result.cost;
    return { ...base, data: result.record };
  });
  return { status: 200, body: { data }, headers: { 'x-credits-used': String(used) } };
}

export function salesRoutes(state: SalesState): Routes {
  const routes: Routes = {
    // Costs no credits: the connector calls it to check a new key.
    'GET /account/usage': () => ({
      status: 200,
      body: {
        usage: {
          credits: { total: state.credits.total, used: state.credits.used, remaining: state.credits.total - state.credits.used, resetDate: state.credits.resetDate },
          requests: { dailyLimit: state.requests.limit, dailyUsed: state.requests.used, dailyRemaining: state.requests.limit - state.requests.used },
        },
      },
    }),
    'POST /person': (req) => single(state, req, findPerson),
    'POST /company': (req) => single(state, req, findCompany),
    'POST /person/bulk': (req) => bulk(state, req, 'contacts', findPerson),
    'POST /company/bulk': (req) => bulk(state, req, 'companies', findCompany),
  };
  return withMiddleware(routes, async (req, next) => {
    const q = state.requests;
    const now = Math.floor(Date.now() / 1000);
    if (now >= q.reset) Object.assign(q, { used: 0, reset: q.reset + 86_400 * Math.ceil((now - q.reset + 1) / 86_400) });
    const headers = () => ({
      'x-credits-remaining': String(state.credits.total - state.credits.used),
      'x-ratelimit-limit': String(q.limit),
      'x-ratelimit-remaining': String(Math.max(0, q.limit - q.used)),
      'x-ratelimit-reset': String(q.reset),
    });
    const key = header(req, 'api_key');
    if (!key || !state.apiKeys.has(key)) {
      return { status: 401, body: { message: key ? 'Unauthorized: the API key is not valid.' : 'Unauthorized: send your API key in the api_key header.' } };
    }
    if (q.used >= q.limit) return { status: 429, headers: { ...headers(), 'retry-after': String(q.reset - now) }, body: { message: 'Too many requests: daily limit reached.' } };
    q.used += 1;
    let res: SandboxResponse;
    try {
      res = await next(req);
    } catch (error) {
      if (!(error instanceof SalesError)) throw error;
      res = { status: error.status, body: { message: error.message }, headers: { 'x-credits-used': '0' } };
    }
    return { ...res, headers: { ...headers(), ...res.headers } };
  });
}

/** The route table (same as salesRoutes). */
export const routes = salesRoutes;
