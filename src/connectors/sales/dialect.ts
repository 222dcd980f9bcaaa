import { ProviderError } from '../../errors.js';
import type { Api, ApiRequest, ApiResponse } from '../../http/client.js';
import type { Account } from '../../store/types.js';
import { looksLikeDomain, normalizeDomain, type Company, type CompanyQuery, type Kind, type Person, type PersonQuery, type QueryOf, type RecordOf } from './records.js';

/**
 * The one place that knows how each upstream dialect asks and answers; everything else sees
 * PersonQuery / CompanyQuery in and Person / Company out.
 *
 * - `spec`: the specification's paths. POST /person and /company with a JSON body
 *   (`email` | `linkedInUrl` | `firstName`+`lastName`+`company`; `domain` | `name`), POST /person/bulk and
 *   /company/bulk with an array of those. Answers `{ data }` (null when nothing matched) and, in bulk,
 *   `{ data: [{ index, data, creditsCharged?, error? }] }`.
 * - `v2`: Lusha's current API. GET /v2/person and /v2/company with query
 *   parameters (`linkedinUrl`, `companyName`/`companyDomain`, `company` for a company name), POST /v2/person
 *   `{ contacts: [{ contactId, ... }] }` and POST /v2/company `{ companies: [{ id, ... }] }`, answered as maps keyed by
 *   those ids; a record that found nothing carries `error.name = "EMPTY_DATA"` (a single company answers 404 with it).
 *
 * Credits come from the body where the provider puts them (`billing.creditsCharged`, a record's `creditsCharged`,
 * or 1 for a v2 record with `isCreditCharged`); the `x-credits-used` header counts only when the body says nothing.
 */
export type Dialect = 'spec' | 'v2';

/** Lusha's API host: only the v2 dialect works there. */
const LUSHA_HOST = 'api.lusha.com';

/** The account's chosen dialect (`--dialect`, or the Integrations page), else v2 at Lusha and spec anywhere else. */
export function dialectOf(account: Account, baseUrl: URL): Dialect {
  const chosen = account.meta?.dialect;
  if (chosen === 'spec' || chosen === 'v2') return chosen;
  return baseUrl.hostname.toLowerCase() === LUSHA_HOST ? 'v2' : 'spec';
}

/**
 * Records per bulk request. The spec states no maximum for /person/bulk and /company/bulk; 100 is the cap
 * Lusha documents for its bulk endpoints (and the sandbox enforces for both dialects), so both use it.
 */
export const BATCH_SIZE: Record<Dialect, number> = { spec: 100, v2: 100 };

export type Outcome<R> =
  | { status: 'matched'; record: R; credits?: number }
  | { status: 'no_match'; credits?: number }
  | { status: 'error'; error: string; credits?: number };

export interface Credits {
  used?: number;
  remaining?: number;
}

interface Mapping<Q, R> {
  single(q: Q): ApiRequest;
  bulk(qs: Q[]): ApiRequest;
  parseSingle(res: ApiResponse): Outcome<R>;
  parseBulk(res: ApiResponse, count: number): Outcome<R>[];
}

type Obj = Record<string, any>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const join = (parts: unknown[], sep: string) => parts.map(str).filter(Boolean).join(sep) || undefined;

const GRADES = ['A+', 'A', 'A-', 'B+', 'B', 'B-', 'C+', 'C', 'C-', 'D', 'F'];

function contactPoints(d: Obj): Pick<Person, 'emails' | 'phones' | 'confidence'> {
  const emails = (Array.isArray(d.emailAddresses) ? d.emailAddresses : []).map(obj).filter((e): e is Obj => !!str(e?.email));
  emails.sort((a, b) => Number(b.emailType === 'work') - Number(a.emailType === 'work'));
  const grades = emails.map((e) => str(e.emailConfidence)).filter((g): g is string => !!g);
  grades.sort((a, b) => (GRADES.indexOf(a) + 1 || 99) - (GRADES.indexOf(b) + 1 || 99));
  const phones = (Array.isArray(d.phoneNumbers) ? d.phoneNumbers : []).map(obj).filter((p): p is Obj => !!str(p?.number));
  return {
    emails: emails.map((e) => e.email.trim()),
    phones: phones.map((p) => `${p.number.trim()} (${[str(p.phoneType) ?? 'phone', p.doNotCall ? 'do not call' : undefined].filter(Boolean).join(', ')})`),
    ...(grades[0] ? { confidence: grades[0] } : {}),
  };
}

