import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { accountBaseUrl } from '../../src/accounts/base-url.js';
import { formatAccounts } from '../../src/accounts/commands.js';
import { InputError } from '../../src/errors.js';
import { MIGRATIONS, openStore } from '../../src/store/index.js';
import { rollBackToSchema6, schemaVersion } from '../store/states.js';

/** Checking an account's --base-url, and storing it: a new column that existing stores gain without losing anything. */

function refusal(run: () => unknown): InputError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error('expected an InputError');
}

describe('accountBaseUrl', () => {
  it("takes GitHub Enterprise Server, GHE.com and Microsoft's national clouds, without the trailing slash", () => {
    expect(accountBaseUrl('github', 'https://ghe.example.com/api/v3/')).toBe('https://ghe.example.com/api/v3');
    expect(accountBaseUrl('github', 'https://api.octocorp.ghe.com')).toBe('https://api.octocorp.ghe.com');
    expect(accountBaseUrl('outlook', 'https://graph.microsoft.us/v1.0')).toBe('https://graph.microsoft.us/v1.0');
    expect(accountBaseUrl('outlook', ' https://dod-graph.microsoft.us/v1.0 ')).toBe('https://dod-graph.microsoft.us/v1.0');
    expect(accountBaseUrl('outlook', 'https://MicrosoftGraph.ChinaCloudApi.cn/v1.0')).toBe('https://microsoftgraph.chinacloudapi.cn/v1.0');
  });

  it('takes plain http only on loopback, for tests and the sandbox', () => {
    expect(accountBaseUrl('github', 'http://127.0.0.1:4010/api/v3')).toBe('http://127.0.0.1:4010/api/v3');
    expect(accountBaseUrl('github', 'http://[::1]:4010')).toBe('http://[::1]:4010');
    expect(accountBaseUrl('outlook', 'http://localhost:4010')).toBe('http://localhost:4010');
    const plain = refusal(() => accountBaseUrl('github', 'http://ghe.example.com/api/v3'));
    expect(plain.message).toBe('--base-url must use https (plain http only on 127.0.0.1, [::1] or localhost): give https://ghe.example.com/api/v3.');
    expect(plain.field).toBe('base-url');
    expect(refusal(() => accountBaseUrl('github', 'http://10.0.0.5/api/v3')).message).toMatch(/must use https/);
  });

  it('refuses credentials in the URL without repeating them', () => {
    const error = refusal(() => accountBaseUrl('github', 'https://octo:hunter2secret@ghe.example.com/api/v3'));
    expect(error.message).toContain('--base-url must not hold a user name or password');
    expect(error.message).toContain('Give https://ghe.example.com/api/v3.');
    expect(error.message).not.toMatch(/hunter2secret|octo:/);
  });

  it('refuses a query or fragment without repeating it, and what is not an https URL', () => {
    const query = refusal(() => accountBaseUrl('github', 'https://ghe.example.com/api/v3?access_token=ghp_query_secret'));
    expect(query.message).toMatch(/^--base-url takes no query/);
    expect(query.message).not.toContain('ghp_query_secret');
    expect(refusal(() => accountBaseUrl('github', 'https://ghe.example.com/api/v3#x')).message).toMatch(/no query \(\?\.\.\.\) or fragment/);
    expect(refusal(() => accountBaseUrl('github', 'ghe.example.com/api/v3')).message).toBe(
      '--base-url must be an absolute https URL such as https://ghe.example.com/api/v3.',
    );
    expect(refusal(() => accountBaseUrl('outlook', 'ftp://graph.microsoft.us/v1.0')).message).toMatch(/must be an https URL such as https:\/\/graph\.microsoft\.us\/v1\.0; ftp: URLs are not accepted/);
  });

  it('says where the API lives when only a host is given', () => {
    expect(refusal(() => accountBaseUrl('github', 'https://ghe.example.com')).message).toBe(
      '--base-url: GitHub Enterprise Server serves its API under /api/v3: give https://ghe.example.com/api/v3.',
    );
    expect(refusal(() => accountBaseUrl('outlook', 'https://graph.microsoft.us/')).message).toBe(
      "--base-url: Microsoft Graph's base URL ends in its version: give https://graph.microsoft.us/v1.0.",
    );
  });

  it('names the field as the Integrations page shows it', () => {
    const error = refusal(() => accountBaseUrl('github', 'http://ghe.example.com/api/v3', 'The API base URL', 'base_url'));
    expect(error.message).toMatch(/^The API base URL must use https/);
    expect(error.field).toBe('base_url');
  });
});

describe('the store', () => {
  it('keeps the base URL with the account, and lists it in the table only when some account has one', async () => {
    const store = await openStore({ dataDir: mkdtempSync(join(os.tmpdir(), 'switchboard-hosts-')) });
    try {
      const plain = await store.accounts.add({ provider: 'github', label: 'dotcom', identity: 'octo', secret: { kind: 'token', token: 'ghp_one' } });
      expect(plain.baseUrl).toBeNull();
      expect(formatAccounts(await store.accounts.list())).not.toContain('BASE URL');
      const enterprise = await store.accounts.add({ provider: 'github', label: 'work', identity: 'octo', baseUrl: 'https://ghe.example.com/api/v3', secret: { kind: 'token', token: 'ghp_two' } });
      expect((await store.accounts.resolve('github', 'work')).account.baseUrl).toBe('https://ghe.example.com/api/v3');
      const table = formatAccounts(await store.accounts.list());
      expect(table).toMatch(/^PROVIDER\s+LABEL\s+IDENTITY\s+TEAM\s+BASE URL\s+STATUS\s+ID$/m);
      expect(table).toMatch(new RegExp(`^github\\s+work\\s+octo\\s+-\\s+https://ghe\\.example\\.com/api/v3\\s+active\\s+${enterprise.id}$`, 'm'));
      expect(table).toMatch(new RegExp(`^github\\s+dotcom \\(default\\)\\s+octo\\s+-\\s+-\\s+active\\s+${plain.id}$`, 'm'));
      await expect(store.accounts.add({ provider: 'github', baseUrl: 'http://ghe.example.com', secret: { kind: 'token', token: 'ghp_three' } })).rejects.toThrow(/baseUrl must use https/);
    } finally {
      await store.close();
    }
  });

  it('opens a store written before base URLs existed, keeping its accounts on the default host', async () => {
    const dataDir = mkdtempSync(join(os.tmpdir(), 'switchboard-hosts-'));
    const first = await openStore({ dataDir, secretKey: 'k' });
    const before = await first.accounts.add({ provider: 'github', label: 'old', identity: 'octo', secret: { kind: 'token', token: 'ghp_old_secret' } });
    await first.close();
    rollBackToSchema6(dataDir);

    const store = await openStore({ dataDir, secretKey: 'k' });
    try {
      expect(schemaVersion(dataDir)).toBe(MIGRATIONS.at(-1)!.version);
      const { account, secret } = await store.accounts.resolve('github', 'old');
      expect(account).toEqual({ ...before, baseUrl: null });
      expect(secret.token).toBe('ghp_old_secret');
    } finally {
      await store.close();
    }
  });
});
