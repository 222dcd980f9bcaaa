import type { Command } from 'commander';
import type { Config } from './config.js';

/** What command groups in other folders borrow from the CLI's entry point, which alone reads argv and the environment. */
export interface CliKit {
  /** Adds --data-dir and --database-url. */
  withStore(command: Command): Command;
  /** Adds the store's options and --sandbox. */
  withCommon(command: Command): Command;
  /** Runs a command with its config; with --sandbox, against the sandbox's stand-ins and store. */
  withConfig(opts: Record<string, unknown>, run: (config: Config) => Promise<void>): Promise<void>;
  configOf(opts: Record<string, unknown>): Config;
  /** To standard output: what a script reads. */
  print(text: string): void;
  /** To standard error: what a person reads. */
  say(text: string): void;
  /** Standard input, whole; refused when it is a terminal. */
  readStdin(): Promise<string>;
}

/** A command's examples, as commander's help shows them after its options. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`;
}

/** Errors name CLI commands on the command line, not the MCP tools the same code serves. */
const CLI_WORDS: Array<[RegExp, string]> = [
  [/\baccounts_list( \{[^}]*\})?/g, 'switchboard accounts list'],
  [/\btriggers_list( \{[^}]*\})?/g, 'switchboard triggers list'],
  [/\btriggers_create\b/g, 'switchboard triggers add'],
  [/\btriggers_delete\b/g, 'switchboard triggers remove'],
  [/\bevents_next( \{[^}]*\})?/g, 'switchboard events tail'],
];

export function cliWording(message: string): string {
  return CLI_WORDS.reduce((text, [pattern, command]) => text.replace(pattern, command), message);
}
