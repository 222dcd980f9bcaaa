import { writeFileSync } from 'node:fs';
import { accountsList } from './accounts/tools.js';
import type { Config } from './config.js';
import { connectorTools } from './connectors/index.js';
import { discoveryTools } from './mcp/discovery.js';
import { toMcpTool } from './mcp/tools.js';
import { summaryOf, type Tool } from './tool.js';
import { selectTools } from './tool-selection.js';
import { TOOL_MANIFEST_URL, type ToolManifest } from './mcp/tool-manifest.js';
import { triggerTools } from './triggers/tools.js';

/** Every tool a server can list: the connectors', then the platform's; read-only keeps only reads. */
export function buildTools(options: { readOnly: boolean }): Tool[] {
  const platform = [accountsList, ...triggerTools].filter((t) => !options.readOnly || t.effect === 'read');
  return [...connectorTools(options), ...platform];
}

export type ListOptions = Pick<Config, 'readOnly' | 'toolsets' | 'tools' | 'excludeTools' | 'toolMode'>;

/** The tools `serve` offers: those its options select, or in discovery mode the three that reach them. */
export function serverTools(options: ListOptions): Tool[] {
  const every = buildTools({ readOnly: false }).map((t) => t.name);
  const tools = selectTools(buildTools({ readOnly: options.readOnly }), options, every);
  return options.toolMode === 'discover' ? discoveryTools(tools) : tools;
}

/** The manifest of every tool list `serve` can answer, converted from the zod schemas now. */
export function toolManifest(): ToolManifest {
  const entries = (readOnly: boolean) => buildTools({ readOnly }).map((tool) => ({ connector: tool.connector, tool: toMcpTool(tool) }));
  const all = entries(false);
  const asInAll = new Map(all.map((entry) => [entry.tool.name, JSON.stringify(entry)]));
  return {
    all,
    readOnly: entries(true).map((entry) => (asInAll.get(entry.tool.name) === JSON.stringify(entry) ? entry.tool.name : entry)),
    discover: serverTools({ readOnly: false, toolMode: 'discover' }).map(toMcpTool),
  };
}

/** The build step: dist/tools.json beside this module. */
export function writeToolManifest(url: URL = TOOL_MANIFEST_URL): void {
  writeFileSync(url, JSON.stringify(toolManifest()) + '\n');
}

const TABLE_START = '<!-- tools: npm run docs writes this table from the registry -->';
const TABLE_END = '<!-- /tools -->';

/** The table of tools in docs/tools.md: each one's name and summary, in the order tools/list gives them. */
export function toolTable(): string {
  const rows = buildTools({ readOnly: false }).map((t) => `| \`${t.name}\` | ${summaryOf(t).replace(/\.$/, '').replaceAll('|', '\\|')} |`);
  return ['| Tool | What it does |', '| --- | --- |', ...rows].join('\n');
}

/** docs/tools.md with its table of tools made current. */
export function withToolTable(page: string): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`docs/tools.md has no "${TABLE_START}" ... "${TABLE_END}" markers around its table of tools.`);
  return `${page.slice(0, start + TABLE_START.length)}\n\n${toolTable()}\n\n${page.slice(end)}`;
}
