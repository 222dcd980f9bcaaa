import type { Command } from 'commander';
import type { Config } from './config.js';

/** What command groups in other folders borrow from the CLI's entry point, which alone reads argv and the environment. */
export interface CliKit {
  /** Adds --data-dir and --database-url. */
  withStore(command: Command): Command;
  /** Adds the store's options and --sandbox. */
  withCommon(command: Command): Command;
  /**
   * Runs a command with its config; with --sandbox, against the sandbox's stand-ins and store. A command that only
   * reads and writes the store (users, tokens, db) asks for no stand-ins; `people` seeds the sandbox's team too.
   */
  withConfig(opts: Record<string, unknown>, run: (config: Config) => Promise<void>, options?: { standIns?: boolean; people?: boolean }): Promise<void>;
  configOf(opts: Record<string, unknown>): Config;
  /** To standard output: what a script reads. */
  print(text: string): void;
  /** To standard error: what a person reads. */
  say(text: string): void;
  /** Standard input, whole; refused when it is a terminal. */
  readStdin(): Promise<string>;
}

/** Every help text is wrapped at this many columns, whatever the terminal. */
export const HELP_WIDTH = 100;

/**
 * A command's examples, the last part of every help text: after a blank line, one command a line, a long one
 * continued on the next with a backslash where the shell allows it (outside quotes).
 */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => shellLines(`  $ ${l}`).join('\n')).join('\n')}`;
}

/** A paragraph before a command's examples, wrapped to the help width. */
export function note(text: string): string {
  return `\n${wrapped(text).join('\n')}\n`;
}

/** Words in lines of at most `width` columns (a longer word keeps a line of its own). */
export function wrapped(text: string, width = HELP_WIDTH): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

function shellLines(command: string): string[] {
  const out: string[] = [];
  let rest = command;
  while (rest.length > HELP_WIDTH) {
    const at = lastBreak(rest, HELP_WIDTH - 2);
    if (at <= 0) break;
    out.push(`${rest.slice(0, at)} \\`);
    rest = `      ${rest.slice(at + 1)}`;
  }
  return [...out, rest];
}

/** The last space before `limit` outside single or double quotes, or -1. */
function lastBreak(text: string, limit: number): number {
  let quote: string | undefined;
  let found = -1;
  for (let i = 0; i < Math.min(text.length, limit); i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === ' ' && i > 6) found = i;
  }
  return found;
}

/** Errors name CLI commands on the command line, not the MCP tools the same code serves. */
const CLI_WORDS: Array<[RegExp, string]> = [
  [/\baccounts_list( \{[^}]*\})?/g, 'switchboard accounts list'],
  [/\btriggers_list( \{[^}]*\})?/g, 'switchboard triggers list'],
  [/\btriggers_create\b/g, 'switchboard triggers add'],
  [/\btriggers_delete\b/g, 'switchboard triggers remove'],
  [/\bevents_next( \{[^}]*\})?/g, 'switchboard events tail'],
];

/** What a file system refusal means, named for what it is: read-only, not allowed, full, missing; undefined for other errors. */
export function fileRefusal(error: unknown): string | undefined {
  const e = error as NodeJS.ErrnoException;
  const reasons: Record<string, string> = {
    EROFS: 'it is on a read-only file system',
    EACCES: 'permission denied to this user',
    EPERM: 'permission denied to this user',
    ENOSPC: 'the disk is full',
    ENOENT: 'it does not exist',
    ENOTDIR: 'a part of the path is a file, not a directory',
    EISDIR: 'it is a directory',
  };
  if (!e || typeof e.code !== 'string' || !reasons[e.code] || typeof e.path !== 'string') return undefined;
  return `Cannot ${e.syscall ?? 'use'} ${e.path}: ${reasons[e.code]} (${e.code}). Fix that, or choose another data directory with --data-dir DIR (or SWITCHBOARD_DATA_DIR).`;
}

export function cliWording(message: string): string {
  return CLI_WORDS.reduce((text, [pattern, command]) => text.replace(pattern, command), message);
}
