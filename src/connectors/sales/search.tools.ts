import { createHash } from 'node:crypto';
import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import { sales } from './connector.js';
import { chargedBy, toCompany, toProspect } from './dialect.js';
import { companySchema } from './records.js';

/*
 * The specification names no search paths. Both dialects search through Lusha's prospecting endpoints:
 * POST /prospecting/contact/search and /prospecting/company/search with
 * `{ pages: { page, size }, filters: { contacts?: { include }, companies?: { include } } }`, answered with
 * `{ requestId, currentPage, totalResults, data, billing: { resultsReturned, creditsCharged } }`. A search is
 * charged (Lusha bills each page of results), and `billing.creditsCharged` says how much. Industries are filtered
 * by id, so names are resolved through GET /prospecting/filters/companies/industries_labels first (free, like every
 * filters call). Contact results are previews without emails or phones: a find or enrich tool reveals those.
 */

const MAX_PAGE = 999;

const location = z
  .object({
    country: z.string().optional().describe('e.g. Germany'),
    state: z.string().optional().describe('e.g. Texas'),
    city: z.string().optional().describe('e.g. Austin'),
  })
  .strict();
const criteria = {
  industries: z.array(z.string().min(1)).max(20).optional().describe('Any of these, e.g. Software'),
  companySize: z
    .object({
      min: z.number().int().min(1).optional().describe('Employees at least'),
      max: z.number().int().min(1).optional().describe('Employees at most'),
    })
    .strict()
    .optional()
    .describe('Employee count'),
  limit: z.number().int().min(10).max(50).optional().describe('Default 25'),
  cursor: z.string().optional(),
};

const paging = {
  total: z.number().int().optional(),
  next_cursor: z.string().optional().describe('absent on the last page'),
  credits_used: z.number(),
  credits_remaining: z.number().optional(),
};

const prospect = z
  .object({
    name: z.string(),
    jobTitle: z.string().optional(),
    company: z.string().optional(),
    companyDomain: z.string().optional(),
    location: z.string().optional(),
    hasEmail: z.boolean().optional(),
    hasPhone: z.boolean().optional(),
  })
  .describe('sales_find_contact reveals emails, phones');

type Filters = { contacts?: { include: Record<string, unknown> }; companies?: { include: Record<string, unknown> } };
interface Cursor {
  page: number;
  size: number;
  filters: Filters;
  /** Fingerprint of the criteria that built the filters. */
  criteria: string;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.page, c.size, c.filters, c.criteria])).toString('base64url');
}

function decodeCursor(value: string): Cursor {
  try {
    const [page, size, filters, criteria] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (Number.isInteger(page) && Number.isInteger(size) && filters && typeof filters === 'object' && typeof criteria === 'string') return { page, size, filters, criteria };
  } catch {
    // Reported below.
  }
  throw new InputError('"cursor" is not a next_cursor from this tool; start again without it.', 'cursor');
}

const trimmed = (list: string[] | undefined) => list?.map((s) => s.trim()).filter(Boolean);
const fingerprint = (criteria: Record<string, unknown>) => createHash('sha256').update(JSON.stringify(criteria)).digest('base64url').slice(0, 16);

function locationFilter(l: z.infer<typeof location> | undefined): Array<Record<string, string>> | undefined {
  if (!l) return undefined;
  const out = Object.fromEntries(Object.entries(l).map(([k, v]) => [k, v?.trim()]).filter(([, v]) => v));
  if (!Object.keys(out).length) throw new InputError('"location" needs a country, state or city.', 'location');
  return [out as Record<string, string>];
}

function sizeFilter(s: { min?: number; max?: number } | undefined): Array<{ min?: number; max?: number }> | undefined {
  if (!s) return undefined;
  if (s.min === undefined && s.max === undefined) throw new InputError('"companySize" needs min, max or both.', 'companySize');
  if (s.min !== undefined && s.max !== undefined && s.min > s.max) throw new InputError('"companySize.min" is above "companySize.max".', 'companySize.min');
  return [s];
}

/** Industry names to the ids the prospecting filters take; mains and subs mixed become sub-industry ids (any of them). */
async function industryFilter(api: Api, names: string[] | undefined): Promise<Record<string, number[]>> {
  if (!names?.length) return {};
  const labels = await api.get<Array<{ id: number; value: string; subIndustries?: Array<{ id: number; value: string }> }>>('/prospecting/filters/companies/industries_labels');
  const list = Array.isArray(labels) ? labels : [];
  const mains: typeof list = [];
  const subs: number[] = [];
  for (const name of names) {
    const want = name.trim().toLowerCase();
    const main = list.find((l) => l.value?.toLowerCase() === want);
    const sub = list.flatMap((l) => l.subIndustries ?? []).find((s) => s.value?.toLowerCase() === want);
    if (main) mains.push(main);
    else if (sub) subs.push(sub.id);
    else {
      const known = list.map((l) => l.value).slice(0, 40).join(', ');
      throw new InputError(`"industries": no industry named ${JSON.stringify(name)}; known industries: ${known}.`, 'industries');
    }
  }
  if (!subs.length) return { mainIndustriesIds: mains.map((m) => m.id) };
  return { subIndustriesIds: [...subs, ...mains.flatMap((m) => (m.subIndustries ?? []).map((s) => s.id))] };
}