/** `{ linkedin: "url" }` or `{ linkedin: { url } }` to `{ linkedin: "url" }`. */
function social(v: unknown): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(obj(v) ?? {})) {
    const url = str(x) ?? str(obj(x)?.url);
    if (url) out[k] = url;
  }
  return Object.keys(out).length ? out : undefined;
}

const place = (l: unknown) => join([obj(l)?.city, obj(l)?.state, obj(l)?.country], ', ');

function clean<T extends Obj>(record: T): T {
  for (const k of Object.keys(record)) if (record[k] === undefined) delete record[k];
  return record;
}

export function toPerson(d: Obj, company?: Obj): Person {
  const job = obj(d.jobTitle);
  return clean({
    name: str(d.fullName) ?? join([d.firstName, d.lastName], ' ') ?? '(no name)',
    jobTitle: str(d.jobTitle) ?? str(job?.title),
    company: str(obj(d.company)?.name) ?? str(d.companyName) ?? str(company?.name),
    companyDomain: str(obj(d.company)?.domain) ?? str(company?.domain) ?? (str(company?.fqdn) ? normalizeDomain(company!.fqdn) : undefined),
    ...contactPoints(d),
    location: place(d.location),
    social: social(d.socialLinks),
  });
}

function money(n: number): string {
  for (const [unit, size] of [['B', 1e9], ['M', 1e6], ['K', 1e3]] as const) if (n >= size) return `$${+(n / size).toFixed(1)}${unit}`;
  return `$${n}`;
}

export function toCompany(d: Obj): Company {
  const employees = obj(d.employees);
  const range = Array.isArray(d.revenueRange) && d.revenueRange.length === 2 ? d.revenueRange.map(Number) : undefined;
  const tech = Array.isArray(d.technologies) ? d.technologies.map((t: unknown) => str(t) ?? str(obj(t)?.name)).filter((t: unknown): t is string => !!t) : undefined;
  return clean({
    name: str(d.name) ?? '(no name)',
    domain: str(d.domain) ?? (str(d.fqdn) ? normalizeDomain(d.fqdn) : undefined),
    size: str(d.size) ?? str(d.employees) ?? (employees ? join([employees.min, employees.max].map((n) => (n === undefined ? undefined : String(n))), '-') : undefined),
    industry: join([d.industry ?? d.mainIndustry, d.subIndustry], ' / '),
    location: place(d.location),
    revenue: str(d.revenueRange) ?? (range && range.every(Number.isFinite) ? `${money(range[0]!)} - ${money(range[1]!)}` : undefined),
    technologies: tech?.length ? tech : undefined,
    social: social(d.socialLinks ?? d.social),
  });
}

/** A prospecting search hit (the same in both dialects): a preview without emails or phones. */
export function toProspect(d: Obj) {
  return clean({
    name: str(d.name) ?? join([d.firstName, d.lastName], ' ') ?? '(no name)',
    jobTitle: str(d.jobTitle) ?? str(obj(d.jobTitle)?.title),
    company: str(d.companyName),
    companyDomain: str(d.domain) ?? (str(d.fqdn) ? normalizeDomain(d.fqdn) : undefined),
    location: place(d.location),
    hasEmail: typeof d.hasEmails === 'boolean' ? d.hasEmails : undefined,
    hasPhone: typeof d.hasPhones === 'boolean' ? d.hasPhones : undefined,
  });
}

/** A record-level "nothing found"; as an HTTP 404 only the EMPTY_DATA name counts (any other 404 is a real error). */
const isEmptyData = (error: unknown) => str(obj(error)?.name) === 'EMPTY_DATA';
const isEmpty = (error: unknown) => isEmptyData(error) || Number(obj(error)?.code) === 404;
const errorText = (error: unknown) => join([obj(error)?.name ?? obj(error)?.code, obj(error)?.message], ': ') ?? 'the provider reported an error for this record';
const MISSING: Outcome<never> = { status: 'error', error: 'The provider returned no result for this record; retry it.' };

