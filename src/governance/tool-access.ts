import { appliesTo, matchesAny, type Policy, type PolicyPerson, type ToolAccessRule } from '../policy.js';
import type { Effect } from '../tool.js';

/** What a rule is checked against: a tool's name and what it does. */
export interface ToolFacts {
  name: string;
  effect: Effect;
}

/** Why the policy refuses this tool (naming the rule), or undefined when it may be used. */
export type ToolRefusal = (tool: ToolFacts) => string | undefined;

/** The discovery mode's three tools reach the others, and the rules are applied to what they reach. */
const GATEWAYS = new Set(['tools_search', 'tools_describe', 'tools_call']);

/** What a rule lets through, in words, for the refusal. */
function ruleText(rule: ToolAccessRule, index: number, tool: ToolFacts): string | undefined {
  const name = `policy tools.${index} (for ${rule.for.join(', ')})`;
  const denied = rule.deny?.find((pattern) => matchesAny([pattern], tool.name));
  if (denied) return `${name} denies "${denied}"`;
  if (rule.allow && !matchesAny(rule.allow, tool.name)) return `${name} allows only ${rule.allow.map((p) => `"${p}"`).join(', ')}`;
  if (rule.effect && !rule.effect.includes(tool.effect)) return `${name} allows only tools that ${rule.effect.join(' or ')}`;
  return undefined;
}

/**
 * The tools rules that apply to this person, as one check; undefined when none apply. A tool must pass every rule that
 * applies (each allow list and effect list narrows, so the person's tools are their intersection), and any deny wins.
 */
export function toolRefusal(policy: Policy, person: PolicyPerson): ToolRefusal | undefined {
  const rules = policy.tools.map((rule, index) => ({ rule, index })).filter(({ rule }) => appliesTo(rule.for, person, policy));
  if (!rules.length) return undefined;
  return (tool) => {
    if (GATEWAYS.has(tool.name)) return undefined;
    for (const { rule, index } of rules) {
      const why = ruleText(rule, index, tool);
      if (why) return `You may not use ${tool.name}: ${why}. tools/list shows the tools you may use; an admin can change the policy.`;
    }
    return undefined;
  };
}

/** A tool's effect from its MCP annotations, as tools/list shows it. */
export const effectOfAnnotations = (annotations: { readOnlyHint?: boolean; destructiveHint?: boolean } | undefined): Effect =>
  annotations?.readOnlyHint ? 'read' : annotations?.destructiveHint ? 'delete' : 'write';

export interface PersonTools {
  refusal: ToolRefusal;
  /** The tools of `all` this person may use, kept per list (the same array gives the same answer without a new check). */
  listed<T>(all: T[], facts: (tool: T) => ToolFacts): T[];
}

/**
 * Each person's tools under the policy in force, kept for `ttlMs` per person and per policy (a changed policy is a new
 * object), so tools/list and tools/call do not look the person up again on every request.
 */
export function personToolsCache(ttlMs = 60_000, clock: () => number = Date.now) {
  let keptFor: Policy | undefined;
  const people = new Map<string, { tools: PersonTools | undefined; until: number }>();
  return async (policy: Policy | undefined, owner: string, person: () => Promise<PolicyPerson>): Promise<PersonTools | undefined> => {
    if (!policy?.tools.length) return undefined;
    if (keptFor !== policy) {
      keptFor = policy;
      people.clear();
    }
    const kept = people.get(owner);
    if (kept && kept.until > clock()) return kept.tools;
    const refusal = toolRefusal(policy, await person());
    const lists = new WeakMap<object, unknown[]>();
    const tools: PersonTools | undefined = refusal && {
      refusal,
      listed(all, facts) {
        let shown = lists.get(all) as typeof all | undefined;
        if (!shown) lists.set(all, (shown = all.filter((tool) => !refusal(facts(tool)))));
        return shown;
      },
    };
    if (people.size > 10_000) people.clear();
    people.set(owner, { tools, until: clock() + ttlMs });
    return tools;
  };
}
