import * as z from 'zod/v4';
import type { ConnectorSpec } from '../tool.js';

/** Every result carries the quota left, read from the latest response's x-ratelimit-* headers (specification 7). */
export const rateLimitExtras: NonNullable<ConnectorSpec['resultExtras']> = {
  shape: {
    rate_limit: z
      .record(z.string(), z.number())
      .optional()
      .describe('quota'),
  },
  from: (api) => {
    const { remaining, limit, reset } = api.rateLimit;
    return remaining === undefined && limit === undefined ? {} : { rate_limit: { remaining, limit, reset } };
  },
};
