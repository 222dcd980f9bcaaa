import type { Store } from '../store/types.js';

/** The connected accounts as one resource, without secrets. */
export const ACCOUNTS_RESOURCE = {
  uri: 'switchboard://accounts',
  name: 'accounts',
  title: 'Connected accounts',
  description: 'Connected provider accounts (no secrets)',
  mimeType: 'application/json',
};

/** The resource's text: every account of the store given (the owner's view), as accounts_list describes them. */
export async function readAccounts(store: Store): Promise<string> {
  // Loaded here, not at start-up: the tool modules are not needed to answer tools/list.
  const { describeAccount } = await import('./tools.js');
  return JSON.stringify({ accounts: (await store.accounts.list()).map(describeAccount) });
}
