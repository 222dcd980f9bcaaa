import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { docSection, ROOT } from './markdown.js';

const SRC = join(ROOT, 'src');

/** A folder of src, or a file at its top, named as the page names it (`http/`, `cli.ts`). */
function unitOf(file: string): string {
  const [first, ...rest] = relative(SRC, file).split(sep);
  return rest.length ? `${first}/` : first!;
}

/** Which units each unit imports (static, type and dynamic imports), read from every source file. */
function unitImports(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const entry of readdirSync(SRC, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const imports = graph.get(unitOf(file)) ?? new Set<string>();
    graph.set(unitOf(file), imports);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), fileName.replace(/\.js$/, '.ts'));
      if (target.startsWith(SRC + sep) && unitOf(target) !== unitOf(file)) imports.add(unitOf(target));
    }
  }
  return graph;
}

/** The Floors table: each unit and the number of its floor. */
function floorsOnThePage(): Map<string, number> {
  const floors = new Map<string, number>();
  for (const row of docSection('docs/architecture.md', '## Floors').split('\n')) {
    const cells = /^\| (\d+)\. [^|]+\| ([^|]+) \|/.exec(row);
    if (!cells) continue;
    for (const [, unit] of cells[2]!.matchAll(/`([^`]+)`/g)) {
      expect(floors.has(unit!), `${unit} is on two floors`).toBe(false);
      floors.set(unit!, Number(cells[1]));
    }
  }
  return floors;
}

describe('docs/architecture.md', () => {
  it('puts every unit of src on one floor, and no unit imports one on a floor above its own', () => {
    const floors = floorsOnThePage();
    const graph = unitImports();
    expect([...graph.keys()].filter((unit) => !floors.has(unit)), 'units the page does not place').toEqual([]);
    expect([...floors.keys()].filter((unit) => !graph.has(unit)), 'units the page names that do not exist').toEqual([]);
    const upward = [...graph].flatMap(([unit, imports]) =>
      [...imports].filter((target) => floors.get(target)! > floors.get(unit)!).map((target) => `${unit} (floor ${floors.get(unit)}) imports ${target} (floor ${floors.get(target)})`),
    );
    expect(upward).toEqual([]);
  });

  it('names only source files that exist', () => {
    const page = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const named = [...page.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => m[1]!).filter((path) => path.includes('/'));
    expect(named.length).toBeGreaterThan(10);
    const exists = (path: string) => existsSync(join(SRC, path)) || existsSync(join(ROOT, path));
    expect(named.filter((path) => !exists(path))).toEqual([]);
  });
});
