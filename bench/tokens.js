import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { toMcpTool } from '../dist/mcp/tools.js';
import { buildTools } from '../dist/registry.js';
import { discoveryTools } from '../dist/mcp/discovery.js';

/** What a model is handed of one tool by mainstream clients: its name, description and input schema. */
export const modelVisible = (t) => JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema });

/** What tools/list costs a model: tokens (o200k_base) and bytes, per connector and for the 10 largest tools. */
export async function benchTokens() {
  const tools = buildTools({ readOnly: false }).map(toMcpTool);
  const sized = tools.map((t) => {
    const json = modelVisible(t);
    return { name: t.name, tokens: countTokens(json), bytes: Buffer.byteLength(json) };
  });
  const visible = sized.reduce((n, s) => n + s.tokens, 0);
  const total = { tokens: countTokens(JSON.stringify({ tools })), bytes: Buffer.byteLength(JSON.stringify({ tools })) };
  const groups = new Map();
  for (const s of sized) {
    const prefix = s.name.split('_')[0];
    const g = groups.get(prefix) ?? { tools: 0, tokens: 0, bytes: 0 };
    groups.set(prefix, { tools: g.tools + 1, tokens: g.tokens + s.tokens, bytes: g.bytes + s.bytes });
  }
  const largest = [...sized].sort((a, b) => b.tokens - a.tokens).slice(0, 10);
  const discovery = discoveryTools(buildTools({ readOnly: false })).map(toMcpTool);
  const discover = { tokens: countTokens(JSON.stringify({ tools: discovery })), bytes: Buffer.byteLength(JSON.stringify({ tools: discovery })) };
  const readOnly = buildTools({ readOnly: true }).map(toMcpTool);
  const reads = { tools: readOnly.length, tokens: countTokens(JSON.stringify({ tools: readOnly })) };
  return {
    title: 'Tool list size (o200k_base tokens)',
    method:
      `Model-visible: each tool's name, description and input schema, what mainstream clients hand a model, counted per tool and summed (groups and largest tools below). ` +
      `Whole tools/list: all ${tools.length} tools as served, titles, annotations and typed output schemas included, serialised as JSON. No baseline: this is a size, not a time.`,
    table: [
      `| model-visible, all ${tools.length} tools | ${visible} tokens |`,
      '| --- | ---: |',
      `| whole tools/list | ${total.tokens} tokens (${total.bytes} bytes) |`,
      '',
      '| group (model-visible) | tools | tokens | bytes |',
      '| --- | ---: | ---: | ---: |',
      ...[...groups].map(([g, v]) => `| ${g} | ${v.tools} | ${v.tokens} | ${v.bytes} |`),
      `| **all** | ${tools.length} | ${visible} | ${sized.reduce((n, s) => n + s.bytes, 0)} |`,
      `| --read-only, whole tools/list | ${reads.tools} | ${reads.tokens} | |`,
      `| --tool-mode discover, whole tools/list | ${discovery.length} | ${discover.tokens} | ${discover.bytes} |`,
      '',
      '| 10 largest tools (model-visible) | tokens | bytes |',
      '| --- | ---: | ---: |',
      ...largest.map((s) => `| ${s.name} | ${s.tokens} | ${s.bytes} |`),
    ],
    verdict:
      `Model-visible: ${visible} tokens for ${tools.length} tools (${Math.round(visible / tools.length)} per tool); target ≤ 10,000: ${visible <= 10_000 ? 'met' : 'NOT met'}. ` +
      `Whole tools/list with typed output schemas: ${total.tokens} tokens; target ≤ 20,000: ${total.tokens <= 20_000 ? 'met' : 'NOT met'}. ` +
      `Discovery mode: ${discover.tokens} tokens; target ≤ 1,500: ${discover.tokens <= 1_500 ? 'met' : 'NOT met'}.`,
    data: { name: 'tool_list_tokens', tools: tools.length, visible, total, discover, readOnly: reads, groups: Object.fromEntries(groups), largest },
  };
}
