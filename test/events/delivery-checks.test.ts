import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import { checkCallbackUrl, checkWebhookSecret } from '../../src/events/delivery-checks.js';
import { DELIVERY_BUDGET_MS, MAX_DELIVERY_ATTEMPTS, nextAttemptAt, RETRY_DELAYS_MS, RETRY_JITTER } from '../../src/events/delivery-schedule.js';

const NAMES: Record<string, string[]> = { 'hooks.example.test': ['93.184.216.34'], 'intranet.test': ['10.0.0.7'] };
const resolve = async (hostname: string) => NAMES[hostname] ?? [];

/** The InputError an action fails with, sync or async. */
const refusal = (action: () => unknown): Promise<InputError> =>
  Promise.resolve()
    .then(action)
    .then(
      () => expect.fail('expected a refusal'),
      (error: unknown) => {
        expect(error).toBeInstanceOf(InputError);
        return error as InputError;
      },
    );

describe('checkWebhookSecret', () => {
  it('accepts whsec_ with padded standard base64 of 24 to 64 bytes', () => {
    for (const size of [24, 32, 64]) {
      const secret = 'whsec_' + randomBytes(size).toString('base64');
      expect(checkWebhookSecret(secret)).toBe(secret);
    }
  });

  it('refuses anything else naming delivery.secret and the rule, never repeating the value', async () => {
    const cases = {
      missingPrefix: randomBytes(32).toString('base64'),
      base64url: 'whsec_' + Buffer.from(Array.from({ length: 32 }, () => 0xfb)).toString('base64url'),
      unpadded: 'whsec_' + randomBytes(25).toString('base64').replace(/=+$/, ''),
      short: 'whsec_' + randomBytes(16).toString('base64'),
      long: 'whsec_' + randomBytes(65).toString('base64'),
    };
    for (const [name, secret] of Object.entries(cases)) {
      const error = await refusal(() => checkWebhookSecret(secret));
      expect(error.field, name).toBe('delivery.secret');
      expect(error.message, name).toContain('"delivery.secret" must be "whsec_" followed by standard padded base64 of 24 to 64 random bytes');
      expect(error.message, name).not.toContain(secret.replace('whsec_', ''));
    }
    expect((await refusal(() => checkWebhookSecret(cases.short))).message).toContain('decodes to 16 bytes');
    expect((await refusal(() => checkWebhookSecret(cases.base64url))).message).toContain('base64url is refused');
    expect((await refusal(() => checkWebhookSecret(undefined))).field).toBe('delivery.secret');
  });
});

describe('checkCallbackUrl', () => {
  it('accepts https to a public host and http to the loopback literals, returning the URL byte for byte', async () => {
    for (const url of ['https://hooks.example.test/mcp?mcp_event_subscription=A%2fb&x=1', 'http://127.0.0.1:4321/hook', 'http://[::1]:4321/hook']) {
      expect(await checkCallbackUrl(url, false, resolve)).toBe(url);
    }
  });

  it('refuses plain http elsewhere, private, metadata and malformed URLs, naming delivery.url', async () => {
    const cases: [string, RegExp][] = [
      ['http://hooks.example.test/hook', /plain http is accepted only to http:\/\/127\.0\.0\.1 or http:\/\/\[::1\].*use https/],
      ['http://localhost:4321/hook', /plain http/],
      ['https://10.0.0.7/hook', /private address/],
      ['https://intranet.test/hook', /resolves only to refused addresses/],
      ['https://169.254.169.254/latest/meta-data', /metadata/],
      ['ftp://hooks.example.test/x', /must use http or https/],
      ['https://user:pw@hooks.example.test/x', /user name or password/],
      ['not a url', /absolute http\(s\) URL/],
      ['', /is required/],
      ['https://hooks.example.test/' + 'a'.repeat(2_100), /at most 2048/],
    ];
    for (const [url, why] of cases) {
      const error = await refusal(() => checkCallbackUrl(url, false, resolve));
      expect(error.field, url).toBe('delivery.url');
      expect(error.message, url).toContain('"delivery.url"');
      expect(error.message, url).toMatch(why);
    }
  });

  it('admits private networks, and plain http to them, only when the operator allows private addresses', async () => {
    expect(await checkCallbackUrl('https://10.0.0.7/hook', true, resolve)).toBe('https://10.0.0.7/hook');
    expect(await checkCallbackUrl('http://intranet.test/hook', true, resolve)).toBe('http://intranet.test/hook');
    await refusal(() => checkCallbackUrl('https://169.254.169.254/', true, resolve));
  });
});

describe('nextAttemptAt', () => {
  it('waits 10 s, 60 s, 3 min and 8 min, then gives up after the fifth attempt', () => {
    const now = 1_000_000;
    expect([1, 2, 3, 4].map((n) => nextAttemptAt(n, now, () => 0.5)! - now)).toEqual([10_000, 60_000, 180_000, 480_000]);
    expect(nextAttemptAt(MAX_DELIVERY_ATTEMPTS, now)).toBeNull();
    expect(nextAttemptAt(9, now)).toBeNull();
    expect(() => nextAttemptAt(0, now)).toThrow(RangeError);
  });

  it('jitters each wait by at most 20%, and even the longest waits fit the 15-minute budget', () => {
    expect(nextAttemptAt(1, 0, () => 0)).toBe(8_000);
    expect(nextAttemptAt(1, 0, () => 0.999_999)).toBe(12_000);
    const longest = RETRY_DELAYS_MS.reduce((sum, wait) => sum + wait * (1 + RETRY_JITTER), 0);
    expect(longest).toBeLessThan(DELIVERY_BUDGET_MS);
    const waits = new Set(Array.from({ length: 20 }, () => nextAttemptAt(2, 0)));
    expect(waits.size).toBeGreaterThan(1);
  });
});
