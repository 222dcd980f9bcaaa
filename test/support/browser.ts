import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const PACKAGE_DIR = join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..', '..');
const VERSION = (JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * The Chromium shipped inside the @sparticuz/chromium npm package, unpacked once per machine into a directory of
 * its own. The package unpacks into the temp dir itself, where parallel test files would see each other's
 * half-written binary; so each unpacks into a staging dir (TMPDIR of a child process) that is renamed into place.
 */
export async function chromiumExecutable(): Promise<{ path: string; fontConfig: string }> {
  const dir = join(tmpdir(), `switchboard-chromium-${VERSION}`);
  const fontConfig = join(dir, 'fonts.conf');
  if (!existsSync(fontConfig)) {
    const staging = mkdtempSync(join(tmpdir(), 'switchboard-chromium-staging-'));
    try {
      const script = "const { default: c } = await import('@sparticuz/chromium'); await c.executablePath();";
      await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: PACKAGE_DIR, env: { ...process.env, TMPDIR: staging } });
      // The package's fonts.conf names fixed Lambda paths; this one adds its bundled fonts to the machine's own.
      writeFileSync(
        join(staging, 'fonts.conf'),
        `<?xml version="1.0"?>\n<fontconfig>\n<include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n<dir>${join(dir, 'fonts', 'fonts')}</dir>\n<cachedir>${join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
      );
      mkdirSync(dirname(dir), { recursive: true });
      renameSync(staging, dir);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      // Another test file unpacked it first: use theirs.
      if (!existsSync(fontConfig)) throw error;
    }
  }
  return { path: join(dir, 'chromium'), fontConfig };
}

/** A real Chromium (from npm, see chromiumExecutable) driven by playwright-core, in a throw-away profile. */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const { path, fontConfig } = await chromiumExecutable();
  const userDataDir = mkdtempSync(join(tmpdir(), 'switchboard-profile-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: path,
    headless: true,
    args: CHROMIUM_ARGS,
    env: { ...process.env, FONTCONFIG_FILE: fontConfig },
  });
  // Well inside the test timeout, so a stuck step fails with what it was waiting for.
  context.setDefaultTimeout(8_000);
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One browser for the test file and a new page for each test, handed to `onPage`. A test fails when its page broke its
 * own Content-Security-Policy: the browser reports each violation on the console.
 */
export function usePages(onPage: (page: Page) => void): { readonly context: BrowserContext } {
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  let page: Page;
  let cspViolations: string[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    page = await browser!.context.newPage();
    onPage(page);
    cspViolations = [];
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) cspViolations.push(msg.text());
    });
  });
  afterEach(async () => {
    await page.close();
    expect(cspViolations, 'the page broke its own Content-Security-Policy').toEqual([]);
  });
  return {
    get context() {
      return browser!.context;
    },
  };
}
