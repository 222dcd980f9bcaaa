import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../src/errors.js';
import { keepLease, LISTENER_LEASE } from '../src/lease.js';
import type { Logger } from '../src/log.js';
import { openStore, type Store } from '../src/store/index.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function storeForTest(): Promise<Store> {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-lease-'));
  const store = await openStore({ dataDir });
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }), () => store.close());
  return store;
}

function recordingLogger(): Logger & { errors: string[] } {
  const errors: string[] = [];
  const ignore = () => undefined;
  return { errors, debug: ignore, info: ignore, warn: ignore, error: (msg, fields) => errors.push(`${msg}: ${String(fields?.message)}`) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a kept lease', () => {
  it('is current while renewed, and no longer once renewals have failed for its lifetime, though still held as far as it knows', async () => {
    const store = await storeForTest();
    const logger = recordingLogger();
    const lease = await keepLease(store, LISTENER_LEASE, { logger, onChange: async () => undefined, ttlMs: 600, tickMs: 40 });
    cleanups.push(() => lease.stop());
    expect(lease.held).toBe(true);
    expect(lease.current).toBe(true);
    await sleep(300);
    expect(lease.current).toBe(true);

    const unreachable = new StoreUnavailableError('Cannot use the PostgreSQL database: nothing answers', 'reachable', 'unreachable', 'database-url');
    const renewed = lease.renewedAt;
    store.leases.acquire = async () => {
      throw unreachable;
    };
    await sleep(900);
    expect(lease.held).toBe(true);
    expect(lease.current).toBe(false);
    expect(lease.renewedAt).toBeLessThanOrEqual(renewed + 300);
    // The store's own failure is logged once by serve, not by every renewal.
    expect(logger.errors).toEqual([]);

    store.leases.acquire = async () => {
      throw new Error('something else');
    };
    await sleep(100);
    expect(logger.errors[0]).toBe('lease check failed: something else');
  });
});
