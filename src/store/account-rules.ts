import { randomBytes } from 'node:crypto';
import { AccountError, connectCommand, InputError } from '../errors.js';
import { checkBaseUrl } from '../http/url-guard.js';
import { PROVIDERS, type Account, type AccountStatus, type NewAccount, type Provider } from './types.js';

/** What every account store checks and says the same way, whatever database holds the accounts. */

export const MAX_LABEL_LENGTH = 64;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
export const STATUSES: readonly AccountStatus[] = ['active', 'needs_reconnect'];
/** "Last used" needs no finer grain than a minute, and every call would pay for a write. */
export const TOUCH_INTERVAL_MS = 60_000;

export function newAccountId(): string {
  return 'acc_' + Array.from(randomBytes(10), (byte) => BASE32[byte % 32]).join('');
}

/** The new account's provider, explicit label and base URL, checked before anything is written. */
export function checkNewAccount(input: NewAccount): { label: string | undefined; baseUrl: string | null } {
  if (!(PROVIDERS as readonly string[]).includes(input.provider)) {
    throw new InputError(`Unknown provider "${input.provider}": use one of ${PROVIDERS.join(', ')}.`, 'provider');
  }
  return {
    label: input.label === undefined ? undefined : checkLabel(input.label),
    baseUrl: input.baseUrl ? checkBaseUrl(input.baseUrl, { name: 'baseUrl', field: 'baseUrl', example: 'https://ghe.example.com/api/v3' }) : null,
  };
}

export function checkLabel(raw: string): string {
  const label = raw.trim();
  if (label.length === 0 || label.length > MAX_LABEL_LENGTH) {
    throw new InputError(`The label must be 1 to ${MAX_LABEL_LENGTH} characters long (got ${label.length}).`, 'label');
  }
  if (CONTROL_CHARACTERS.test(label)) throw new InputError('The label must not contain control characters.', 'label');
  return label;
}

export function checkStatus(status: AccountStatus): void {
  if (!STATUSES.includes(status)) throw new InputError(`Unknown account status "${status}": use ${STATUSES.join(' or ')}.`, 'status');
}

export function defaultLabelBase(input: NewAccount): string {
  const fromIdentity = (input.identity ?? '').replace(new RegExp(CONTROL_CHARACTERS, 'g'), '').trim().slice(0, MAX_LABEL_LENGTH).trim();
  return fromIdentity || input.provider;
}

/** `base`, else `base 2`, `base 3`… (shortened to fit), the first that `taken` does not hold. */
export function freeLabel(base: string, taken: (label: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = ` ${n}`;
    const candidate = base.slice(0, MAX_LABEL_LENGTH - suffix.length).trimEnd() + suffix;
    if (!taken(candidate)) return candidate;
  }
}

export function labelCollision(provider: string, label: string, suggestion: string): InputError {
  return new InputError(
    `A ${provider} account is already labelled "${label}". Choose another label, for example "${suggestion}", or rename the existing one.`,
    'label',
  );
}

export function labelOfSeveralProviders(label: string, matches: Account[]): InputError {
  const listed = matches.map((m) => `${m.label} (${m.provider}, ${m.id})`).join('; ');
  return new InputError(`The label "${label}" matches accounts at several providers: ${listed}. Use the account id, or name the provider.`, 'account');
}

export function noSuchAccount(ref: string, all: Account[]): InputError {
  const known = all.length
    ? `Connected accounts: ${all.map((a) => `"${a.label}" (${a.provider}, ${a.id})`).join(', ')}. Use one of these labels or ids.`
    : 'No accounts are connected.';
  return new InputError(`No account "${ref}". ${known}`, 'account');
}

/** No account to resolve: how to connect one, or which labels to choose from. */
export function missingAccount(provider: Provider, ref: string | undefined, ofProvider: Account[]): AccountError {
  if (ofProvider.length === 0) {
    const asked = ref === undefined ? '' : `No ${provider} account "${ref}". `;
    return new AccountError(`${asked}No ${provider} account is connected. Connect one with: ${connectCommand(provider)}.`);
  }
  const labels = ofProvider.map((a) => `"${a.label}"${a.isDefault ? ' (default)' : ''}`).join(', ');
  const head = ref === undefined ? `Several ${provider} accounts are connected and none is the default.` : `No ${provider} account "${ref}".`;
  return new AccountError(`${head} Connected ${provider} accounts: ${labels}. Pass one of these labels as "account".`);
}

/**
 * The account a call without `account` uses, among the accounts of one provider that `owner` may use: the owner's own
 * default, else the only one. Resolving an account and every "default" shown (accounts_list, the accounts resource,
 * the Integrations page, error texts) come from here, so the two cannot disagree.
 */
export function defaultAmong<R extends { owner: string; is_default: number | boolean }>(rows: R[], owner: string): R | undefined {
  return rows.find((row) => row.owner === owner && (row.is_default === 1 || row.is_default === true)) ?? (rows.length === 1 ? rows[0] : undefined);
}

/** `rows` as `owner` sees them, each marked default exactly when defaultAmong picks it among the rows of its provider. */
export function withDefaults<R extends { id: string; owner: string; provider: string; is_default: number | boolean }>(rows: R[], owner: string): Array<{ row: R; isDefault: boolean }> {
  const byProvider = new Map<string, R[]>();
  for (const row of rows) {
    const ofProvider = byProvider.get(row.provider);
    if (ofProvider) ofProvider.push(row);
    else byProvider.set(row.provider, [row]);
  }
  const defaults = new Set([...byProvider.values()].map((ofProvider) => defaultAmong(ofProvider, owner)?.id));
  return rows.map((row) => ({ row, isDefault: defaults.has(row.id) }));
}

export function unknownId(id: string): InputError {
  return new InputError(`No account with id "${id}".`, 'id');
}
