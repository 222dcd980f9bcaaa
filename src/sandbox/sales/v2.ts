import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import { MAX_BULK, SalesError, charge, matchCompany, matchPerson, tryCharge, type SalesCompany, type SalesPerson, type SalesState } from './state.js';
import { isObject } from '../util.js';

/**
 * Lusha's current v2 API, as an account with meta `{ dialect: "v2" }` uses it:
 * - `GET /v2/person?email=|linkedinUrl=|firstName=&lastName=&companyName=|companyDomain=` answers
 *   `{ contact: { data, error, isCreditCharged }, company }`; no match is 200 with `data: null` and
 *   `error: { code: 404, name: "EMPTY_DATA" }`, and costs nothing.
 * - `GET /v2/company?domain=|company=` answers `{ data }`; no match is 404 `{ error: { code: 404, name: "EMPTY_DATA", message } }`.
 * - `POST /v2/person` takes `{ contacts: [{ contactId, email?, linkedinUrl?, fullName?, companies?: [{ name?, domain?, isCurrent }] }], metadata? }`
 *   and answers `{ contacts: { [contactId]: { data, error?, isCreditCharged } }, companies: { [companyId]: {...} } }`.
 * - `POST /v2/company` takes `{ companies: [{ id, domain?, name? }] }` and answers `{ companies: { [id]: { data, error?, isCreditCharged } } }`
 *   (Lusha documents no 200 shape for it; this mirrors the person answer).
 * - At most 100 records per bulk call. A successful record costs 1 credit in this dialect; errors are `{ error: { code, message } }`.
 * - As at Lusha, what a call charged is in the body only: each record's `isCreditCharged` (no credit headers).
 */

const EMPTY = { code: 404, name: 'EMPTY_DATA', message: 'Could not find requested data' };
const PERSON_IDS = 'Provide email, linkedinUrl, or firstName + lastName + companyName (or companyDomain).';
const BULK_PERSON_IDS = 'Provide email, linkedinUrl, or fullName + companies[].name (or domain).';
const COMPANY_IDS = 'Provide domain or company.';

export function v2Person(p: SalesPerson) {
  return {
    id: p.id,
    firstName: p.firstName,
    lastName: p.lastName,
    fullName: p.fullName,
    jobTitle: { title: p.jobTitle, seniority: p.seniority, departments: p.departments },
    emailAddresses: p.emailAddresses.map((e) => ({ ...e, updateDate: p.updatedAt })),
    phoneNumbers: p.phoneNumbers.map((n) => ({ ...n, updateDate: p.updatedAt })),
    location: { country: p.location.country, country_iso2: p.location.countryIso2, state: p.location.state, city: p.location.city },
    socialLinks: { ...p.socialLinks },
    companyId: p.company.id,
    companyName: p.company.name,
  };
}

function revenue(range: string): [number, number] | null {
  const unit = { K: 1e3, M: 1e6, B: 1e9 } as Record<string, number>;
  const parts = [...range.matchAll(/\$(\d+(?:\.\d+)?)([KMB])/g)].map((m) => Number(m[1]) * unit[m[2]!]!);
  return parts.length === 2 ? [parts[0]!, parts[1]!] : null;
}

export function v2Company(c: SalesCompany) {
  return {
    id: c.id,
    name: c.name,
    domain: c.domain,
    fqdn: c.fqdn,
    description: c.description,
    founded: c.founded,
    employees: c.size,
    mainIndustry: c.industry,
    subIndustry: c.subIndustry,
    location: { city: c.location.city, state: c.location.state, country: c.location.country, countryIso2: c.location.countryIso2 },
    revenueRange: revenue(c.revenueRange),
    technologies: c.technologies.map((name) => ({ name })),
    social: {
      linkedin: { url: c.socialLinks.linkedin },
      twitter: { url: c.socialLinks.twitter },
      ...(c.socialLinks.crunchbase ? { crunchbase: { url: c.socialLinks.crunchbase } } : {}),
    },
    logoUrl: c.logoUrl,
  };
}

const companyOf = (state: SalesState, p: SalesPerson) => state.companies.find((c) => c.id === p.company.id);

