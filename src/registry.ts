import { writeFileSync } from 'node:fs';
import { accountsList } from './accounts/tools.js';
import type { Config } from './config.js';
import { connectorTools } from './connectors/index.js';
import { discoveryTools } from './mcp/discovery.js';
import type { Provider } from './store/types.js';
import { toMcpTool, type Tool } from './tool.js';
import { selectTools } from './tool-selection.js';
import { TOOL_MANIFEST_URL, type ToolManifest } from './tool-manifest.js';
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
