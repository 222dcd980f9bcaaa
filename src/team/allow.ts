import type { PersonAtProvider, TeamRule } from '../contracts/team.js';
import type { TeamIdentityProvider } from '../store/types.js';

export type { TeamRule } from '../contracts/team.js';

/** What an identity provider vouches for about the person signing in. */
export interface SignedInIdentity extends PersonAtProvider {
  provider: TeamIdentityProvider;
}

/** Whether any rule admits the person. */
export async function admits(rules: readonly TeamRule[], who: SignedInIdentity): Promise<boolean> {
  for (const rule of rules) {
    if (rule.kind === 'address' && who.emails.includes(rule.address)) return true;
    if (rule.kind === 'domain' && who.emails.some((e) => e.endsWith(`@${rule.domain}`))) return true;
    if (rule.kind === 'github-org' && (await who.memberOf?.(rule.org))) return true;
  }
  return false;
}

/** Whether any rule needs GitHub organization membership (the sign-in then asks GitHub for read:org). */
export const needsOrgs = (rules: readonly TeamRule[]) => rules.some((r) => r.kind === 'github-org');
