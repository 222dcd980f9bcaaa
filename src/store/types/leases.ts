/** Named leases: one holder at a time (the runner, a token refresh, a webhook set-up), until it stops renewing. */
export interface LeaseStore {
  /** Takes or renews a named lease; true while `holder` holds it. Without `now`, on the store's clock. */
  acquire(name: string, holder: string, ttlMs: number, now?: number): Promise<boolean>;
  release(name: string, holder: string): Promise<void>;
}

/** Each running server keeps a lease named this plus its holder id renewed while it runs. */
export const INSTANCE_LEASE_PREFIX = 'instance:';
