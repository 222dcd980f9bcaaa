import { createRequire } from 'node:module';
import type picomatch from 'picomatch';
import { InputError } from './errors.js';
import { didYouMean } from './suggest.js';
import type { Provider } from './store/types.js';

// Loaded with the first glob: `serve` answers tools/list before it, and most starts name no --tools.
let globs: typeof picomatch | undefined;
const loadGlobs = () => (globs ??= createRequire(import.meta.url)('picomatch') as typeof picomatch);

/** How `serve` narrows the tools it lists: --toolsets, --tools and --exclude-tools (names or globs such as github_*). */
export interface ToolSelection {
  toolsets?: Provider[];
  tools?: string[];
  excludeTools?: string[];
}

interface Named {
  name: string;
  connector?: Provider;
}

/**
 * The tools to list, in their order. `offered` is what the server could list (read-only already applied); `every`
 * is every tool's name, to tell a name that does not exist from one that --read-only hides. --toolsets keeps those
 * connectors and the platform's tools; --tools lists only the named tools, or adds them to the toolsets' when both
 * are given; --exclude-tools then removes its matches.
 */
export function selectTools<T extends Named>(offered: T[], selection: ToolSelection, every: readonly string[]): T[] {
  const { toolsets, tools, excludeTools } = selection;
  const inToolsets = (t: T) => !t.connector || !toolsets || toolsets.includes(t.connector);
  const named = tools && matcher(tools, '--tools', offered, every);
  const excluded = excludeTools && matcher(excludeTools, '--exclude-tools', offered, every);
  return offered.filter((t) => (named ? named(t.name) || (toolsets !== undefined && inToolsets(t)) : inToolsets(t)) && !excluded?.(t.name));
}

/** One predicate for a list of names and globs, each checked to match a tool the server offers. */
function matcher(patterns: string[], flag: string, offered: Named[], every: readonly string[]): (name: string) => boolean {
  const field = flag.slice(2);
  const offeredNames = offered.map((t) => t.name);
  const tests = patterns.map((pattern) => {
    const test = loadGlobs()(pattern);
    if (offeredNames.some((n) => test(n))) return test;
    if (pattern === 'discover' && flag === '--tools') {
      throw new InputError('--tools takes tool names or globs; the discovery mode is --tool-mode discover (SWITCHBOARD_TOOL_MODE).', field);
    }
    if (every.some((n) => test(n))) {
      throw new InputError(`${flag}: "${pattern}" names only tools that change things, and --read-only lists only tools that read. Drop one of the two.`, field);
    }
    if (/[*?]/.test(pattern)) throw new InputError(`${flag}: "${pattern}" matches no tool. Tools: ${offeredNames.join(', ')}.`, field);
    const near = didYouMean(pattern, offeredNames);
    throw new InputError(`${flag}: "${pattern}" is not a tool.${near || ` Tools: ${offeredNames.join(', ')}.`}`, field);
  });
  return (name) => tests.some((test) => test(name));
}

/** A comma-separated list of names or globs, from a flag (named `--tools`) or the environment (named by its variable). */
export function parseToolList(value: string | undefined, name: string): string[] | undefined {
  if (value === undefined) return undefined;
  const field = name.replace(/^--/, '');
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new InputError(`${name} needs at least one tool name or glob, such as github_* or outlook_send_email.`, field);
  for (const n of names) {
    if (!/^[A-Za-z0-9_*?]+$/.test(n)) throw new InputError(`${name}: "${n}" is not a tool name or glob (letters, digits, _, * and ?).`, field);
  }
  return names;
}
