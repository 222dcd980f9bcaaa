import { appliesTo, matchesAny, type ApprovalRule, type Policy, type PolicyPerson } from '../policy.js';
import type { Effect } from '../tool.js';

/** What a rule is checked against: all of it known before the call, none of it asked of a provider. */
export interface ProposedCall {
  tool: string;
  effect: Effect;
  args: Record<string, unknown>;
  /** The account the call would use (its id and label), when the tool uses one and it is known. */
  account?: { id: string; label: string };
}

export interface ApprovalNeed {
  /** The rules that ask: the first names the approval. */
  rules: ApprovalRule[];
  /** `admin` when any matching rule says so. */
  approver: 'caller' | 'admin';
  /** Minutes the approval waits, the shortest any matching rule sets. */
  expiresInMinutes?: number;
}

const GENERIC_CALL = /_api_call$/;

/** A generic API call's effect follows its method (GET reads, DELETE deletes); every other tool has its own. */
export function effectOf(tool: { name: string; effect: Effect }, args: Record<string, unknown>): Effect {
  const method = typeof args.method === 'string' && GENERIC_CALL.test(tool.name) ? args.method.toUpperCase() : undefined;
  if (!method) return tool.effect;
  if (method === 'GET' || method === 'HEAD') return 'read';
  return method === 'DELETE' ? 'delete' : 'write';
}

/** The rules that could ask for this person, tool and effect, before accounts and arguments are looked at. */
export function candidateRules(policy: Policy, person: PolicyPerson, tool: string, effect: Effect): ApprovalRule[] {
  return policy.approvals.filter(
    (rule) => appliesTo(rule.for, person, policy) && (!rule.tools || matchesAny(rule.tools, tool)) && (!rule.effect || rule.effect.includes(effect)),
  );
}

/** Whether the call needs a yes, whose, under which rules; undefined when no rule asks. */
export function approvalNeeded(policy: Policy, rules: ApprovalRule[], facts: ProposedCall): ApprovalNeed | undefined {
  const asking = rules.filter((rule) => accountMatches(rule, facts.account) && argumentsMatch(rule, policy, facts));
  if (!asking.length) return undefined;
  const minutes = asking.map((r) => r.expiresInMinutes).filter((m): m is number => m !== undefined);
  return {
    rules: asking,
    approver: asking.some((r) => r.approver === 'admin') ? 'admin' : 'caller',
    ...(minutes.length ? { expiresInMinutes: Math.min(...minutes) } : {}),
  };
}

function accountMatches(rule: ApprovalRule, account: ProposedCall['account']): boolean {
  if (!rule.accounts) return true;
  if (!account) return false;
  const names = [account.id, account.label].map((n) => n.toLowerCase());
  return rule.accounts.some((a) => names.includes(a.toLowerCase()));
}

function argumentsMatch(rule: ApprovalRule, policy: Policy, facts: ProposedCall): boolean {
  const when = rule.when;
  if (!when || (!when.recipientOutside && !when.branch)) return true;
  if (when.recipientOutside && outsideRecipients(facts.args, policy.teamDomains).length) return true;
  if (when.branch && facts.effect !== 'read') {
    const branches = branchesWritten(facts.args);
    // A write that names no branch goes to the repository's default one, which only the provider knows: it asks.
    if (branches.some((b) => b === DEFAULT_BRANCH || matchesAny(when.branch!, b))) return true;
  }
  return false;
}

const ADDRESS = /<([^<>]+)>\s*$/;