function getPerson(state: SalesState, req: SandboxRequest): SandboxResponse {
  const q = (k: string) => req.query.get(k) ?? undefined;
  const found = matchPerson(
    state,
    { email: q('email'), linkedin: q('linkedinUrl'), first: q('firstName'), last: q('lastName'), company: q('companyName') ?? q('companyDomain') },
    PERSON_IDS,
  );
  if ('invalid' in found) throw new SalesError(400, found.invalid);
  if (!found.record) return { body: { contact: { data: null, error: EMPTY, isCreditCharged: false } } };
  charge(state, 1);
  const company = companyOf(state, found.record);
  return {
    body: { contact: { data: v2Person(found.record), error: null, isCreditCharged: true }, company: company ? v2Company(company) : null },
  };
}

function getCompany(state: SalesState, req: SandboxRequest): SandboxResponse {
  const found = matchCompany(state, { domain: req.query.get('domain') ?? undefined, name: req.query.get('company') ?? undefined }, COMPANY_IDS);
  if ('invalid' in found) throw new SalesError(400, found.invalid);
  if (!found.record) return { status: 404, body: { error: EMPTY } };
  charge(state, 1);
  return { body: { data: v2Company(found.record) } };
}

function items(body: unknown, key: 'contacts' | 'companies', idField: 'contactId' | 'id'): Array<Record<string, any>> {
  const list = isObject(body) ? body[key] : undefined;
  if (!Array.isArray(list) || list.length === 0) throw new SalesError(400, `"${key}" must be a non-empty array.`);
  if (list.length > MAX_BULK) throw new SalesError(400, `At most ${MAX_BULK} ${key} per request, got ${list.length}.`);
  const seen = new Set<string>();
  for (const [i, item] of list.entries()) {
    if (!isObject(item)) throw new SalesError(400, `${key}[${i}] must be an object.`);
    const id = item[idField];
    if (typeof id !== 'string' || id === '') throw new SalesError(400, `${key}[${i}].${idField} is required (a string).`);
    if (seen.has(id)) throw new SalesError(400, `${key}[${i}].${idField} "${id}" is not unique.`);
    seen.add(id);
  }
  return list;
}

function bulkPeople(state: SalesState, req: SandboxRequest): SandboxResponse {
  const list = items(req.body, 'contacts', 'contactId');
  const contacts: Record<string, unknown> = {};
  const companies: Record<string, unknown> = {};
  for (const item of list) {
    const current = Array.isArray(item.companies) ? (item.companies.find((c: any) => isObject(c) && c.isCurrent) ?? item.companies[0]) : undefined;
    const found = matchPerson(
      state,
      { email: item.email, linkedin: item.linkedinUrl, fullName: item.fullName, company: isObject(current) ? (current.name ?? current.domain) : undefined },
      BULK_PERSON_IDS,
    );
    if ('invalid' in found) contacts[item.contactId] = { data: null, error: { code: 400, name: 'INVALID_INPUT', message: found.invalid }, isCreditCharged: false };
    else if (!found.record) contacts[item.contactId] = { data: null, error: EMPTY, isCreditCharged: false };
    else if (!tryCharge(state, 1)) contacts[item.contactId] = { data: null, error: { code: 402, name: 'INSUFFICIENT_CREDITS', message: 'Not enough credits for this contact.' }, isCreditCharged: false };
    else {
      contacts[item.contactId] = { id: found.record.id, data: v2Person(found.record), isCreditCharged: true };
      const company = companyOf(state, found.record);
      if (company) companies[company.id] = v2Company(company);
    }
  }
  return { body: { contacts, companies } };
}

function bulkCompanies(state: SalesState, req: SandboxRequest): SandboxResponse {
  const list = items(req.body, 'companies', 'id');
  const companies: Record<string, unknown> = {};
  for (const item of list) {
    const found = matchCompany(state, { domain: item.domain ?? item.fqdn, name: item.name }, 'Provide domain or name.');
    if ('invalid' in found) companies[item.id] = { data: null, error: { code: 400, name: 'INVALID_INPUT', message: found.invalid }, isCreditCharged: false };
    else if (!found.record) companies[item.id] = { data: null, error: EMPTY, isCreditCharged: false };
    else if (!tryCharge(state, 1)) companies[item.id] = { data: null, error: { code: 402, name: 'INSUFFICIENT_CREDITS', message: 'Not enough credits for this company.' }, isCreditCharged: false };
    else companies[item.id] = { data: v2Company(found.record), isCreditCharged: true };
  }
  return { body: { companies } };
}

export function v2Routes(state: SalesState): Routes {
  return {
    'GET /v2/person': (req) => getPerson(state, req),
    'GET /v2/company': (req) => getCompany(state, req),
    'POST /v2/person': (req) => bulkPeople(state, req),
    'POST /v2/company': (req) => bulkCompanies(state, req),
  };
}