/** One v2 record `{ data, error?, isCreditCharged }` as an outcome. */
function v2Outcome<R>(entry: unknown, map: (data: Obj) => R): Outcome<R> {
  const e = obj(entry);
  if (!e) return MISSING;
  const data = obj(e.data);
  const credits = e.isCreditCharged ? 1 : 0;
  if (data) return { status: 'matched', record: map(data), credits };
  if (e.error && !isEmpty(e.error)) return { status: 'error', error: errorText(e.error), credits };
  return { status: 'no_match', credits };
}

/** One spec record `{ data, creditsCharged?, error? }` as an outcome. */
function specOutcome<R>(entry: unknown, map: (data: Obj) => R): Outcome<R> {
  const e = obj(entry);
  if (!e) return MISSING;
  const credits = typeof e.creditsCharged === 'number' ? e.creditsCharged : undefined;
  if (e.error) return { status: 'error', error: errorText(e.error), credits };
  const data = obj(e.data);
  return data && Object.keys(data).length ? { status: 'matched', record: map(data), credits } : { status: 'no_match', credits };
}

function specBulk<R>(res: ApiResponse, count: number, map: (data: Obj) => R): Outcome<R>[] {
  const list: unknown[] = Array.isArray(obj(res.body)?.data) ? obj(res.body)!.data : [];
  const byIndex = new Map<number, unknown>();
  list.forEach((item, position) => byIndex.set(typeof obj(item)?.index === 'number' ? obj(item)!.index : position, item));
  return Array.from({ length: count }, (_, i) => specOutcome(byIndex.get(i), map));
}

const specPerson = (q: PersonQuery) =>
  q.by === 'email' ? { email: q.email } : q.by === 'linkedin' ? { linkedInUrl: q.linkedInUrl } : { firstName: q.firstName, lastName: q.lastName, company: q.company };
const specCompany = (q: CompanyQuery) => (q.by === 'domain' ? { domain: q.domain } : { name: q.name });

const SPEC: { person: Mapping<PersonQuery, Person>; company: Mapping<CompanyQuery, Company> } = {
  person: {
    single: (q) => ({ method: 'POST', endpoint: '/person', body: specPerson(q) }),
    bulk: (qs) => ({ method: 'POST', endpoint: '/person/bulk', body: qs.map(specPerson) }),
    parseSingle: (res) => specOutcome(res.body, (d) => toPerson(d)),
    parseBulk: (res, n) => specBulk(res, n, (d) => toPerson(d)),
  },
  company: {
    single: (q) => ({ method: 'POST', endpoint: '/company', body: specCompany(q) }),
    bulk: (qs) => ({ method: 'POST', endpoint: '/company/bulk', body: qs.map(specCompany) }),
    parseSingle: (res) => specOutcome(res.body, toCompany),
    parseBulk: (res, n) => specBulk(res, n, toCompany),
  },
};

const companyKey = (company: string) => (looksLikeDomain(company) ? 'companyDomain' : 'companyName');

function v2PersonQuery(q: PersonQuery): Record<string, string> {
  if (q.by === 'email') return { email: q.email };
  if (q.by === 'linkedin') return { linkedinUrl: q.linkedInUrl };
  return { firstName: q.firstName, lastName: q.lastName, [companyKey(q.company)]: looksLikeDomain(q.company) ? normalizeDomain(q.company) : q.company };
}

function v2PersonBulk(q: PersonQuery, contactId: string): Obj {
  if (q.by !== 'name') return { contactId, ...v2PersonQuery(q) };
  const current = looksLikeDomain(q.company) ? { domain: normalizeDomain(q.company) } : { name: q.company };
  return { contactId, fullName: `${q.firstName} ${q.lastName}`, companies: [{ ...current, isCurrent: true }] };
}

/** A single v2 lookup that found nothing may answer 404 with EMPTY_DATA; any other 404 is a real error. */
function v2Single<R>(res: ApiResponse, pick: (body: Obj) => unknown, map: (data: Obj, body: Obj) => R): Outcome<R> {
  const body = obj(res.body) ?? {};
  if (res.status === 404) {
    if (isEmptyData(obj(body.error) ?? obj(obj(body.contact)?.error))) return { status: 'no_match', credits: 0 };
    const e = obj(body.error);
    throw new ProviderError({ connector: 'sales', status: 404, method: 'GET', path: new URL(res.url).pathname, code: str(e?.name), providerMessage: str(e?.message) });
  }
  return v2Outcome(pick(body), (d) => map(d, body));
}

