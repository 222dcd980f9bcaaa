import type { Config } from '../config.js';
import { openStore, PERSONAL_OWNER } from '../store/index.js';
import type { Account, TeamUser, Trigger } from '../store/types.js';
import { findUser } from './commands.js';

/** `switchboard users show`: what a person has, as an admin may see it; never a secret, a payload or an event. */
export interface Holdings {
  person: TeamUser;
  /** Their own accounts. */
  accounts: Account[];
  /** The operator's accounts they may use (shared with them or with everyone). */
  shared: Account[];
  triggers: Trigger[];
}

export async function userHoldings(config: Config, ref: string): Promise<Holdings> {
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, secretKey: config.secretKey });
  try {
    const person = await findUser(store, ref);
    const theirs = store.ownedBy(person.id);
    const operators = new Set((await store.ownedBy(PERSONAL_OWNER).accounts.list()).map((a) => a.id));
    const usable = await theirs.accounts.list();
    return {
      person,
      accounts: usable.filter((a) => !operators.has(a.id)),
      shared: usable.filter((a) => operators.has(a.id)),
      triggers: await theirs.triggers.list(),
    };
  } finally {
    await store.close();
  }
}

export function formatHoldings(h: Holdings): string {
  const account = (a: Account) => `  ${a.provider.padEnd(7)} ${a.label}${a.identity ? ` (${a.identity})` : ''}${a.status === 'active' ? '' : ` [${a.status}]`}  ${a.id}`;
  const labels = new Map([...h.accounts, ...h.shared].map((a) => [a.id, `${a.provider} ${a.label}`]));
  const trigger = (t: Trigger) => `  ${t.kind.padEnd(24)} on ${labels.get(t.accountId) ?? t.accountId}  ${t.status}, ${t.fired} event(s)  ${t.id}`;
  const section = (title: string, lines: string[]) => [`${title}:`, ...(lines.length ? lines : ['  (none)'])];
  return [
    `${h.person.login}${h.person.email ? ` <${h.person.email}>` : ''}, ${h.person.role}${h.person.disabled ? ', disabled' : ''} (${h.person.id})`,
    ...section('Accounts', h.accounts.map(account)),
    ...section('Shared with them', h.shared.map(account)),
    ...section('Triggers', h.triggers.map(trigger)),
  ].join('\n');
}
