import { randomUUID } from 'node:crypto';
import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import { SalesError, charge, lower, normDomain, type SalesCompany, type SalesPerson, type SalesState } from './state.js';
import { isObject } from '../util.js';

/**
 * Lusha's prospecting search (the spec names no search paths; both dialects use these):
 * - `GET /prospecting/filters/companies/industries_labels`: `[{ id, value, subIndustries: [{ id, value }] }]`, free.
 * - `POST /prospecting/contact/search` and `POST /prospecting/company/search` take
 *   `{ pages: { page (0-999), size (10-50) }, filters: { contacts?: { include: {...} }, companies?: { include: {...} } } }`
 *   and answer `{ requestId, currentPage, pageLength, totalResults, data: [...], billing: { resultsReturned, creditsCharged } }`.
 *   As at Lusha, the charge is in the body only (no credit headers): 1 credit per 25 results returned or part of it,
 *   nothing for an empty page; a page the credits cannot pay is a 402.
 *   Contact filters: jobTitles (substring), departments, locations ([{ country?, state?, city? }]).
 *   Company filters: sizes ([{ min?, max? }] employee ranges), mainIndustriesIds, subIndustriesIds, locations, names, domains.
 *   An unknown filter, no filter at all, or a page outside the ranges is a 400 `{ error: { code, message } }`.
 * Contact results are previews: no emails or phones (`hasEmails`, `hasPhones` say what a lookup would reveal).
 */

const CONTACT_FILTERS = new Set(['jobTitles', 'departments', 'locations']);
const COMPANY_FILTERS = new Set(['sizes', 'mainIndustriesIds', 'subIndustriesIds', 'locations', 'names', 'domains']);

interface Industry {
  id: number;
  value: string;
  subIndustries: Array<{ id: number; value: string }>;
}

export function industryLabels(state: SalesState): Industry[] {
  const mains = [...new Set(state.companies.map((c) => c.industry))].sort();
  return mains.map((value, i) => {
    const subs = [...new Set(state.companies.filter((c) => c.industry === value).map((c) => c.subIndustry))].sort();
    return { id: i + 1, value, subIndustries: subs.map((s, j) => ({ id: (i + 1) * 100 + j + 1, value: s })) };
  });
}

type Location = { country?: string; state?: string; city?: string };

function include(filters: unknown, part: 'contacts' | 'companies', allowed: Set<string>): Record<string, unknown> {
  if (!isObject(filters) || filters[part] === undefined) return {};
  const inc = isObject(filters[part]) ? filters[part].include : undefined;
  if (!isObject(inc)) throw new SalesError(400, `filters.${part}.include must be an object.`);
  for (const [k, v] of Object.entries(inc)) {
    if (!allowed.has(k)) throw new SalesError(400, `Unknown filter filters.${part}.include.${k}; allowed: ${[...allowed].join(', ')}.`);
    if (!Array.isArray(v) || v.length === 0) throw new SalesError(400, `filters.${part}.include.${k} must be a non-empty array.`);
  }
  return inc;
}

function pages(body: unknown): { page: number; size: number } {
  const p = isObject(body) && isObject(body.pages) ? body.pages : {};
  const page = p.page ?? 0;
  const size = p.size ?? 20;
  if (!Number.isInteger(page) || page < 0 || page > 999) throw new SalesError(400, 'pages.page must be an integer from 0 to 999.');
  if (!Number.isInteger(size) || size < 10 || size > 50) throw new SalesError(400, 'pages.size must be an integer from 10 to 50.');
  return { page, size };
}

function locationMatches(wanted: unknown, loc: SalesCompany['location']): boolean {
  return (wanted as Location[]).some(
    (w) =>
      isObject(w) &&
      (!w.country || lower(w.country) === lower(loc.country) || lower(w.country) === lower(loc.countryIso2)) &&
      (!w.state || lower(w.state) === lower(loc.state)) &&
      (!w.city || lower(w.city) === lower(loc.city)),
  );
}

