import * as z from 'zod/v4';
import { gateNested } from '../governance/approvals.js';
import { InputError, ToolRefusedError } from '../errors.js';
import { defineTool, summaryOf, type Tool, type ToolDeps } from '../tool.js';
import { toMcpTool } from './tools.js';

/**
 * Discovery mode: three small tools stand in for the whole list, so a model pays for a tool's
 * schema only when it is about to use it.
 */
export function discoveryTools(all: Tool[]): Tool[] {
  const byName = new Map(all.map((t) => [t.name, t]));
  // A tool the policy refuses this person is, to search and describe, no tool at all; tools_call says which rule refused it.
  const known = (name: string, deps: ToolDeps, calling = false): Tool => {
    const tool = byName.get(name);
    const refusal = tool && deps.refuseTool?.(tool);
    if (refusal && calling) throw new ToolRefusedError(refusal, 'name');
    if (!tool || refusal) throw new InputError(`No tool "${name}"; tools_search finds tool names.`, 'name');
    return tool;
  };

  const search = defineTool({
    name: 'tools_search',
    title: 'Search tools',
    description: 'Find tools by words (e.g. "create issue", "calendar free"); returns names with one-line summaries. Then tools_describe for the schema, tools_call to run it.',
    input: z
      .object({
        query: z.string().min(1).max(200).describe('Words to look for in tool names and descriptions'),
        limit: z.number().int().min(1).max(60).optional().describe('At most this many (default 10)'),
      })
      .strict(),
    output: z.object({ tools: z.array(z.object({ name: z.string(), summary: z.string() })) }),
    effect: 'read',
    async run({ query, limit }, ctx) {
      const words = query.toLowerCase().split(/[\s_,.]+/).filter(Boolean);
      const refuse = ctx.deps.refuseTool;
      const scored = (refuse ? all.filter((t) => !refuse(t)) : all)
        .map((t) => {
          const name = t.name.toLowerCase();
          const text = `${t.title} ${t.description}`.toLowerCase();
          const score = words.reduce((s, w) => s + (name.includes(w) ? 3 : 0) + (text.includes(w) ? 1 : 0), 0);
          return { t, score };
        })
        .filter((x) => x.score > 0)
        .sort((a, b) => b.score - a.score || a.t.name.localeCompare(b.t.name))
        .slice(0, limit ?? 10);
      return { tools: scored.map(({ t }) => ({ name: t.name, summary: summaryOf(t) })) };
    },
  });

  const describe = defineTool({
    name: 'tools_describe',
    title: 'Describe a tool',
    description: "Return one tool's full definition: description, input and output JSON Schema, annotations. Names come from tools_search.",
    input: z.object({ name: z.string().describe('Tool name, e.g. github_create_issue') }).strict(),
    output: z.object({ tool: z.record(z.string(), z.unknown()) }),
    effect: 'read',
    async run({ name }, ctx) {
      return { tool: toMcpTool(known(name, ctx.deps)) as unknown as Record<string, unknown> };
    },
  });

  const call = defineTool({
    name: 'tools_call',
    title: 'Call a tool',
    description: 'Run any tool by name with its arguments (see tools_describe); returns its result. Write and delete tools act for real.',
    input: z
      .object({
        name: z.string().describe('Tool name from tools_search'),
        arguments: z.record(z.string(), z.unknown()).optional().describe('The tool\'s arguments, as tools_describe gives them'),
      })
      .strict(),
    output: z.object({ result: z.record(z.string(), z.unknown()) }),
    effect: 'delete',
    carries: 'arguments',
    async run({ name, arguments: args }, ctx) {
      const tool = known(name, ctx.deps, true);
      if (ctx.deps.readOnly && tool.effect !== 'read') throw new InputError(`"${name}" changes things, and this server is read-only.`, 'name');
      // The policy holds the tool run here as it holds a direct call (out of band: this call cannot ask its caller).
      await gateNested(ctx.deps, tool, args ?? {});
      return { result: ctx.deps.results ? await ctx.deps.results.call(tool, args ?? {}, ctx) : await tool.call(args ?? {}, ctx) };
    },
  });

  return [search, describe, call];
}
