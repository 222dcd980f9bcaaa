import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { AccountContext } from '../../tool.js';
import { lookupCache } from './cache.js';
import { sales } from './connector.js';
import { dialectOf, lookupOne } from './dialect.js';
import { cacheKey, companyFields, companyQuery, companySchema, personFields, personQuery, personSchema, type Kind, type QueryOf, type RecordOf } from './records.js';

export const refreshField = z.boolean().optional().describe('Bypass the cache; costs credits');

const answer = {
  cached: z.boolean().describe('from local cache, free'),
  credits_used: z.number(),
  credits_remaining: z.number().optional(),
};
const status = z.enum(['matched', 'no_match']).describe('no_match costs nothing');

/** A cached answer, else one paid lookup whose match is cached. */
async function findOne<K extends Kind>(kind: K, query: QueryOf<K>, refresh: boolean | undefined, ctx: AccountContext) {
  const cache = await lookupCache(ctx, kind);
  const key = cacheKey(query);
  const hit = refresh ? undefined : (await cache.get([key])).get(key);
  if (hit) return { status: 'matched' as const, record: hit as RecordOf<K>, cached: true, credits_used: 0 };
  const { outcome, credits } = await lookupOne(ctx.api, dialectOf(ctx.account, ctx.api.baseUrl), kind, query);
  if (outcome.status === 'matched') await cache.put([[key, outcome.record]]);
  return {
    status: outcome.status === 'matched' ? ('matched' as const) : ('no_match' as const),
    record: outcome.status === 'matched' ? outcome.record : undefined,
    cached: false,
    credits_used: credits.used ?? 0,
    ...(credits.remaining !== undefined ? { credits_remaining: credits.remaining } : {}),
  };
}

export const findContact = sales.tool({
  name: 'find_contact',
  title: 'Find contact',
  description:
    'Find one person by email, LinkedIn URL, or first + last name + company (exactly one). ' +
    'Beta; costs credits unless cached; many people: sales_enrich_contacts.',
  input: z.object({ ...personFields, refresh: refreshField }).strict(),
  output: z.object({ status, contact: personSchema.optional(), ...answer }),
  effect: 'read',
  async run({ refresh, ...input }, ctx) {
    const query = personQuery(input);
    if ('invalid' in query) throw new InputError(query.invalid, query.field);
    const { record, ...rest } = await findOne('person', query, refresh, ctx);
    return { ...rest, ...(record ? { contact: record } : {}) };
  },
});

export const findCompany = sales.tool({
  name: 'find_company',
  title: 'Find company',
  description:
    'Find one company by domain or name: size, industry, location, revenue, technologies. ' +
    'Beta; costs credits unless cached; many companies: sales_enrich_companies.',
  input: z.object({ ...companyFields, refresh: refreshField }).strict(),
  output: z.object({ status, company: companySchema.optional(), ...answer }),
  effect: 'read',
  async run({ refresh, ...input }, ctx) {
    const query = companyQuery(input);
    if ('invalid' in query) throw new InputError(query.invalid, query.field);
    const { record, ...rest } = await findOne('company', query, refresh, ctx);
    return { ...rest, ...(record ? { company: record } : {}) };
  },
});
