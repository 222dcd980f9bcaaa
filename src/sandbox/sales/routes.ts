import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import { MAX_BULK, SalesError, creditsLeft, charge, matchCompany, matchPerson, tryCharge, type Lookup, type SalesCompany, type SalesPerson, type SalesState } from './state.js';
import { COMPANIES, PEOPLE } from './data.js';
import { prospectingRoutes } from './prospecting.js';
import { v2Routes } from './v2.js';
import { header, isObject, withMiddleware } from '../util.js';

export type { SalesCompany, SalesPerson, SalesState } from './state.js';

/**
 * B2B enrichment stand-in, Lusha-style: the key goes in the `api_key` header. It speaks two dialects:
 * the specification's paths (below) and Lusha's current v2 API (`v2.ts`), plus the prospecting
 * search both use (`prospecting.ts`).
 *
 * Choices this sandbox makes where the spec shows none:
 * - `GET /account/usage` costs no credits and is how a key is checked: `{ usage: { credits: {...}, requests: {...} } }`.
 * - A single lookup with no match is not an error: 200 `{ data: null, message: "No match found" }`, 0 credits.
 * - Bulk bodies are an array, or `{ contacts: [...] }` / `{ companies: [...] }` (the API Call step sends objects), at most 100;
 *   the answer has one result per input, in order: `{ data: [{ index, requestId?, data, creditsCharged, message?, error? }] }`.
 * - Credits: a person costs 1, or 2 when phone numbers are returned; a company 1. Every response of these paths
 *   carries `x-credits-used` (this request) and `x-credits-remaining`. Lusha's own paths (`/v2`, `/prospecting`,
 *   `/account/usage`) send no credit headers, as Lusha does not: their bodies say what was charged.
 *   Every response has the daily request quota in `x-ratelimit-*`.
 * - Errors of the spec paths are `{ message }`; those of `/v2` and `/prospecting` are `{ error: { code, message } }`.
 */

export const SALES_SAMPLE_KEY = 'sbx-sales-key-0001';

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

const PERSON_IDS = 'Provide email, linkedInUrl, or firstName + lastName + company.';

function findPerson(state: SalesState, input: unknown): Lookup<SalesPerson> {
  if (!isObject(input)) return { invalid: 'Each person must be an object.' };
  const company = input.company ?? input.companyName ?? input.companyDomain;
  return matchPerson(state, { email: input.email, linkedin: input.linkedInUrl ?? input.linkedinUrl, first: input.firstName, last: input.lastName, company }, PERSON_IDS);
}

function findCompany(state: SalesState, input: unknown): Lookup<SalesCompany> {
  if (!isObject(input)) return { invalid: 'Each company must be an object.' };
  return matchCompany(state, { domain: input.domain ?? input.website, name: input.name ?? input.companyName }, 'Provide domain or name.');
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
    if ('invalid' in result) return { ...base, data: null, creditsCharged: 0, error: { code: 'INVALID_INPUT', message: result.invalid } };
    if (!result.record) return { ...base, data: null, creditsCharged: 0, message: 'No match found' };
    if (!tryCharge(state, result.cost)) return { ...base, data: null, creditsCharged: 0, error: { code: 'INSUFFICIENT_CREDITS', message: 'Not enough credits for this record.' } };
    used += result.cost;
    return { ...base, data: result.record, creditsCharged: result.cost };
  });
  return { status: 200, body: { data }, headers: { 'x-credits-used': String(used) } };
}

/** Lusha's newer paths answer errors as `{ error: { code, message } }`; the spec paths as `{ message }`. */
const errorBody = (path: string, status: number, message: string) =>
  /^\/(v2|prospecting)\//.test(path) ? { error: { code: status, message } } : { message };

/** The specification's paths, the only ones answered with credit headers. */
const isSpecPath = (path: string) => /^\/(person|company)(\/bulk)?$/.test(path);

export function salesRoutes(state: SalesState): Routes {
  const routes: Routes = {
    // Costs no credits: the connector calls it to check a new key.
    'GET /account/usage': () => ({
      status: 200,
      body: {
        usage: {
          credits: { total: state.credits.total, used: state.credits.used, remaining: creditsLeft(state), resetDate: state.credits.resetDate },
          requests: { dailyLimit: state.requests.limit, dailyUsed: state.requests.used, dailyRemaining: state.requests.limit - state.requests.used },
        },
      },
    }),
    'POST /person': (req) => single(state, req, findPerson),
    'POST /company': (req) => single(state, req, findCompany),
    'POST /person/bulk': (req) => bulk(state, req, 'contacts', findPerson),
    'POST /company/bulk': (req) => bulk(state, req, 'companies', findCompany),
    ...v2Routes(state),
    ...prospectingRoutes(state),
  };
  return withMiddleware(routes, async (req, next) => {
    const q = state.requests;
    const now = Math.floor(Date.now() / 1000);
    if (now >= q.reset) Object.assign(q, { used: 0, reset: q.reset + 86_400 * Math.ceil((now - q.reset + 1) / 86_400) });
    const headers = () => ({
      ...(isSpecPath(req.path) ? { 'x-credits-remaining': String(creditsLeft(state)) } : {}),
      'x-ratelimit-limit': String(q.limit),
      'x-ratelimit-remaining': String(Math.max(0, q.limit - q.used)),
      'x-ratelimit-reset': String(q.reset),
    });
    const key = header(req, 'api_key');
    if (!key || !state.apiKeys.has(key)) {
      const message = key ? 'Unauthorized: the API key is not valid.' : 'Unauthorized: send your API key in the api_key header.';
      return { status: 401, body: errorBody(req.path, 401, message) };
    }
    if (q.used >= q.limit) {
      return { status: 429, headers: { ...headers(), 'retry-after': String(q.reset - now) }, body: errorBody(req.path, 429, 'Too many requests: daily limit reached.') };
    }
    q.used += 1;
    let res: SandboxResponse;
    try {
      res = await next(req);
    } catch (error) {
      if (!(error instanceof SalesError)) throw error;
      res = { status: error.status, body: errorBody(req.path, error.status, error.message), headers: isSpecPath(req.path) ? { 'x-credits-used': '0' } : {} };
    }
    return { ...res, headers: { ...headers(), ...res.headers } };
  });
}

/** The route table (same as salesRoutes). */
export const routes = salesRoutes;
