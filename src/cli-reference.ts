import type { Command } from 'commander';

const START = '<!-- cli: npm run docs writes the rest of this page from the CLI itself -->';

/** Every command that does something, depth first, with its path from the program's name. */
function leaves(command: Command, path: string[]): Array<{ path: string; command: Command }> {
  const subs = command.commands.filter((c) => c.name() !== 'help');
  if (subs.length === 0) return [{ path: path.join(' '), command }];
  return subs.flatMap((sub) => leaves(sub, [...path, sub.name()]));
}

/** The CLI reference: a contents list, then each command's own --help, as the command prints it. */
export function cliReference(program: Command): string {
  const commands = leaves(program, [program.name()]);
  const anchor = (path: string) => path.replace(/ /g, '-');
  const contents = commands.map(({ path, command }) => `- [\`${path}\`](#${anchor(path)}): ${firstSentence(command.description())}`);
  const sections = commands.map(({ path, command }) => [`## ${path}`, '', '```text', helpText(command).trimEnd(), '```'].join('\n'));
  return [...contents, '', ...sections.flatMap((s) => [s, ''])].join('\n');
}

function firstSentence(text: string): string {
  const sentence = /^.*?\.(?=\s|$)/.exec(text)?.[0] ?? text;
  return sentence.replace(/\.$/, '');
}

/** What `--help` prints: the help itself and the text added after it (the examples). */
function helpText(command: Command): string {
  let out = '';
  command.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
  command.outputHelp();
  return out;
}

/** docs/cli.md with everything after its marker made current. */
export function withCliReference(page: string, program: Command): string {
  const at = page.indexOf(START);
  if (at < 0) throw new Error(`docs/cli.md has no "${START}" marker.`);
  return `${page.slice(0, at + START.length)}\n\n${cliReference(program)}`;
}
