import { PERSONAL_OWNER, type Store } from '../store/types.js';
import type { PolicyPerson } from '../policy.js';

/** The person a policy rule is checked against: the one owner of a personal server is its admin. */
export async function personOf(store: Store, owner: string | undefined): Promise<PolicyPerson> {
  if (!owner || owner === PERSONAL_OWNER) return { id: PERSONAL_OWNER, role: 'admin' };
  const user = await store.team.users.get(owner);
  return { id: owner, login: user?.login, email: user?.email, role: user?.role ?? 'member' };
}
