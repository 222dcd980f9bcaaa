import { InputError } from '../errors.js';

/** Who may sign in to a team server: a verified address, any verified address at a domain, or a GitHub organization's members. */
export type TeamRule = { kind: 'address'; address: string } | { kind: 'domain'; domain: string } | { kind: 'github-org'; org: string };

/** What an identity provider vouches for about the person signing in. */
export interface SignedInIdentity {
  provider: 'github' | 'outlook';
  subject: string;
  login: string;
  /** Verified addresses, lower-case; the first is the one shown. */
  emails: string[];
  /** Whether the person is an active member of a GitHub organization (GitHub sign-ins only). */
  memberOf?(org: string): Promise<boolean>;
}

const ADDRESS = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;
const DOMAIN = /^@[a-z0-9-]+(\.[a-z0-9-]+)+$/;
const ORG = /^github-org:([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))$/;

/** A comma list of rules (SWITCHBOARD_TEAM_ALLOW, SWITCHBOARD_TEAM_ADMINS); a rule that is none of the three forms is refused by name. */
export function parseTeamRules(value: string | undefined, setting: string): TeamRule[] {
  const rules: TeamRule[] = [];
  for (const raw of (value ?? '').split(',')) {
    const item = raw.trim().toLowerCase();
    if (!item) continue;
    const org = ORG.exec(item)?.[1];
    if (org) rules.push({ kind: 'github-org', org });
    else if (DOMAIN.test(item)) rules.push({ kind: 'domain', domain: item.slice(1) });
    else if (ADDRESS.test(item)) rules.push({ kind: 'address', address: item });
    else {
      throw new InputError(
        `${setting}: "${raw.trim()}" is not an address (ada@example.com), a domain (@example.com) or a GitHub organization (github-org:acme).`,
        setting,
      );
    }
  }
  return rules;
}

/** Whether any rule admits the person. */
export async function admits(rules: readonly TeamRule[], who: SignedInIdentity): Promise<boolean> {
  for (const rule of rules) {
    if (rule.kind === 'address' && who.emails.includes(rule.address)) return true;
    if (rule.kind === 'domain' && who.emails.some((e) => e.endsWith(`@${rule.domain}`))) return true;
    if (rule.kind === 'github-org' && who.provider === 'github' && (await who.memberOf?.(rule.org))) return true;
  }
  return false;
}

/** Whether any rule needs GitHub organization membership (the sign-in then asks GitHub for read:org). */
export const needsOrgs = (rules: readonly TeamRule[]) => rules.some((r) => r.kind === 'github-org');
