import { Agent } from 'undici';
import type { Config } from '../config.js';
import { CONNECTORS } from '../connectors/index.js';
import { DEFAULT_OUTLOOK_GROUPS, isOutlookGroup, OUTLOOK_GROUPS } from '../connectors/outlook/common.js';
import { InputError } from '../errors.js';
import { Redactor } from '../redact.js';
import { openStore } from '../store/index.js';
import { PROVIDERS, type Account, type AccountSecret, type Provider } from '../store/types.js';

export function checkProvider(value: string | undefined): Provider {
  if (!value || !(PROVIDERS as readonly string[]).includes(value)) {
    throw new InputError(`Name a provider: ${PROVIDERS.join(', ')} (got ${value ? `"${value}"` : 'nothing'}).`, 'provider');
  }
  return value as Provider;
}

/** Checks a credential with the provider (who is it?) and stores it encrypted. Nothing is stored when the check fails. */
export async function addAccount(
  config: Config,
  input: { provider: Provider; secret: AccountSecret; label?: string; teamId?: string; groups?: string[]; dialect?: string },
): Promise<Account> {
  const groups = accountGroups(input.provider, input.groups);
  const redactor = new Redactor();
  redactor.add(input.secret.token);
  redactor.add(input.secret.apiKey);
  const connector = CONNECTORS[input.provider];
  const draft: Account = {
    id: 'new',
    provider: input.provider,
    label: input.label ?? input.provider,
    identity: null,
    isDefault: false,
    status: 'active',
    groups: [],
    scopes: [],
    meta: { ...(input.teamId ? { teamId: input.teamId } : {}), ...salesDialect(input.provider, input.dialect) },
    createdAt: new Date().toISOString(),
    lastUsedAt: null,
  };
  const dispatcher = new Agent({ connect: { timeout: 10_000 } });
  try {
    const api = connector.api(draft, input.secret, { baseUrls: config.baseUrls, dispatcher });
    const found = await connector.identify(api);
    const store = await openStore({ dataDir: config.dataDir, secretKey: config.secretKey, redactor });
    try {
      return await store.accounts.add({
        provider: input.provider,
        label: input.label,
        identity: found.identity,
        scopes: found.scopes,
        groups,
        meta: { ...draft.meta, ...found.meta },
        secret: input.secret,
      });
    } finally {
      await store.close();
    }
  } finally {
    await dispatcher.close();
  }
}

/** Sales accounts speak the specification's API or Lusha's current v2 API. */
function salesDialect(provider: Provider, dialect: string | undefined): Record<string, string> {
  if (dialect === undefined) return {};
  if (provider !== 'sales') throw new InputError('--dialect applies to sales accounts only.', 'dialect');
  if (dialect !== 'spec' && dialect !== 'v2') throw new InputError(`--dialect must be spec or v2, not "${dialect}".`, 'dialect');
  return { dialect };
}

/** Outlook accounts record their permission groups; other providers have none. */
function accountGroups(provider: Provider, given: string[] | undefined): string[] {
  if (provider !== 'outlook') {
    if (given?.length) throw new InputError('--groups applies to Outlook accounts only.', 'groups');
    return [];
  }
  if (!given?.length) return [...DEFAULT_OUTLOOK_GROUPS];
  const unknown = given.filter((g) => !isOutlookGroup(g));
  if (unknown.length) {
    throw new InputError(`--groups: unknown group(s) ${unknown.join(', ')}; choose from ${Object.keys(OUTLOOK_GROUPS).join(', ')}.`, 'groups');
  }
  return [...new Set(given)];
}

export async function listAccounts(config: Config): Promise<Account[]> {
  const store = await openStore({ dataDir: config.dataDir, secretKey: config.secretKey });
  try {
    return await store.accounts.list();
  } finally {
    await store.close();
  }
}

export async function removeAccount(config: Config, ref: string): Promise<Account> {
  const store = await openStore({ dataDir: config.dataDir, secretKey: config.secretKey });
  try {
    return await store.accounts.remove(ref);
  } finally {
    await store.close();
  }
}

export function formatAccounts(accounts: Account[]): string {
  if (accounts.length === 0) return 'No accounts connected. Add one with: switchboard accounts add <outlook|sales|github|vercel> --token-stdin';
  const rows = accounts.map((a) => [a.provider, a.label + (a.isDefault ? ' (default)' : ''), a.identity ?? '-', a.status, a.id]);
  const header = ['PROVIDER', 'LABEL', 'IDENTITY', 'STATUS', 'ID'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}
