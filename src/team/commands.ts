import type { Config } from '../config.js';
import { InputError } from '../errors.js';
import { openStore } from '../store/index.js';
import type { Store, TeamUser } from '../store/types.js';

/** `switchboard users list|disable|enable|remove`: the people who signed in to a team server, on its store. */

async function withStore<T>(config: Config, run: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, secretKey: config.secretKey });
  try {
    return await run(store);
  } finally {
    await store.close();
  }
}

export const listUsers = (config: Config) => withStore(config, (store) => store.team.users.list());

/** The person a reference names: their id, login or address (case-insensitive); refused when none or several match. */
async function findUser(store: Store, ref: string): Promise<TeamUser> {
  const wanted = ref.trim().toLowerCase();
  const users = await store.team.users.list();
  const byId = users.find((u) => u.id === ref.trim());
  if (byId) return byId;
  const matches = users.filter((u) => u.login.toLowerCase() === wanted || u.email?.toLowerCase() === wanted);
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw new InputError(`"${ref}" names ${matches.length} people (${matches.map((u) => u.id).join(', ')}): use the id.`, 'user');
  throw new InputError(`No one called "${ref}" has signed in; switchboard users list shows who has.`, 'user');
}

export async function setUserDisabled(config: Config, ref: string, disabled: boolean): Promise<TeamUser> {
  return withStore(config, async (store) => (await store.team.users.setDisabled((await findUser(store, ref)).id, disabled))!);
}

export async function removeUser(config: Config, ref: string): Promise<TeamUser> {
  return withStore(config, async (store) => (await store.team.users.remove((await findUser(store, ref)).id))!);
}

export function formatUsers(users: TeamUser[]): string {
  if (users.length === 0) return 'No one has signed in yet (serve --http --team lets people sign in).';
  const provider = { github: 'GitHub', outlook: 'Microsoft', oidc: 'OpenID Connect' } as const;
  const rows = users.map((u) => [u.login, u.email ?? '-', provider[u.provider], u.role, u.disabled ? 'disabled' : 'active', u.lastSeenAt?.slice(0, 16).replace('T', ' ') ?? '-', u.id]);
  const header = ['LOGIN', 'EMAIL', 'SIGNS IN WITH', 'ROLE', 'STATUS', 'LAST SEEN (UTC)', 'ID'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}
