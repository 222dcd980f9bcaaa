import { recordCliAct } from '../governance/acts.js';
import { Agent, type Dispatcher } from 'undici';
import { openCliStore } from '../cli-store.js';
import type { Config } from '../config.js';
import { CONNECTORS } from '../connectors/index.js';
import { type AccountOption, providerRecord } from '../providers.js';
import { accountTeam } from '../connectors/vercel/teams.js';
import { connectCommand, InputError } from '../errors.js';
import { endSubscriptionsFromCli } from '../events/end.js';
import { Redactor } from '../redact.js';
import type { Account, AccountSecret, Provider, Store } from '../store/types.js';
import { didYouMean } from '../suggest.js';

/** Checks a credential with the provider (who is it?) and stores it encrypted. Nothing is stored when the check fails. */
export async function addAccount(
  config: Config,
  input: { provider: Provider; secret: AccountSecret; label?: string; teamId?: string; groups?: string[]; dialect?: string; baseUrl?: string },
): Promise<Account> {
  const redactor = new Redactor();
  const dispatcher = new Agent({ connect: { timeout: 10_000 } });
  try {
    const store = await openCliStore(config, redactor);
    try {
      const account = await connectAccount({ store, baseUrls: config.baseUrls, dispatcher, redactor }, input);
      await recordCliAct(store, config, 'account.added', { account: account.id, target: `${account.provider} ${account.label}` });
      return account;
    } finally {
      await store.close();
    }
  } finally {
    await dispatcher.close();
  }
}

export interface ConnectDeps {
  store: Store;
  baseUrls: Record<Provider, string>;
  dispatcher?: Dispatcher;
  redactor?: Redactor;
}

export interface ConnectInput {
  provider: Provider;
  secret: AccountSecret;
  label?: string;
  /** A Vercel team id or slug; checked with Vercel, and stored as meta teamId, teamSlug and teamName. */
  teamId?: string;
  groups?: string[];
  dialect?: string;
  /** What was asked for, when the provider does not say what it granted. */
  scopes?: string[];
  meta?: Record<string, string>;
  /** The account's own API base URL, already checked (accountBaseUrl); its identity is asked there, and every call goes there. */
  baseUrl?: string;
  /**
   * A sign-in: an account of the provider with this label, or without a label one with the same identity,
   * is signed in again in place (same id, triggers and default) instead of added.
   */
  reconnect?: boolean;
}

/** Asks the provider who the credential belongs to, then adds the account (or reconnects it). Nothing is stored when that fails. */
export async function connectAccount(deps: ConnectDeps, input: ConnectInput): Promise<Account> {
  const explicitGroups = input.groups?.length ? accountGroups(input.provider, input.groups) : undefined;
  const team = vercelTeam(input.provider, input.teamId);
  deps.redactor?.add(input.secret.token);
  deps.redactor?.add(input.secret.apiKey);
  deps.redactor?.add(input.secret.refreshToken);
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
    meta: { ...salesDialect(input.provider, input.dialect), ...input.meta },
    baseUrl: input.baseUrl ?? null,
    createdAt: new Date().toISOString(),
    lastUsedAt: null,
  };
  const api = connector.api(draft, input.secret, { baseUrls: deps.baseUrls, dispatcher: deps.dispatcher });
  const found = await connector.identify(api, { team });
  const scopes = found.scopes?.length ? found.scopes : input.scopes;
  const meta = { ...draft.meta, ...found.meta };
  if (input.reconnect) {
    const existing = await findToReconnect(deps.store, input.provider, input.label, found.identity);
    if (existing) {
      const account = await deps.store.accounts.reconnect(existing.id, { identity: found.identity, groups: explicitGroups, scopes, meta, secret: input.secret });
      // Paused while it needed reconnecting: its triggers poll now, which renews or remakes a Graph subscription.
      await deps.store.work.pollAccountSoon(account.id);
      return account;
    }
  }
  return deps.store.accounts.add({
    provider: input.provider,
    label: input.label,
    identity: found.identity,
    scopes,
    groups: explicitGroups ?? accountGroups(input.provider, undefined),
    meta,
    baseUrl: input.baseUrl,
    secret: input.secret,
  });
}