const V2: { person: Mapping<PersonQuery, Person>; company: Mapping<CompanyQuery, Company> } = {
  person: {
    single: (q) => ({ method: 'GET', endpoint: '/v2/person', query: v2PersonQuery(q), acceptStatus: [404] }),
    bulk: (qs) => ({ method: 'POST', endpoint: '/v2/person', body: { contacts: qs.map((q, i) => v2PersonBulk(q, String(i))) } }),
    parseSingle: (res) => v2Single(res, (b) => b.contact, (d, b) => toPerson(d, obj(b.company))),
    parseBulk: (res, n) => {
      const body = obj(res.body) ?? {};
      const companies = obj(body.companies) ?? {};
      return Array.from({ length: n }, (_, i) => v2Outcome(obj(body.contacts)?.[String(i)], (d) => toPerson(d, obj(companies[d.companyId]))));
    },
  },
  company: {
    single: (q) => ({ method: 'GET', endpoint: '/v2/company', query: q.by === 'domain' ? { domain: q.domain } : { company: q.name }, acceptStatus: [404] }),
    bulk: (qs) => ({ method: 'POST', endpoint: '/v2/company', body: { companies: qs.map((q, i) => ({ id: String(i), ...(q.by === 'domain' ? { domain: q.domain } : { name: q.name }) })) } }),
    parseSingle: (res) => v2Single(res, (b) => ({ data: b.data, isCreditCharged: !!obj(b.data) }), (d) => toCompany(d)),
    parseBulk: (res, n) => Array.from({ length: n }, (_, i) => v2Outcome(obj(obj(res.body)?.companies)?.[String(i)], toCompany)),
  },
};

const MAPPINGS: Record<Dialect, { person: Mapping<any, any>; company: Mapping<any, any> }> = { spec: SPEC, v2: V2 };

const count = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
};

/**
 * What one response charged, read from the body first: Lusha's `billing.creditsCharged`, else what the records say
 * (`perRecord`), else the `x-credits-used` header. Lusha's bodies carry no balance: `x-credits-remaining` is all there is.
 */
export function chargedBy(res: Pick<ApiResponse, 'body' | 'headers'>, perRecord?: number): Credits {
  const billing = obj(obj(res.body)?.billing);
  return clean({
    used: count(billing?.creditsCharged) ?? perRecord ?? count(res.headers['x-credits-used']),
    remaining: count(res.headers['x-credits-remaining']),
  });
}

function creditsOf(res: ApiResponse, outcomes: Outcome<unknown>[]): Credits {
  const perRecord = outcomes.some((o) => o.credits !== undefined) ? outcomes.reduce((n, o) => n + (o.credits ?? 0), 0) : undefined;
  return chargedBy(res, perRecord);
}

/** One lookup; an error the provider reports for the record is thrown, as the tool's failure. */
export async function lookupOne<K extends Kind>(api: Api, dialect: Dialect, kind: K, query: QueryOf<K>): Promise<{ outcome: Outcome<RecordOf<K>>; credits: Credits }> {
  const mapping = MAPPINGS[dialect][kind];
  const req = mapping.single(query);
  const res = await api.request(req);
  const outcome = mapping.parseSingle(res) as Outcome<RecordOf<K>>;
  const credits = creditsOf(res, [outcome]);
  if (outcome.status === 'error') {
    throw new ProviderError({ connector: 'sales', status: res.status, method: req.method, path: new URL(res.url).pathname, providerMessage: outcome.error });
  }
  return { outcome: { ...outcome, credits: credits.used ?? outcome.credits }, credits };
}

export type BatchAnswer<R> = { outcomes: Outcome<R>[]; credits: Credits } | { rateLimited: ApiResponse };

/** One bulk request. A 429 is handed back, not retried here: the batch runner owns that back-off. */
export async function lookupBatch<K extends Kind>(api: Api, dialect: Dialect, kind: K, queries: QueryOf<K>[]): Promise<BatchAnswer<RecordOf<K>>> {
  const mapping = MAPPINGS[dialect][kind];
  const res = await api.request({ ...mapping.bulk(queries), acceptStatus: [429] });
  if (res.status === 429) return { rateLimited: res };
  const outcomes = mapping.parseBulk(res, queries.length) as Outcome<RecordOf<K>>[];
  return { outcomes, credits: creditsOf(res, outcomes) };
}
