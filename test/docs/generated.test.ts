import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GENERATED_DOCS } from '../../src/docs.js';
import { CLI } from '../e2e/cli.js';
import { PG_MIGRATIONS } from '../store/adapters.js';
import { docSection, readDoc } from './markdown.js';

describe('the generated parts of docs/', () => {
  it.each(GENERATED_DOCS.map((d) => [fileURLToPath(d.url).replace(/.*\/docs\//, 'docs/'), d] as const))('%s is current (npm run docs rewrites it)', (_, doc) => {
    const page = readFileSync(doc.url, 'utf8');
    expect(doc.current(page), `${fileURLToPath(doc.url)} is out of date: run npm run docs`).toBe(page);
  });

  it("the CLI reference is what each command's --help prints", () => {
    for (const path of [['accounts', 'add'], ['serve'], ['events', 'tail']]) {
      const help = spawnSync(process.execPath, [CLI, ...path, '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
      expect(help.status).toBe(0);
      expect(docSection('docs/cli.md', `## switchboard ${path.join(' ')}`)).toContain(help.stdout.trimEnd());
    }
  });

  it("schema numbers in docs/postgres.md are the code's newest PostgreSQL migration", () => {
    const numbers = [...readDoc('docs/postgres.md').matchAll(/schema (?:0 → )?(\d+)/g)].map((m) => Number(m[1]));
    expect(numbers.length).toBeGreaterThanOrEqual(3);
    expect(new Set(numbers)).toEqual(new Set([PG_MIGRATIONS.at(-1)!.version]));
  });

  it('help piped into a reader that stops early ends quietly', () => {
    const r = spawnSync('bash', ['-c', `"${process.execPath}" "${CLI}" accounts add --help | head -1`], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    expect(r.stdout).toMatch(/^Usage: switchboard accounts add/);
    expect(r.stderr).toBe('');
  });
});
