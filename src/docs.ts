import { readFileSync, writeFileSync } from 'node:fs';
import { cliProgram } from './cli.js';
import { withCliReference } from './cli-reference.js';
import { withToolTable } from './registry.js';

/** The pages of docs/ that hold generated parts, each with what makes them current. */
export const GENERATED_DOCS: ReadonlyArray<{ url: URL; current(page: string): string }> = [
  { url: new URL('../docs/tools.md', import.meta.url), current: withToolTable },
  { url: new URL('../docs/cli.md', import.meta.url), current: (page) => withCliReference(page, cliProgram()) },
];

/** `npm run docs`: rewrites the generated parts of docs/ (the table of tools, the CLI reference). */
export function writeDocs(): void {
  for (const { url, current } of GENERATED_DOCS) writeFileSync(url, current(readFileSync(url, 'utf8')));
}
