import { recordCliAct } from '../governance/acts.js';
import type { Config } from '../config.js';
import { InputError } from '../errors.js';
import { oauthRecord } from '../providers.js';
import { endSubscriptionsFromCli } from '../events/end.js';
import { openStore } from '../store/index.js';
import type { Store, TeamUser } from '../store/types.js';

/** `switchboard users list|disable|enable|remove`: the people who signed in to a team server, on its store. */

export async function withStore<T>(config: Config, run: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, secretKey: config.secretKey });
  try {
    return await run(store);
  } finally {
    await store.close();
  }
}

export const listUsers = (config: Config) => withStore(config, (store) => store.team.users.list());

/**
 * The person a reference names: their id, login or address (case-insensitive); refused when none or several match.
 * `option` is how the command line names the reference, and `hint` follows the message when no one matches.
 */
export async function findUser(store: Store, ref: string, o: { option?: string; hint?: string } = {}): Promise<TeamUser> {
  const wanted = ref.trim().toLowerCase();
  const users = await store.team.users.list();
  const byId = users.find((u) => u.id === ref.trim());
  if (byId) return byId;
  const matches = users.filter((u) => u.login.toLowerCase() === wanted || u.email?.toLowerCase() === wanted);
  if (matches.length === 1) return matches[0]!;
  const quoted = `${o.option ? `${o.option} ` : ''}"${ref}"`;
  if (matches.length > 1) throw new InputError(`${quoted} names ${matches.length} people (${matches.map((u) => u.id).join(', ')}): use the id.`, 'user');
  const named = o.option ? `${quoted}: no one with that id, login or address` : `No one called "${ref}"`;
  throw new InputError(`${named} has signed in; switchboard users list shows who has.${o.hint ?? ''}`, 'user');
}

/**
 * Disables or enables a person; disabling also ends their sign-in's tokens and page sessions, revokes their personal
 * access tokens and ends their MCP Events subscriptions, none of which enabling brings back.
 */
export async function setUserDisabled(config: Config, ref: string, disabled: boolean): Promise<{ user: TeamUser; tokens: number }> {
  return withStore(config, async (store) => {
    const user = (await store.team.users.setDisabled((await findUser(store, ref)).id, disabled))!;
    const tokens = disabled ? await store.team.tokens.revokeAll(user.id) : 0;
    if (disabled) await endSubscriptionsFromCli(config, store, { owner: user.id }, 'person_disabled');
    await recordCliAct(store, config, disabled ? 'person.disabled' : 'person.enabled', { target: user.id });
    return { user, tokens };
  });
}

/** Forgets a person; their personal access tokens and MCP Events subscriptions go with them. */
export async function removeUser(config: Config, ref: string): Promise<{ user: TeamUser; tokens: number }> {
  return withStore(config, async (store) => {
    const found = await findUser(store, ref);
    const tokens = (await store.team.tokens.list({ owner: found.id })).length;
    await endSubscriptionsFromCli(config, store, { owner: found.id }, 'person_removed');
    const user = (await store.team.users.remove(found.id))!;
    await recordCliAct(store, config, 'person.removed', { target: found.id });
    return { user, tokens };
  });
}

export function formatUsers(users: TeamUser[]): string {
  if (users.length === 0) return 'No one has signed in yet (serve --http --team lets people sign in). The sandbox keeps its own people: switchboard users list --sandbox.';
  const provider = (u: TeamUser) => (u.provider === 'oidc' ? 'OpenID Connect' : oauthRecord(u.provider).title);
  const rows = users.map((u) => [u.login, u.email ?? '-', provider(u), u.role, u.disabled ? 'disabled' : 'active', u.lastSeenAt?.slice(0, 16).replace('T', ' ') ?? '-', u.id]);
  return formatTable(['LOGIN', 'EMAIL', 'SIGNS IN WITH', 'ROLE', 'STATUS', 'LAST SEEN (UTC)', 'ID'], rows);
}

export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}
