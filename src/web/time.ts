import { html, type SafeHtml } from './html.js';

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];
const FORMAT = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** "just now", "3 minutes ago", "yesterday", "in 2 hours"; the page's script keeps these current with the same rules. */
export function relativeTime(iso: string, now: number): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (Math.abs(seconds) < 45) return 'just now';
  for (const [unit, size] of UNITS) if (Math.abs(seconds) >= size) return FORMAT.format(Math.round(seconds / size), unit);
  return FORMAT.format(Math.round(seconds / 60), 'minute');
}

/** The exact time, to the second, in UTC: "2025-03-14 09:30:12 UTC". */
export function exactTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

/** A human time with the exact one in its title and datetime. */
export function timeTag(iso: string, now: number): SafeHtml {
  return html`<time datetime="${iso}" title="${exactTime(iso)}" data-relative>${relativeTime(iso, now)}</time>`;
}
