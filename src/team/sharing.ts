import { recordCliAct } from '../governance/acts.js';
import { openCliStore } from '../cli-store.js';
import type { Config } from '../config.js';
import { EVERYONE } from '../store/index.js';
import type { Account, Store, TeamUser } from '../store/types.js';
import { findUser } from './commands.js';

/**
 * `switchboard accounts share|unshare`: on a team server, one of the operator's accounts (a GitHub bot, a shared
 * mailbox) may be used by one person, or by everyone, in their tools and triggers; they never see its secret, and only
 * the operator changes or removes it. Nothing is shared unless it is shared here.
 */
export interface Sharing {
  account: Account;
  /** The person, or undefined for everyone. */
  person?: TeamUser;
  changed: boolean;
}

async function grantee(store: Store, ref: string): Promise<{ id: string; person?: TeamUser }> {
  if (ref.trim().toLowerCase() === 'everyone') return { id: EVERYONE };
  const person = await findUser(store, ref);
  return { id: person.id, person };
}

export async function shareAccount(config: Config, accountRef: string, withRef: string): Promise<Sharing> {
  const store = await openCliStore(config);
  try {
    const { id, person } = await grantee(store, withRef);
    const before = await store.accounts.grants();
    const account = await store.accounts.share(accountRef, id);
    await recordCliAct(store, config, 'account.shared', { account: account.id, target: id });
    return { account, person, changed: !before.some((g) => g.accountId === account.id && g.grantee === id) };
  } finally {
    await store.close();
  }
}

export async function unshareAccount(config: Config, accountRef: string, withRef: string): Promise<Sharing> {
  const store = await openCliStore(config);
  try {
    const { id, person } = await grantee(store, withRef);
    const { account, removed } = await store.accounts.unshare(accountRef, id);
    if (removed) await recordCliAct(store, config, 'account.unshared', { account: account.id, target: id });
    return { account, person, changed: removed };
  } finally {
    await store.close();
  }
}

export function sharingLine(verb: 'share' | 'unshare', s: Sharing): string {
  const whom = s.person ? `${s.person.login} (${s.person.id})` : 'everyone on the team';
  const what = `${s.account.provider} account "${s.account.label}"`;
  if (verb === 'share') {
    return s.changed
      ? `Shared ${what} with ${whom}: usable in their tools and triggers; they cannot see its secret, change or remove it.`
      : `${what} was already shared with ${whom}.`;
  }
  return s.changed ? `${what} is no longer shared with ${whom}; their triggers on it stop being able to use it.` : `${what} was not shared with ${whom}.`;
}
