import { describe, expect, it } from 'vitest';
import { exactTime, relativeTime, timeTag } from '../../src/web/time.js';

const NOW = Date.parse('2025-03-14T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString();

describe('page times', () => {
  it('reads like a person would say it', () => {
    expect(relativeTime(ago(10), NOW)).toBe('just now');
    expect(relativeTime(ago(50), NOW)).toBe('1 minute ago');
    expect(relativeTime(ago(3 * 60), NOW)).toBe('3 minutes ago');
    expect(relativeTime(ago(2 * 3600), NOW)).toBe('2 hours ago');
    expect(relativeTime(ago(86_400), NOW)).toBe('yesterday');
    expect(relativeTime(ago(3 * 86_400), NOW)).toBe('3 days ago');
    expect(relativeTime(ago(21 * 86_400), NOW)).toBe('3 weeks ago');
    expect(relativeTime(ago(400 * 86_400), NOW)).toBe('last year');
    expect(relativeTime(ago(-2 * 3600), NOW)).toBe('in 2 hours');
    expect(relativeTime('not a date', NOW)).toBe('not a date');
  });

  it('keeps the exact time in the title and datetime', () => {
    expect(exactTime('2025-03-14T09:30:12.345Z')).toBe('2025-03-14 09:30:12 UTC');
    expect(timeTag(ago(180), NOW).value).toBe(`<time datetime="${ago(180)}" title="2025-03-14 11:57:00 UTC" data-relative>3 minutes ago</time>`);
  });
});