/** The account a sign-in renews: the one with this label (which must be the same person), else the one with this identity. */
async function findToReconnect(store: Store, provider: Provider, label: string | undefined, identity: string | null): Promise<Account | undefined> {
  const same = (a: Account) => !!identity && !!a.identity && a.identity.toLowerCase() === identity.toLowerCase();
  if (label !== undefined) {
    const byLabel = await store.accounts.find(label.trim(), provider);
    if (!byLabel || byLabel.provider !== provider) return undefined;
    if (byLabel.baseUrl) {
      throw new InputError(
        `The ${provider} account "${byLabel.label}" is at ${byLabel.baseUrl}, and a sign-in reaches only the provider's own host. ` +
          `Connect it again with a token from that host: ${connectCommand(provider, byLabel.label, undefined, byLabel.baseUrl)} (after switchboard accounts remove ${byLabel.id}), or choose another --label.`,
        'label',
      );
    }
    if (byLabel.identity && !same(byLabel)) {
      throw new InputError(
        `The ${provider} account "${byLabel.label}" belongs to ${byLabel.identity}, but ${identity ?? 'someone else'} signed in. ` +
          `Sign in as ${byLabel.identity} to reconnect it, or choose another --label to add a new account.`,
        'label',
      );
    }
    return byLabel;
  }
  return (await store.accounts.list({ provider })).find((a) => same(a) && !a.baseUrl);
}

/** Only Vercel accounts work for a team; an empty value means none. */
function vercelTeam(provider: Provider, teamId: string | undefined): string | undefined {
  const team = teamId?.trim();
  if (!team) return undefined;
  if (!takes(provider, 'team')) throw new InputError('--team applies to Vercel accounts only.', 'team');
  return team;
}

function takes(provider: Provider, option: AccountOption): boolean {
  return providerRecord(provider).accountOptions.includes(option);
}

/** Sales accounts speak the specification's API or Lusha's current v2 API. */
function salesDialect(provider: Provider, dialect: string | undefined): Record<string, string> {
  if (dialect === undefined) return {};
  if (!takes(provider, 'dialect')) throw new InputError('--dialect applies to sales accounts only.', 'dialect');
  if (dialect !== 'spec' && dialect !== 'v2') throw new InputError(`--dialect must be spec or v2, not "${dialect}".${didYouMean(dialect, ['spec', 'v2'])}`, 'dialect');
  return { dialect };
}

/** Outlook accounts record their permission groups; other providers have none. */
export function accountGroups(provider: Provider, given: string[] | undefined): string[] {
  const groups = providerRecord(provider).permissionGroups;
  if (!groups) {
    if (given?.length) throw new InputError('--groups applies to Outlook accounts only.', 'groups');
    return [];
  }
  if (!given?.length) return [...groups.defaults];
  const names = Object.keys(groups.scopes);
  const unknown = given.filter((g) => !Object.hasOwn(groups.scopes, g));
  if (unknown.length) {
    const near = unknown.length === 1 ? didYouMean(unknown[0]!, names) : '';
    throw new InputError(`--groups: unknown group(s) ${unknown.join(', ')}; choose from ${names.join(', ')}.${near}`, 'groups');
  }
  return [...new Set(given)];
}

export async function listAccounts(config: Config): Promise<Account[]> {
  const store = await openCliStore(config);
  try {
    return await store.accounts.list();
  } finally {
    await store.close();
  }
}

export async function removeAccount(config: Config, ref: string, provider?: Provider): Promise<Account> {
  const store = await openCliStore(config);
  try {
    const account = await store.accounts.find(ref, provider);
    if (account) await endSubscriptionsFromCli(config, store, { accountId: account.id }, 'account_removed');
    const removed = await store.accounts.remove(ref, provider);
    await recordCliAct(store, config, 'account.removed', { account: removed.id, target: `${removed.provider} ${removed.label}` });
    return removed;
  } finally {
    await store.close();
  }
}

export function formatAccounts(accounts: Account[]): string {
  if (accounts.length === 0) return 'No accounts connected. Add one with: switchboard accounts add <outlook|sales|github|vercel> --token-stdin';
  const team = (a: Account) => {
    const t = accountTeam(a);
    return t ? (t.slug ?? t.id) : '-';
  };
  // The base URL column only when some account has its own, so the usual table stays narrow.
  const hosts = accounts.some((a) => a.baseUrl);
  const rows = accounts.map((a) => [a.provider, a.label + (a.isDefault ? ' (default)' : ''), a.identity ?? '-', team(a), ...(hosts ? [a.baseUrl ?? '-'] : []), a.status, a.id]);
  const header = ['PROVIDER', 'LABEL', 'IDENTITY', 'TEAM', ...(hosts ? ['BASE URL'] : []), 'STATUS', 'ID'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}
