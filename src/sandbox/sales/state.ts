/** What both dialects of the sales sandbox share: the records, matching, credits and errors. */

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

export const MAX_BULK = 100;

export class SalesError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const lower = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : '');
export const normUrl = (v: unknown) =>
  lower(v).replace(/^https?:\/\//, '').replace(/^(www|[a-z]{2})\.(?=linkedin\.com)/, '').replace(/^www\./, '').replace(/[?#].*$/, '').replace(/\/+$/, '');
export const normDomain = (v: unknown) => normUrl(v).split('/')[0]!;

/** Identifying data of one person, whatever the dialect called the fields. */
export interface PersonIds {
  email?: unknown;
  linkedin?: unknown;
  first?: unknown;
  last?: unknown;
  fullName?: unknown;
  company?: unknown;
}

export type Lookup<T> = { record: T | null; cost: number } | { invalid: string };

/** Spec dialect: a person costs 1 credit, or 2 when phone numbers are returned. */
export const specPersonCost = (p: SalesPerson) => (p.phoneNumbers.length ? 2 : 1);

export function matchPerson(state: SalesState, ids: PersonIds, invalid: string): Lookup<SalesPerson> {
  const email = lower(ids.email);
  const linkedin = normUrl(ids.linkedin);
  const first = lower(ids.first);
  const last = lower(ids.last);
  const full = lower(ids.fullName) || (first && last ? `${first} ${last}` : '');
  const company = lower(ids.company);
  if (!email && !linkedin && !(full && company)) return { invalid };
  const record =
    state.people.find(
      (p) =>
        (email && p.emailAddresses.some((e) => e.email.toLowerCase() === email)) ||
        (linkedin && normUrl(p.socialLinks.linkedin) === linkedin) ||
        (full && company && p.fullName.toLowerCase() === full && (p.company.name.toLowerCase() === company || p.company.domain === normDomain(company))),
    ) ?? null;
  return { record, cost: record ? specPersonCost(record) : 0 };
}

export function matchCompany(state: SalesState, ids: { domain?: unknown; name?: unknown }, invalid: string): Lookup<SalesCompany> {
  const domain = normDomain(ids.domain ?? '');
  const name = lower(ids.name);
  if (!domain && !name) return { invalid };
  const record = state.companies.find((c) => (domain && c.domain === domain) || (name && c.name.toLowerCase() === name)) ?? null;
  return { record, cost: record ? 1 : 0 };
}

export function creditsLeft(state: SalesState): number {
  return state.credits.total - state.credits.used;
}

export function charge(state: SalesState, cost: number): void {
  if (state.credits.used + cost > state.credits.total) {
    throw new SalesError(402, `Not enough credits: this lookup needs ${cost}, ${creditsLeft(state)} left until ${state.credits.resetDate}.`);
  }
  state.credits.used += cost;
}

/** Charges a bulk record if the credits allow; false when they do not. */
export function tryCharge(state: SalesState, cost: number): boolean {
  if (state.credits.used + cost > state.credits.total) return false;
  state.credits.used += cost;
  return true;
}
