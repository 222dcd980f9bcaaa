import { readFileSync } from 'node:fs';
import type { Tool as McpTool } from '@modelcontextprotocol/server';
import type { Config } from '../config.js';
import { selectTools } from '../tool-selection.js';
import type { Provider } from '../store/types.js';

/** One tool as tools/list shows it, with the connector whose toolset holds it (none for platform tools). */
export interface ManifestEntry {
  connector?: Provider;
  tool: McpTool;
}

/**
 * What tools/list returns for every option that changes it, written by the build (dist/tools.json), so that
 * `serve` answers tools/list without loading a connector or converting a schema. A test holds it to the live conversion.
 */
export interface ToolManifest {
  all: ManifestEntry[];
  /**
   * --read-only: reads only, and each API Call tool with GET alone. A tool listed as in `all` is named only, which
   * keeps the file that every start parses a third smaller.
   */
  readOnly: Array<string | ManifestEntry>;
  /** --tool-mode discover. */
  discover: McpTool[];
}

export const TOOL_MANIFEST_URL = new URL('../tools.json', import.meta.url);

/** The build's manifest; undefined when there is none (running from the sources), so the caller converts the tools itself. */
export function readToolManifest(url: URL = TOOL_MANIFEST_URL): ToolManifest | undefined {
  let text: string;
  try {
    text = readFileSync(url, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as ToolManifest;
}

/** The tools/list answer for these options, read from the manifest. */
export function manifestTools(manifest: ToolManifest, options: Pick<Config, 'readOnly' | 'toolsets' | 'tools' | 'excludeTools' | 'toolMode'>): McpTool[] {
  const inAll = (name: string) => manifest.all.find((entry) => entry.tool.name === name)!;
  const entries = options.readOnly ? manifest.readOnly.map((entry) => (typeof entry === 'string' ? inAll(entry) : entry)) : manifest.all;
  const offered = entries.map((entry) => ({ ...entry, name: entry.tool.name }));
  const selected = selectTools(offered, options, manifest.all.map((entry) => entry.tool.name));
  return options.toolMode === 'discover' ? manifest.discover : selected.map((entry) => entry.tool);
}