/** Every address a call sends to (to, cc, bcc; in a generic call's body, Graph's toRecipients, ccRecipients, bccRecipients). */
export function recipientsOf(args: Record<string, unknown>): string[] {
  const found: string[] = [];
  for (const field of ['to', 'cc', 'bcc']) {
    const list = args[field];
    if (Array.isArray(list)) for (const r of list) if (typeof r === 'string') found.push((ADDRESS.exec(r)?.[1] ?? r).trim());
  }
  const body = args.body as Record<string, unknown> | undefined;
  const message = (body?.message ?? body) as Record<string, unknown> | undefined;
  for (const field of ['toRecipients', 'ccRecipients', 'bccRecipients']) {
    const list = message?.[field];
    if (!Array.isArray(list)) continue;
    for (const r of list) {
      const address = (r as { emailAddress?: { address?: unknown } })?.emailAddress?.address;
      if (typeof address === 'string') found.push(address.trim());
    }
  }
  return found;
}

/** The recipients whose domain is not one of the team's (or a subdomain of one). */
export function outsideRecipients(args: Record<string, unknown>, teamDomains: readonly string[]): string[] {
  const domains = teamDomains.map((d) => d.toLowerCase().replace(/^@/, ''));
  return recipientsOf(args).filter((address) => {
    const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
    return !domains.some((d) => domain === d || domain.endsWith(`.${d}`));
  });
}

/** Stands for "the repository's default branch" when a write names none. */
export const DEFAULT_BRANCH = '(default branch)';

const REF_PATH = /^\/repos\/[^/]+\/[^/]+\/git\/refs\/heads\/(.+)$/;
const BRANCH_PATH = /^\/repos\/[^/]+\/[^/]+\/branches\/([^/]+)/;
const CONTENTS_PATH = /^\/repos\/[^/]+\/[^/]+\/contents\//;
const REFS_PATH = /^\/repos\/[^/]+\/[^/]+\/git\/refs\/?$/;
const MERGES_PATH = /^\/repos\/[^/]+\/[^/]+\/merges\/?$/;

/** The branches a write names: a `branch` argument, or what a generic call's path and body write to. */
export function branchesWritten(args: Record<string, unknown>): string[] {
  if (typeof args.branch === 'string') return [args.branch.replace(/^refs\/heads\//, '')];
  const path = typeof args.endpoint === 'string' ? args.endpoint : typeof args.path === 'string' ? args.path : undefined;
  if (path === undefined || typeof args.method !== 'string') return [];
  const clean = decodeURIComponent(path.split('?')[0]!);
  const body = (args.body ?? {}) as Record<string, unknown>;
  const named = REF_PATH.exec(clean)?.[1] ?? BRANCH_PATH.exec(clean)?.[1];
  if (named) return [named];
  if (REFS_PATH.test(clean) && typeof body.ref === 'string' && body.ref.startsWith('refs/heads/')) return [body.ref.slice('refs/heads/'.length)];
  if (CONTENTS_PATH.test(clean)) return [typeof body.branch === 'string' ? body.branch : DEFAULT_BRANCH];
  if (MERGES_PATH.test(clean) && typeof body.base === 'string') return [body.base];
  return [];
}

/** The call in plain words, for the person asked: the tool, the account, and the arguments that say what it does. */
export function describeCall(facts: ProposedCall, teamDomains: readonly string[]): string {
  const parts = [`${facts.tool}${facts.account ? ` with the account "${facts.account.label}"` : ''}`];
  const recipients = recipientsOf(facts.args);
  if (recipients.length) {
    const outside = new Set(outsideRecipients(facts.args, teamDomains));
    parts.push(`to ${recipients.map((r) => (outside.has(r) ? `${r} (outside the team)` : r)).join(', ')}`);
  }
  const key = ['subject', 'owner', 'repo', 'path', 'endpoint', 'method', 'branch', 'title', 'id', 'name', 'project'];
  for (const field of key) {
    const value = facts.args[field];
    if (typeof value === 'string' || typeof value === 'number') parts.push(`${field}: ${String(value).slice(0, 120)}`);
  }
  const branches = facts.effect === 'read' ? [] : branchesWritten(facts.args).filter((b) => b !== facts.args.branch);
  if (branches.length) parts.push(`writes to ${branches.join(', ')}`);
  return parts.join('; ');
}

/** JSON with every object's keys sorted, so equal arguments seal alike whatever order the client sent them in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
