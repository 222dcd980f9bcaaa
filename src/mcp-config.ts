import type { Config } from './config.js';

export const MCP_CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

export interface ServerCommand {
  /** The server key in the client's config; clients prefix tool names with it, so keep it short. */
  name: string;
  /** Absolute path of the node binary: desktop apps do not see the shell's PATH. */
  node: string;
  /** Absolute path of this install's dist/bin/switchboard.js. */
  cli: string;
  /** Arguments after `serve`. */
  serveArgs: string[];
  env: Record<string, string>;
}

export interface McpConfigSnippet {
  /** What to paste (JSON) or run (claude-code). */
  text: string;
  /** Where it goes, for the person reading it. */
  where: string;
}

/** The flags `serve` gets: those given to mcp-config (not those from its environment), checked by loadConfig. */
export function serveArgsOf(config: Config, given: { toolsets?: string; tools?: string; excludeTools?: string; toolMode?: string; readOnly?: boolean }): string[] {
  return [
    ...(config.sandbox ? ['--sandbox'] : []),
    ...(given.toolsets ? ['--toolsets', config.toolsets!.join(',')] : []),
    ...(given.tools ? ['--tools', config.tools!.join(',')] : []),
    ...(given.excludeTools ? ['--exclude-tools', config.excludeTools!.join(',')] : []),
    ...(given.toolMode ? ['--tool-mode', given.toolMode] : []),
    ...(given.readOnly ? ['--read-only'] : []),
  ];
}

/** The exact snippet that makes `client` start this install's `switchboard serve` over stdio. */
export function mcpConfigSnippet(client: McpClient, server: ServerCommand): McpConfigSnippet {
  const args = [server.cli, 'serve', ...server.serveArgs];
  const entry = { command: server.node, args, env: server.env };
  switch (client) {
    case 'claude-desktop':
      return {
        text: json({ mcpServers: { [server.name]: entry } }),
        where:
          'Merge into claude_desktop_config.json (Settings > Developer > Edit Config): ~/Library/Application Support/Claude/ on macOS, %APPDATA%\\Claude\\ on Windows. Restart Claude Desktop.',
      };
    case 'cursor':
      return { text: json({ mcpServers: { [server.name]: entry } }), where: 'Merge into ~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project).' };
    case 'vscode':
      return { text: json({ servers: { [server.name]: { type: 'stdio', ...entry } } }), where: 'Merge into .vscode/mcp.json of your workspace (or run "MCP: Open User Configuration").' };
    case 'claude-code': {
      const env = Object.entries(server.env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
      const words = ['claude', 'mcp', 'add', '--transport', 'stdio', '--scope', 'user', ...env, server.name, '--', server.node, ...args];
      return { text: words.map(shellQuote).join(' '), where: 'Run this in a terminal; `claude mcp list` then shows the server.' };
    }
  }
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
