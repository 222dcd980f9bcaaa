import * as z from 'zod/v4';
import type { AccountContext } from '../../tool.js';
import { runBatches } from './batch.js';
import { lookupCache } from './cache.js';
import { sales } from './connector.js';
import { BATCH_SIZE, dialectOf, lookupBatch, type Outcome } from './dialect.js';
import { refreshField } from './lookup.tools.js';
import { cacheKey, companyFields, companyQuery, companySchema, personFields, personQuery, personSchema, type Kind, type QueryOf, type RecordOf } from './records.js';

/** Bulk requests in flight at once. */
export const CONCURRENCY = 3;
export const MAX_RECORDS = 10_000;

const common = (field: 'contact' | 'company', schema: z.ZodType) =>
  z.object({
    status: z.enum(['matched', 'no_match', 'error']),
    [field]: schema.optional(),
    error: z.string().optional(),
    cached: z.boolean().optional(),
    credits_used: z.number().optional(),
  });

const output = (field: 'contact' | 'company', schema: z.ZodType) =>
  z.object({
    results: z.array(common(field, schema)).describe('one per record, in input order'),
    matched: z.number().int(),
    no_match: z.number().int(),
    errors: z.number().int(),
    credits_used: z.number().describe('cached answers cost 0'),
    credits_remaining: z.number().optional(),
  });

type Result<R> = { status: Outcome<R>['status']; record?: R; error?: string; cached?: boolean; credits_used?: number };

/**
 * Validates every record, answers what the cache can, sends each distinct identifier once in provider-sized
 * batches, and fans the answers back out to the input positions, reporting progress as batches settle.
 */
async function enrich<K extends Kind>(kind: K, records: Array<Record<string, string | undefined>>, refresh: boolean | undefined, ctx: AccountContext) {
  const total = records.length;
  const results: Result<RecordOf<K>>[] = new Array(total);
  const pending = new Map<string, { key: string; query: QueryOf<K>; indices: number[] }>();
  records.forEach((record, i) => {
    const query = kind === 'person' ? personQuery(record) : companyQuery(record);
    if ('invalid' in query) {
      results[i] = { status: 'error', error: `Not sent: ${query.invalid}`, credits_used: 0 };
      return;
    }
    const key = cacheKey(query);
    const entry = pending.get(key);
    if (entry) entry.indices.push(i);
    else pending.set(key, { key, query: query as QueryOf<K>, indices: [i] });
  });

  const cache = await lookupCache(ctx, kind);
  if (!refresh) {
    for (const [key, record] of await cache.get([...pending.keys()])) {
      for (const i of pending.get(key)!.indices) results[i] = { status: 'matched', record, cached: true, credits_used: 0 };
      pending.delete(key);
    }
  }

  const unique = [...pending.values()];
  let done = total - unique.reduce((n, u) => n + u.indices.length, 0);
  if (done > 0 && unique.length > 0) await ctx.progress(done, total, `${done} of ${total} answered from the cache or refused before sending`);
  let creditsUsed = 0;
  let creditsRemaining: number | undefined;
  const dialect = dialectOf(ctx.account, ctx.api.baseUrl);

  await runBatches({
    queries: unique,
    size: BATCH_SIZE[dialect],
    concurrency: CONCURRENCY,
    policy: ctx.deps.retry,
    signal: ctx.signal,
    send: (batch) => lookupBatch(ctx.api, dialect, kind, batch.map((u) => u.query)),
    async settled(start, outcomes, credits) {
      const toCache: Array<[string, RecordOf<K>]> = [];
      outcomes.forEach((outcome, j) => {
        const { key, indices } = unique[start + j]!;
        indices.forEach((i, n) => {
          // A repeated identifier was sent once: its first position carries the credits.
          const credits = n === 0 ? outcome.credits : 0;
          results[i] = {
            status: outcome.status,
            ...(outcome.status === 'matched' ? { record: outcome.record } : {}),
            ...(outcome.status === 'error' ? { error: outcome.error } : {}),
            ...(credits !== undefined ? { credits_used: credits } : {}),
          };
        });
        if (outcome.status === 'matched') toCache.push([key, outcome.record]);
        done += indices.length;
      });
      creditsUsed += credits.used ?? 0;
      if (credits.remaining !== undefined) creditsRemaining = Math.min(creditsRemaining ?? Infinity, credits.remaining);
      await cache.put(toCache);
      await ctx.progress(done, total, `${done} of ${total} records looked up`);
    },
  });

  const count = (status: Result<unknown>['status']) => results.filter((r) => r.status === status).length;
  const field = kind === 'person' ? 'contact' : 'company';
  return {
    results: results.map(({ record, ...r }) => ({ ...r, ...(record ? { [field]: record } : {}) })),
    matched: count('matched'),
    no_match: count('no_match'),
    errors: count('error'),
    credits_used: creditsUsed,
    ...(creditsRemaining !== undefined ? { credits_remaining: creditsRemaining } : {}),
  };
}

export const enrichContacts = sales.tool({
  name: 'enrich_contacts',
  title: 'Enrich contacts',
  description:
    'Look up to 10,000 people (each by email, LinkedIn URL, or first + last name + company) in batches, with progress. ' +
    'Beta; costs credits per match unless cached.',
  input: z
    .object({
      contacts: z.array(z.object(personFields).strict()).min(1).max(MAX_RECORDS).describe('Each with exactly one identifying combination'),
      refresh: refreshField,
    })
    .strict(),
  output: output('contact', personSchema),
  effect: 'read',
  run: ({ contacts, refresh }, ctx) => enrich('person', contacts, refresh, ctx),
});

export const enrichCompanies = sales.tool({
  name: 'enrich_companies',
  title: 'Enrich companies',
  description:
    'Look up to 10,000 companies (each by domain or name) in batches, with progress. ' +
    'Beta; costs credits per match unless cached.',
  input: z
    .object({
      companies: z.array(z.object(companyFields).strict()).min(1).max(MAX_RECORDS).describe('Each by domain or name'),
      refresh: refreshField,
    })
    .strict(),
  output: output('company', companySchema),
  effect: 'read',
  run: ({ companies, refresh }, ctx) => enrich('company', companies, refresh, ctx),
});
