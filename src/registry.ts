import { writeFileSync } from 'node:fs';
import { accountsList } from './accounts/tools.js';
import type { Config } from './config.js';
import { connectorTools } from './connectors/index.js';
import { discoveryTools } from './mcp/discovery.js';
import type { Provider } from './store/types.js';
import { toMcpTool } from './mcp/tools.js';
import type { Tool } from './tool.js';
import { TOOL_MANIFEST_URL, type ToolManifest } from './mcp/tool-manifest.js';
import { triggerTools } from './triggers/tools.js';

/** The tools a server lists: connector tools for the chosen toolsets, then the platform's; read-only keeps only reads. */
export function buildTools(options: { readOnly: boolean; toolsets?: Provider[] }): Tool[] {
  const platform = [accountsList, ...triggerTools].filter((t) => !options.readOnly || t.effect === 'read');
  return [...connectorTools(options), ...platform];
}

/** The tools `serve` offers: all of them for its options, or in discovery mode the three that reach them. */
export function serverTools(options: Pick<Config, 'readOnly' | 'toolsets' | 'toolMode'>): Tool[] {
  const tools = buildTools(options);
  return options.toolMode === 'discover' ? discoveryTools(tools) : tools;
}

/** The manifest of every tool list `serve` can answer, converted from the zod schemas now. */
export function toolManifest(): ToolManifest {
  const entries = (readOnly: boolean) => buildTools({ readOnly }).map((tool) => ({ connector: tool.connector, tool: toMcpTool(tool) }));
  return {
    all: entries(false),
    readOnly: entries(true),
    discover: serverTools({ readOnly: false, toolMode: 'discover' }).map(toMcpTool),
  };
}

/** The build step: dist/tools.json beside this module. */
export function writeToolManifest(url: URL = TOOL_MANIFEST_URL): void {
  writeFileSync(url, JSON.stringify(toolManifest()) + '\n');
}
