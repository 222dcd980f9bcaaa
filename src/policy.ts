import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type picomatch from 'picomatch';
import * as z from 'zod/v4';
import { InputError } from './errors.js';
import type { TeamRole } from './store/types.js';

/**
 * Who a rule applies to: `*` (everyone), `role:admin`, `role:member`, `role:<a role the policy names>`, or one person
 * by login, address or id.
 */
const Who = z.array(z.string().min(1)).min(1);

const Approval = z.strictObject({
  /** Shown to the approver and in the trail. */
  name: z.string().min(1),
  for: Who.default(['*']),
  /** Tool names or globs (`github_delete_*`); with `effect`, a call must match both. */
  tools: z.array(z.string().min(1)).min(1).optional(),
  effect: z.array(z.enum(['read', 'write', 'delete'])).min(1).optional(),
  /** Account ids or labels. */
  accounts: z.array(z.string().min(1)).min(1).optional(),
  /** Argument rules: any one that holds makes the call need approval; none given means every matching call does. */
  when: z
    .strictObject({
      /** A recipient (to, cc, bcc) outside `teamDomains`. */
      recipientOutside: z.literal(true).optional(),
      /** The branch or ref the call writes to matches one of these globs (`main`, `release/*`). */
      branch: z.array(z.string().min(1)).min(1).optional(),
    })
    .optional(),
  /** `caller`: the person who made the call says yes (in band when their client can be asked); `admin`: an admin does. */
  approver: z.enum(['caller', 'admin']).default('caller'),
  /** Minutes the approval waits before it expires (SWITCHBOARD_APPROVAL_TTL_MINUTES, else 15 for the caller and 1440 for an admin). */
  expiresInMinutes: z.number().int().min(1).max(10_080).optional(),
});

const Budget = z.strictObject({
  for: Who.default(['*']),
  /** Account ids or labels, or provider ids (`github`); every account when absent. */
  accounts: z.array(z.string().min(1)).min(1).optional(),
  providerRequestsPerHour: z.number().int().positive().optional(),
  salesCreditsPerDay: z.number().int().positive().optional(),
  emailsPerDay: z.number().int().positive().optional(),
});

const ToolAccess = z.strictObject({
  for: Who,
  /** Only these tool names or globs; every tool when absent. */
  allow: z.array(z.string().min(1)).min(1).optional(),
  /** Never these, even when allowed. */
  deny: z.array(z.string().min(1)).min(1).optional(),
  /** Only tools of these effects (`["read"]`: tools that change nothing); every effect when absent. */
  effect: z.array(z.enum(['read', 'write', 'delete'])).min(1).optional(),
});

export const PolicySchema = z.strictObject({
  /** The team's mail domains: a recipient at any other is outside. */
  teamDomains: z.array(z.string().min(1)).default([]),
  /** Named roles beyond admin and member: the people (logins, addresses or ids) in each. */
  roles: z.record(z.string().regex(/^[a-z][a-z0-9_-]*$/), z.array(z.string().min(1))).default({}),
  approvals: z.array(Approval).default([]),
  budgets: z.array(Budget).default([]),
  tools: z.array(ToolAccess).default([]),
});

export type Policy = z.output<typeof PolicySchema>;
export type ApprovalRule = Policy['approvals'][number];
export type BudgetRule = Policy['budgets'][number];
export type ToolAccessRule = Policy['tools'][number];

/** The empty policy: nothing needs approval, no budget, every tool. */
export const OPEN_POLICY: Policy = PolicySchema.parse({});

/** A policy from its JSON text, or an InputError naming each wrong field of `source` and what to write instead. */
export function parsePolicy(text: string, source: string): Policy {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${source} is not JSON: ${(error as Error).message}. Write the policy as one JSON object (see docs/governance.md).`, source);
  }
  const parsed = PolicySchema.safeParse(json);
  if (parsed.success) {
    checkRoles(parsed.data, source);
    return parsed.data;
  }
  const lines = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(policy)'}: ${issue.message}`);
  throw new InputError(`${source} is not a valid policy:\n- ${lines.join('\n- ')}`, parsed.error.issues[0]?.path.join('.') || source);
}

/** Every `role:x` a rule names is admin, member or a role the policy lists. */
function checkRoles(policy: Policy, source: string): void {
  const known = new Set(['admin', 'member', ...Object.keys(policy.roles)]);
  for (const section of ['approvals', 'budgets', 'tools'] as const) {
    policy[section].forEach((rule, index) => {
      const unknown = rule.for.find((who) => who.startsWith('role:') && !known.has(who.slice(5)));
      if (unknown) throw new InputError(`${source}: ${section}.${index}.for names "${unknown}", a role the policy does not list. Add it to "roles" or use role:admin or role:member.`, `${section}.${index}.for`);
    });
  }
}

/** The policy in the file SWITCHBOARD_POLICY names. */
export function readPolicyFile(path: string, variable = 'SWITCHBOARD_POLICY'): Policy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(`${variable}: cannot read "${path}" (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}). Point it at a policy file.`, variable);
  }
  return parsePolicy(text, path);
}

/** The person a rule is checked against. */
export interface PolicyPerson {
  id: string;
  login?: string;
  email?: string | null;
  role: TeamRole;
}

/** Whether `who` (a rule's `for`) names this person, directly, by a built-in role or by a role of the policy. */
export function appliesTo(who: readonly string[], person: PolicyPerson, policy: Policy): boolean {
  const names = [person.id, person.login, person.email ?? undefined].filter((n): n is string => !!n).map((n) => n.toLowerCase());
  return who.some((entry) => {
    if (entry === '*') return true;
    if (entry.startsWith('role:')) {
      const role = entry.slice(5);
      if (role === person.role) return true;
      return (policy.roles[role] ?? []).some((member) => names.includes(member.toLowerCase()));
    }
    return names.includes(entry.toLowerCase());
  });
}

let globs: typeof picomatch | undefined;
const loadGlobs = () => (globs ??= createRequire(import.meta.url)('picomatch') as typeof picomatch);

/** Whether a name matches any of the names or globs. */
export function matchesAny(patterns: readonly string[], name: string): boolean {
  return patterns.some((pattern) => loadGlobs()(pattern)(name));
}

/** Where the policy in force comes from (a file, the store); read per call, so it is cheap and kept fresh by the source. */
export interface PolicySource {
  current(): Promise<Policy>;
}

/** A policy that never changes (SWITCHBOARD_POLICY's file, read at start; a test's). */
export const fixedPolicy = (policy: Policy): PolicySource => ({ current: async () => policy });