const include = (fields: Record<string, unknown>) => {
  const kept = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return Object.keys(kept).length ? { include: kept } : undefined;
};

interface Criteria {
  jobTitles?: string[];
  industries?: string[];
  location?: z.infer<typeof location>;
  companySize?: { min?: number; max?: number };
  limit?: number;
  cursor?: string;
}

/** One page of a prospecting search; the cursor carries the built filters, so later pages resolve nothing again. */
async function search(kind: 'contact' | 'company', input: Criteria, api: Api) {
  const { limit, cursor, ...rest } = input;
  const given = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  const print = fingerprint(given);
  let page: Cursor;
  if (cursor) {
    page = decodeCursor(cursor);
    if (Object.keys(given).length && page.criteria !== print) {
      throw new InputError('"cursor" belongs to a search with other criteria: repeat the same criteria, omit them, or drop the cursor.', 'cursor');
    }
  } else {
    if (!Object.keys(given).length) {
      const names = kind === 'contact' ? 'jobTitles, industries, location or companySize' : 'industries, location or companySize';
      throw new InputError(`Give at least one criterion: ${names}.`, kind === 'contact' ? 'jobTitles' : 'industries');
    }
    const companyFilters = { sizes: sizeFilter(rest.companySize), ...(await industryFilter(api, trimmed(rest.industries))) };
    const filters: Filters =
      kind === 'contact'
        ? { contacts: include({ jobTitles: trimmed(rest.jobTitles), locations: locationFilter(rest.location) }), companies: include(companyFilters) }
        : { companies: include({ ...companyFilters, locations: locationFilter(rest.location) }) };
    page = { page: 0, size: limit ?? 25, filters: JSON.parse(JSON.stringify(filters)), criteria: print };
  }
  const res = await api.request({ method: 'POST', endpoint: `/prospecting/${kind}/search`, body: { pages: { page: page.page, size: page.size }, filters: page.filters } });
  const body = (res.body ?? {}) as { data?: unknown; totalResults?: unknown };
  const data = (Array.isArray(body.data) ? body.data : []) as Array<Record<string, any>>;
  const total = typeof body.totalResults === 'number' ? body.totalResults : undefined;
  const more = total !== undefined ? (page.page + 1) * page.size < total : data.length === page.size;
  const credits = chargedBy(res);
  return {
    data,
    total,
    ...(more && page.page < MAX_PAGE ? { next_cursor: encodeCursor({ ...page, page: page.page + 1 }) } : {}),
    credits_used: credits.used ?? 0,
    ...(credits.remaining !== undefined ? { credits_remaining: credits.remaining } : {}),
  };
}

export const searchContacts = sales.tool({
  name: 'search_contacts',
  title: 'Search contacts',
  description:
    'Search people by job title, industry, location and company size; returns previews. ' +
    'Beta; costs credits per page; sales_find_contact (name + company) gives emails and phones.',
  input: z
    .object({
      jobTitles: z.array(z.string().min(1)).max(20).optional().describe('Any of these, e.g. VP Sales'),
      ...criteria,
      location: location.optional().describe("Person's location"),
    })
    .strict(),
  output: z.object({ contacts: z.array(prospect), ...paging }),
  effect: 'read',
  records: 'contacts',
  async run(input, { api }) {
    const { data, ...rest } = await search('contact', input, api);
    const contacts = data.map((c) => toProspect(c));
    return { contacts, ...rest };
  },
});

export const searchCompanies = sales.tool({
  name: 'search_companies',
  title: 'Search companies',
  description:
    'Search companies by industry, location and size; returns companies. ' +
    'Beta; costs credits per page; sales_find_company gives full details.',
  input: z.object({ ...criteria, location: location.optional().describe("Company's location") }).strict(),
  output: z.object({ companies: z.array(companySchema), ...paging }),
  effect: 'read',
  records: 'companies',
  async run(input, { api }) {
    const { data, ...rest } = await search('company', input, api);
    const companies = data.map((c) => toCompany(c));
    return { companies, ...rest };
  },
});
