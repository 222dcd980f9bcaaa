import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { toMcpTool } from '../dist/mcp/tools.js';
import { buildTools } from '../dist/registry.js';
import { discoveryTools } from '../dist/mcp/discovery.js';

/** What tools/list costs a model: tokens (o200k_base) and bytes, per connector and for the 10 largest tools. */
export async function benchTokens() {
  const tools = buildTools({ readOnly: false }).map(toMcpTool);
  const sized = tools.map((t) => {
    const json = JSON.stringify(t);
    return { name: t.name, tokens: countTokens(json), bytes: Buffer.byteLength(json) };
  });
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
    method: `tools/list of all ${tools.length} tools as served (input and output schemas included), serialised as JSON. No baseline: this is a size, not a time.`,
    table: [
      '| group | tools | tokens | bytes |',
      '| --- | ---: | ---: | ---: |',
      ...[...groups].map(([g, v]) => `| ${g} | ${v.tools} | ${v.tokens} | ${v.bytes} |`),
      `| **all** | ${tools.length} | ${total.tokens} | ${total.bytes} |`,
      `| --read-only | ${reads.tools} | ${reads.tokens} | |`,
      `| --tool-mode discover | ${discovery.length} | ${discover.tokens} | ${discover.bytes} |`,
      '',
      '| 10 largest tools | tokens | bytes |',
      '| --- | ---: | ---: |',
      ...largest.map((s) => `| ${s.name} | ${s.tokens} | ${s.bytes} |`),
    ],
    verdict:
      `Whole tools/list: ${total.tokens} tokens for ${tools.length} tools (${Math.round(total.tokens / tools.length)} per tool); target ≤ 15,000: ${total.tokens <= 15_000 ? 'met' : 'NOT met'}. ` +
      `Discovery mode: ${discover.tokens} tokens; target ≤ 1,500: ${discover.tokens <= 1_500 ? 'met' : 'NOT met'}.`,
    data: { name: 'tool_list_tokens', tools: tools.length, total, discover, readOnly: reads, groups: Object.fromEntries(groups), largest },
  };
}