function companyMatches(state: SalesState, c: SalesCompany, inc: Record<string, any>): boolean {
  const labels = industryLabels(state);
  const main = labels.find((l) => l.value === c.industry);
  const sub = main?.subIndustries.find((s) => s.value === c.subIndustry);
  if (inc.sizes && !inc.sizes.some((s: any) => c.employees.max >= (s?.min ?? 0) && c.employees.min <= (s?.max ?? Infinity))) return false;
  if (inc.mainIndustriesIds && !inc.mainIndustriesIds.includes(main?.id)) return false;
  if (inc.subIndustriesIds && !inc.subIndustriesIds.includes(sub?.id)) return false;
  if (inc.locations && !locationMatches(inc.locations, c.location)) return false;
  if (inc.names && !inc.names.some((n: unknown) => lower(n) === c.name.toLowerCase())) return false;
  if (inc.domains && !inc.domains.some((d: unknown) => normDomain(d) === c.domain)) return false;
  return true;
}

function personMatches(p: SalesPerson, inc: Record<string, any>): boolean {
  if (inc.jobTitles && !inc.jobTitles.some((t: unknown) => lower(t) && p.jobTitle.toLowerCase().includes(lower(t)))) return false;
  if (inc.departments && !inc.departments.some((d: unknown) => p.departments.some((x) => x.toLowerCase() === lower(d)))) return false;
  if (inc.locations && !locationMatches(inc.locations, p.location)) return false;
  return true;
}

/** Credits a page of search results costs. */
export const searchCost = (results: number) => Math.ceil(results / 25);

function page<T>(state: SalesState, all: T[], body: unknown): SandboxResponse {
  const { page, size } = pages(body);
  const data = all.slice(page * size, page * size + size);
  const cost = searchCost(data.length);
  charge(state, cost);
  return { body: { requestId: randomUUID(), currentPage: page, pageLength: data.length, totalResults: all.length, data, billing: { resultsReturned: data.length, creditsCharged: cost } } };
}

function contactSearch(state: SalesState, req: SandboxRequest): SandboxResponse {
  const filters = isObject(req.body) ? req.body.filters : undefined;
  const people = include(filters, 'contacts', CONTACT_FILTERS);
  const companies = include(filters, 'companies', COMPANY_FILTERS);
  if (!Object.keys(people).length && !Object.keys(companies).length) throw new SalesError(400, 'Give at least one filter.');
  pages(req.body);
  const hits = state.people.filter((p) => {
    const c = state.companies.find((x) => x.id === p.company.id);
    return personMatches(p, people) && (!Object.keys(companies).length || (c !== undefined && companyMatches(state, c, companies)));
  });
  return page(
    state,
    hits.map((p) => ({
      contactId: p.id,
      name: p.fullName,
      jobTitle: p.jobTitle,
      companyId: p.company.id,
      companyName: p.company.name,
      fqdn: `www.${p.company.domain}`,
      location: { country: p.location.country, state: p.location.state, city: p.location.city },
      hasEmails: p.emailAddresses.length > 0,
      hasPhones: p.phoneNumbers.length > 0,
    })),
    req.body,
  );
}

function companySearch(state: SalesState, req: SandboxRequest): SandboxResponse {
  const filters = isObject(req.body) ? req.body.filters : undefined;
  if (isObject(filters) && filters.contacts !== undefined) throw new SalesError(400, 'Company search takes filters.companies only.');
  const companies = include(filters, 'companies', COMPANY_FILTERS);
  if (!Object.keys(companies).length) throw new SalesError(400, 'Give at least one filter.');
  pages(req.body);
  const hits = state.companies.filter((c) => companyMatches(state, c, companies));
  return page(
    state,
    hits.map((c) => ({
      id: c.id,
      name: c.name,
      domain: c.domain,
      fqdn: c.fqdn,
      employees: c.size,
      mainIndustry: c.industry,
      subIndustry: c.subIndustry,
      location: { country: c.location.country, state: c.location.state, city: c.location.city },
    })),
    req.body,
  );
}

export function prospectingRoutes(state: SalesState): Routes {
  return {
    'GET /prospecting/filters/companies/industries_labels': () => ({ body: industryLabels(state) }),
    'POST /prospecting/contact/search': (req) => contactSearch(state, req),
    'POST /prospecting/company/search': (req) => companySearch(state, req),
  };
}
