import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docFiles, everyShellBlock, readDoc, ROOT } from './markdown.js';

function testSources(dir = join(ROOT, 'test')): Array<{ path: string; text: string }> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testSources(path);
    return entry.name.endsWith('.test.ts') ? [{ path: relative(ROOT, path), text: readFileSync(path, 'utf8') }] : [];
  });
}

const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the docs', () => {
  it('run every command block in a test: each section with a sh block is read by some test through shellBlocks()', () => {
    const sources = testSources();
    const sections = [...new Set(everyShellBlock().map((b) => `${b.file}\n${b.heading}`))];
    expect(sections.length).toBeGreaterThan(10);
    const unread = sections.filter((section) => {
      const [file, heading] = section.split('\n') as [string, string];
      const call = new RegExp(`shellBlocks\\(\\s*['"\`]${quote(file)}['"\`],\\s*(['"\`])${quote(heading)}\\1`);
      return !sources.some((s) => call.test(s.text));
    });
    expect(unread.map((s) => s.replace('\n', ' ')), 'sections whose commands no test runs').toEqual([]);
  });

  it('README.md stays a front door of at most about 250 lines, with a table of every page of docs/', () => {
    const readme = readDoc('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    for (const page of docFiles().filter((f) => f.startsWith('docs/'))) expect(readme, page).toContain(`](${page})`);
  });

  it('every page opens with a title and a short summary, and every link between pages finds its file and heading', () => {
    const slug = (heading: string) =>
      heading
        .replace(/^#+ /, '')
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-');
    const anchors = new Map(docFiles().map((f) => [f, new Set(readDoc(f).split('\n').filter((l) => /^#{1,6} /.test(l)).map(slug))]));
    for (const file of docFiles()) {
      const text = readDoc(file);
      expect(text, file).toMatch(/^# .+\n\n[A-Z`]/);
      for (const [, target, anchor] of text.matchAll(/\]\(((?:docs\/|\.\.\/)?[\w./-]*?\.md)?(?:#([\w-]+))?\)/g)) {
        if (!target && !anchor) continue;
        const dir = file.startsWith('docs/') ? 'docs/' : '';
        const path = target ? relative(ROOT, join(ROOT, dir, target)) : file;
        expect(anchors.has(path), `${file} links to ${target}`).toBe(true);
        if (anchor) expect(anchors.get(path)!.has(anchor), `${file} links to ${path}#${anchor}`).toBe(true);
      }
    }
  });
});
