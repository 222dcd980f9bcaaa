import * as z from 'zod/v4';

/** The compact shapes every sales tool returns, whichever dialect the account speaks. */
export const personSchema = z
  .object({
    name: z.string(),
    jobTitle: z.string().optional(),
    company: z.string().optional(),
    companyDomain: z.string().optional(),
    emails: z.array(z.string()),
    phones: z.array(z.string()),
    location: z.string().optional(),
    social: z.record(z.string(), z.string()).optional(),
    confidence: z.string().optional(),
  })
  .describe('work emails first; phones "number (type[, do not call])"');

export const companySchema = z
  .object({
    name: z.string(),
    domain: z.string().optional(),
    size: z.string().optional(),
    industry: z.string().optional(),
    location: z.string().optional(),
    revenue: z.string().optional(),
    technologies: z.array(z.string()).optional(),
    social: z.record(z.string(), z.string()).optional(),
  })
  .describe('size: employees');

export type Person = z.infer<typeof personSchema>;
export type Company = z.infer<typeof companySchema>;
export type Kind = 'person' | 'company';

/** Input fields of one person and of one company, shared by the find and enrich tools. */
export const personFields = {
  email: z.string().optional().describe('Email address'),
  linkedInUrl: z.string().optional().describe('linkedin.com/in/... URL'),
  firstName: z.string().optional().describe('With lastName and company'),
  lastName: z.string().optional().describe('With firstName and company'),
  company: z.string().optional().describe('Name or domain, with firstName and lastName'),
};
export const companyFields = {
  domain: z.string().optional().describe('e.g. acme.com'),
  name: z.string().optional().describe('Company name'),
};

export type PersonQuery =
  | { by: 'email'; email: string }
  | { by: 'linkedin'; linkedInUrl: string }
  | { by: 'name'; firstName: string; lastName: string; company: string };
export type CompanyQuery = { by: 'domain'; domain: string } | { by: 'name'; name: string };
export type QueryOf<K extends Kind> = K extends 'person' ? PersonQuery : CompanyQuery;
export type RecordOf<K extends Kind> = K extends 'person' ? Person : Company;

export const PERSON_COMBINATIONS = 'email; or linkedInUrl; or firstName + lastName + company';

/** A caller mistake in one record: the message, and the field to name. */
export interface Invalid {
  invalid: string;
  field: string;
}

const trimmed = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

/** Lower-case host and path, no scheme, `www.` or query: `linkedin.com/in/jane-doe`. */
export function canonicalLinkedIn(url: string): string | undefined {
  const bare = url.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/[?#].*$/, '').replace(/\/+$/, '');
  const m = /^(?:[a-z]{2,3}\.)?linkedin\.com\/(in|pub)\/([^/\s]+)$/.exec(bare);
  return m ? `linkedin.com/${m[1]}/${m[2]}` : undefined;
}

export function normalizeDomain(value: string): string {
  return value.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/^www\./, '').split(/[/?#]/)[0]!.replace(/\.$/, '');
}

/** A company given as `acme.com` or `https://www.acme.com/` rather than a name. */
export function looksLikeDomain(value: string): boolean {
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(normalizeDomain(value)) && !/\s/.test(value.trim());
}

/** Exactly one identifying combination, or what is wrong. */
export function personQuery(input: { email?: string; linkedInUrl?: string; firstName?: string; lastName?: string; company?: string }): PersonQuery | Invalid {
  const given = (['email', 'linkedInUrl', 'firstName', 'lastName', 'company'] as const).filter((k) => trimmed(input[k]) !== '');
  const set = given.join('+');
  const wrong = (why: string, field = given[0] ?? 'email'): Invalid => ({
    invalid: `${why} Give exactly one identifying combination: ${PERSON_COMBINATIONS}.`,
    field,
  });
  if (set === 'email') {
    const email = trimmed(input.email);
    return /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email) ? { by: 'email', email: email.toLowerCase() } : wrong(`"email" ${JSON.stringify(email.slice(0, 80))} is not an email address.`, 'email');
  }
  if (set === 'linkedInUrl') {
    const canonical = canonicalLinkedIn(trimmed(input.linkedInUrl));
    return canonical
      ? { by: 'linkedin', linkedInUrl: `https://www.${canonical}` }
      : wrong('"linkedInUrl" must be a LinkedIn profile URL such as https://www.linkedin.com/in/jane-doe.', 'linkedInUrl');
  }
  if (set === 'firstName+lastName+company') {
    return { by: 'name', firstName: trimmed(input.firstName), lastName: trimmed(input.lastName), company: trimmed(input.company) };
  }
  if (given.length === 0) return wrong('No identifying data was given.');
  const missing = (['firstName', 'lastName', 'company'] as const).filter((k) => !given.includes(k));
  if (!given.includes('email') && !given.includes('linkedInUrl')) {
    return wrong(`${given.join(' + ')} is not enough: add ${missing.join(' and ')}.`, missing[0]);
  }
  return wrong(`${given.join(' + ')} mixes combinations; keep one.`, given[1]);
}

export function companyQuery(input: { domain?: string; name?: string }): CompanyQuery | Invalid {
  const domain = trimmed(input.domain);
  const name = trimmed(input.name);
  if (domain && name) return { invalid: 'Give "domain" or "name", not both.', field: 'name' };
  if (domain) {
    const d = normalizeDomain(domain);
    return looksLikeDomain(d) ? { by: 'domain', domain: d } : { invalid: `"domain" ${JSON.stringify(domain.slice(0, 80))} is not a domain such as acme.com.`, field: 'domain' };
  }
  if (name) return { by: 'name', name };
  return { invalid: 'Give "domain" (like acme.com) or "name".', field: 'domain' };
}

/** The cache key of a query: the same person or company asked the same way gives the same key. */
export function cacheKey(q: PersonQuery | CompanyQuery): string {
  switch (q.by) {
    case 'email':
      return `email:${q.email}`;
    case 'linkedin':
      return `linkedin:${canonicalLinkedIn(q.linkedInUrl)}`;
    case 'domain':
      return `domain:${q.domain}`;
    case 'name':
      if ('firstName' in q) {
        const company = looksLikeDomain(q.company) ? normalizeDomain(q.company) : q.company.toLowerCase().replace(/\s+/g, ' ');
        return `name:${q.firstName.toLowerCase()}|${q.lastName.toLowerCase()}|${company}`;
      }
      return `name:${q.name.toLowerCase().replace(/\s+/g, ' ')}`;
  }
}
