import * as z from 'zod/v4';
import { AccountError, InputError, ProviderError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import { OUTLOOK_PERMISSION_GROUPS, PROVIDER_RECORDS } from '../../providers.js';
import type { Account } from '../../store/types.js';

/** The specification's permission groups (section 5), each with the Graph scopes that grant it. */
export const OUTLOOK_GROUPS = OUTLOOK_PERMISSION_GROUPS;

export type OutlookGroup = keyof typeof OUTLOOK_GROUPS;

/** What an Outlook account gets when nothing says otherwise: the permissions the specification lists. */
export const DEFAULT_OUTLOOK_GROUPS = PROVIDER_RECORDS.outlook.permissionGroups.defaults as readonly OutlookGroup[] as OutlookGroup[];

export function isOutlookGroup(value: string): value is OutlookGroup {
  return Object.hasOwn(OUTLOOK_GROUPS, value);
}

function reconnectHint(account: Account, group: OutlookGroup): string {
  const groups = [...new Set([...account.groups, group])].join(',');
  return (
    `Reconnect it with that group: switchboard accounts add outlook --label "${account.label}" --groups ${groups} ` +
    `(after switchboard accounts remove ${account.id}), or use another account: accounts_list {"provider":"outlook","group":"${group}"}.`
  );
}

/** Refuses a tool whose permission group the account was not granted, before anything is sent. */
export function requireGroup(account: Account, group: OutlookGroup): void {
  if (account.groups.length === 0 || account.groups.includes(group)) return;
  throw new AccountError(`The Outlook account "${account.label}" was not granted the ${group} permission group. ${reconnectHint(account, group)}`);
}

/** Runs a Graph call, turning a 403 into what to do: delegated access for a shared mailbox, else the missing group. */
export async function withGraphHints<T>(account: Account, group: OutlookGroup, mailbox: string | undefined, call: () => Promise<T>): Promise<T> {
  requireGroup(account, group);
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ProviderError) || error.status !== 403) throw error;
    if (mailbox) {
      throw new AccountError(
        `Graph refused access to the mailbox "${mailbox}" (403 ${error.code ?? ''}): the signed-in user needs delegated access to it ` +
          '(Full Access, or a folder permission granted by its owner or an admin). Omit "mailbox" to use your own.',
      );
    }
    throw new AccountError(`Graph refused the request (403 ${error.code ?? ''}: ${error.providerMessage ?? ''}). The ${group} permission group may be missing. ${reconnectHint(account, group)}`);
  }
}

export const mailboxField = z.string().min(1).optional();

/** Graph paths of the signed-in user, or of a shared mailbox (the specification's /users/{userId}/...). */
export function mailboxPath(mailbox: string | undefined): string {
  return mailbox ? `/users/${encodeURIComponent(mailbox)}` : '/me';
}

export const limitField = (max: number, fallback: number) =>
  z.number().int().min(1).max(max).optional().describe(`Default ${fallback}`);

export const cursorField = z.string().optional();

const CURSOR_PREFIX = 'g1.';

/** The cursor is Graph's nextLink, kept opaque. */
export function encodeCursor(nextLink: string | undefined): string | null {
  return nextLink ? CURSOR_PREFIX + Buffer.from(nextLink, 'utf8').toString('base64url') : null;
}

export function decodeCursor(cursor: string): string {
  if (!cursor.startsWith(CURSOR_PREFIX)) throw new InputError('"cursor" is not a next_cursor from this tool; omit it to start from the first page.', 'cursor');
  return Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8');
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** One page of a Graph list: the first from `endpoint`, later ones from the cursor (the URL guard still applies). */
export async function graphPage<T>(api: Api, endpoint: string, cursor: string | undefined, headers?: Record<string, string>): Promise<Page<T>> {
  const res = await api.request({ method: 'GET', endpoint: cursor ? decodeCursor(cursor) : endpoint, endpointField: cursor ? 'cursor' : 'endpoint', headers });
  const body = res.body as { value?: T[]; '@odata.nextLink'?: string };
  return { items: body.value ?? [], next_cursor: encodeCursor(body['@odata.nextLink']) };
}

/** Builds a query string the way Graph wants it: `$` names kept, values percent-encoded. */
export function graphQuery(params: Record<string, string | number | boolean | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** OData string literal: single quotes doubled. */
export function odataString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export const emailAddressShape = z.object({ name: z.string().nullable(), address: z.string().nullable() });

export function person(r: { emailAddress?: { name?: string | null; address?: string | null } } | null | undefined): z.infer<typeof emailAddressShape> | null {
  if (!r?.emailAddress) return null;
  return { name: r.emailAddress.name ?? null, address: r.emailAddress.address ?? null };
}
