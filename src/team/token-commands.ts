import { recordCliAct } from '../governance/acts.js';
import type { Config } from '../config.js';
import { InputError } from '../errors.js';
import { endSubscriptionsFromCli } from '../events/end.js';
import type { PersonalToken, TeamUser } from '../store/types.js';
import { findUser, formatTable, withStore } from './commands.js';
import { didYouMean } from '../suggest.js';
import { DEFAULT_TOKEN_EXPIRY, DEFAULT_TOKEN_SCOPE, FULL_SCOPE, READ_SCOPE, TEAM_SCOPES } from './scopes.js';
import { newPersonalToken } from './tokens.js';

/** `switchboard tokens create|list|revoke`: personal access tokens for agents that cannot sign in. */

const MAX_EXPIRY_DAYS = 365;
const HOUR_MS = 3_600_000;
const UNIT_HOURS = { h: 1, d: 24, w: 24 * 7 } as const;

/** `--expires`: hours, days or weeks from now (`12h`, `30d`, `8w`), at least an hour and at most a year. */
function parseExpiry(text: string, now: number): string {
  if (text.trim().toLowerCase() === 'never') {
    throw new InputError(`--expires never is not offered: every token expires, at most ${MAX_EXPIRY_DAYS}d from now; make a new one before it does.`, 'expires');
  }
  const match = /^(\d{1,6})([hdw])$/.exec(text.trim());
  const hours = match ? Number(match[1]) * UNIT_HOURS[match[2] as keyof typeof UNIT_HOURS] : NaN;
  if (!(hours >= 1 && hours <= MAX_EXPIRY_DAYS * 24)) {
    throw new InputError(`--expires takes hours, days or weeks from now, from 1h to ${MAX_EXPIRY_DAYS}d, such as 12h, 30d or 8w; not "${text}".`, 'expires');
  }
  return new Date(now + hours * HOUR_MS).toISOString();
}

function checkScope(scope: string): string {
  if (scope === FULL_SCOPE || scope === READ_SCOPE) return scope;
  throw new InputError(`--scope is ${FULL_SCOPE} (every tool) or ${READ_SCOPE} (only tools that change nothing), not "${scope}".${didYouMean(scope, TEAM_SCOPES)}`, 'scope');
}

function checkName(name: string | undefined): string | null {
  if (name === undefined) return null;
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 100 || /[\p{Cc}]/u.test(trimmed)) throw new InputError('--name is a label of 1 to 100 characters on one line, such as "nightly triage agent".', 'name');
  return trimmed;
}

export interface CreatedToken {
  /** Shown this once; the store keeps only its hash. */
  token: string;
  record: PersonalToken;
  user: TeamUser;
}

export async function createToken(config: Config, o: { user: string; scope?: string; expires?: string; name?: string }): Promise<CreatedToken> {
  const scope = checkScope(o.scope ?? DEFAULT_TOKEN_SCOPE);
  const expiresAt = parseExpiry(o.expires ?? DEFAULT_TOKEN_EXPIRY, Date.now());
  const name = checkName(o.name);
  return withStore(config, async (store) => {
    const user = await findUser(store, o.user, { option: '--user', hint: ' A person signs in to the team server once before a token is made for them.' });
    if (user.disabled) throw new InputError(`--user ${user.login} is disabled: enable them first (switchboard users enable ${user.id}), or name another person.`, 'user');
    const { token, hash } = newPersonalToken();
    const record = await store.team.tokens.create({ owner: user.id, name, scope, tokenHash: hash, expiresAt });
    await recordCliAct(store, config, 'token.created', { target: `${record.id} for ${user.id}` });
    return { token, record, user };
  });
}

/** A token as `tokens list` prints it; its JSON names the person `userId`, as it always has. */
export interface ListedToken extends Omit<PersonalToken, 'owner'> {
  userId: string;
  login: string;
  status: 'active' | 'expired' | 'revoked';
}

export async function listTokens(config: Config, o: { user?: string } = {}): Promise<ListedToken[]> {
  return withStore(config, async (store) => {
    const only = o.user === undefined ? undefined : (await findUser(store, o.user, { option: '--user' })).id;
    const logins = new Map((await store.team.users.list()).map((u) => [u.id, u.login]));
    const now = Date.now();
    return (await store.team.tokens.list({ owner: only })).map(({ id, owner, ...t }) => ({
      id,
      userId: owner,
      ...t,
      login: logins.get(owner) ?? owner,
      status: t.revokedAt !== null ? 'revoked' : Date.parse(t.expiresAt) <= now ? 'expired' : 'active',
    }));
  });
}

export async function revokeToken(config: Config, id: string): Promise<{ token: PersonalToken; already: boolean }> {
  return withStore(config, async (store) => {
    const before = await store.team.tokens.get(id.trim());
    if (!before) throw new InputError(`No token has the id "${id}"; switchboard tokens list shows them (ids start with pat_).`, 'id');
    const token = (await store.team.tokens.revoke(before.id))!;
    // Subscriptions are their person's, not a token's: they end, and the client's next refresh with a valid token makes them again.
    if (before.revokedAt === null) await endSubscriptionsFromCli(config, store, { owner: token.owner }, 'token_revoked');
    if (before.revokedAt === null) await recordCliAct(store, config, 'token.revoked', { target: `${token.id} for ${token.owner}` });
    return { token, already: before.revokedAt !== null };
  });
}

const minute = (iso: string | null) => iso?.slice(0, 16).replace('T', ' ') ?? '-';

export function formatTokens(tokens: ListedToken[]): string {
  if (tokens.length === 0) return 'No tokens yet (switchboard tokens create --user <person> makes one).';
  const rows = tokens.map((t) => [t.id, t.name ?? '-', t.login, t.scope, t.status, minute(t.createdAt), minute(t.expiresAt), minute(t.lastUsedAt), minute(t.revokedAt)]);
  return formatTable(['ID', 'NAME', 'PERSON', 'SCOPE', 'STATUS', 'CREATED (UTC)', 'EXPIRES (UTC)', 'LAST USED (UTC)', 'REVOKED (UTC)'], rows);
}
