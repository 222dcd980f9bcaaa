import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core's violations for the page as it is now. Injected through DevTools evaluation, which the page's CSP does not govern. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: any[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: { target: string[] }) => n.target.join(' ')) }));
  });
}

const CONTROL_ROLES = new Set(['button', 'link', 'textbox', 'combobox', 'checkbox', 'spinbutton', 'radio', 'DisclosureTriangle']);

/** Every control a person can reach, with the accessible name Chromium computes for it (hidden ones excluded). */
export async function controlNames(page: Page): Promise<Array<{ role: string; name: string }>> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: Array<{ ignored: boolean; role?: { value: string }; name?: { value: string } }> };
    return nodes.filter((n) => !n.ignored && CONTROL_ROLES.has(n.role?.value ?? '')).map((n) => ({ role: n.role!.value, name: String(n.name?.value ?? '').trim() }));
  } finally {
    await cdp.detach();
  }
}

export function scrollWidths(page: Page): Promise<{ scrollWidth: number; clientWidth: number }> {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
}

/** Whether the whole element is inside the viewport. */
export function inViewport(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
  });
}

export function activeElementId(page: Page): Promise<string> {
  return page.evaluate(() => document.activeElement?.id ?? '');
}
