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
