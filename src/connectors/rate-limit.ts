import * as z from 'zod/v4';
import type { ConnectorSpec } from '../tool.js';

/** Every result carries the quota left, read from the latest response's x-ratelimit-* headers (specification 7). */
export const rateLimitExtras: NonNullable<ConnectorSpec['resultExtras']> = {
  shape: {
    rate_limit: z
      .object({ remaining: z.number().optional(), limit: z.number().optional(), reset: z.number().optional() })
      .optional()
      .describe('Quota left after this call (reset: epoch s)'),
  },
  from: (api) => {
    const { remaining, limit, reset } = api.rateLimit;
    return remaining === undefined && limit === undefined ? {} : { rate_limit: { remaining, limit, reset } };
  },
};
