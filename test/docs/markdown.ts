import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI } from '../e2e/cli.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** README.md and every page of docs/, as paths from the repository's root. */
export function docFiles(): string[] {
  return ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

export const readDoc = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** The text under `heading` (the whole heading line, `## Moving to PostgreSQL`), up to the next heading of any level. */
export function docSection(file: string, heading: string): string {
  const text = readDoc(file);
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${file} has no heading "${heading}"`);
  const rest = text.slice(start + heading.length + 2);
  const next = rest.search(/^#{1,6} /m);
  return next === -1 ? rest : rest.slice(0, next);
}

/** The `sh` blocks of a section, indented ones dedented. */
export function shellBlocks(file: string, heading: string): string[] {
  return [...docSection(file, heading).matchAll(/^( *)```sh\n([\s\S]*?)^\1```/gm)].map(([, indent, body]) =>
    body!
      .split('\n')
      .map((line) => (line.startsWith(indent!) ? line.slice(indent!.length) : line))
      .join('\n'),
  );
}

/** A block's commands, one a line, comments dropped; a line ending in `\` goes on with the next. */
export function commandLines(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter(Boolean);
}

/** Every `sh` block in the docs, with the file and the heading it sits under. */
export function everyShellBlock(): Array<{ file: string; heading: string; block: string }> {
  const found: Array<{ file: string; heading: string; block: string }> = [];
  for (const file of docFiles()) {
    let heading = '';
    let fence: string | undefined;
    let lines: string[] = [];
    for (const line of readDoc(file).split('\n')) {
      if (fence !== undefined) {
        if (line === `${fence}\`\`\``) {
          found.push({ file, heading, block: lines.join('\n') });
          fence = undefined;
        } else lines.push(line);
        continue;
      }
      const open = /^( *)```sh$/.exec(line);
      if (open) [fence, lines] = [open[1]!, []];
      else if (/^#{1,6} /.test(line)) heading = line;
    }
  }
  return found;
}

/** A shell prelude in which `switchboard` is the built CLI, as `npm install -g .` would make it. */
export const SWITCHBOARD = `switchboard() { "${process.execPath}" "${CLI}" "$@"; }`;
