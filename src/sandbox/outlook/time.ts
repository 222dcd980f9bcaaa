import type { SandboxRequest } from '../server.js';
import { GraphError } from './query.js';
import { header } from '../util.js';

/** Graph's dateTimeTimeZone handling: zone names in, wall-clock times out, `Prefer: outlook.timezone`. */

export interface GraphDateTime {
  dateTime: string;
  timeZone: string;
}

// Windows zone names Graph clients commonly send, mapped to IANA names.
const WINDOWS_ZONES: Record<string, string> = {
  'pacific standard time': 'America/Los_Angeles',
  'mountain standard time': 'America/Denver',
  'central standard time': 'America/Chicago',
  'eastern standard time': 'America/New_York',
  'gmt standard time': 'Europe/London',
  'w. europe standard time': 'Europe/Berlin',
  'romance standard time': 'Europe/Paris',
  'india standard time': 'Asia/Kolkata',
  'tokyo standard time': 'Asia/Tokyo',
};

const isUtc = (zone: string) => /^(utc|gmt|z|etc\/utc|coordinated universal time)$/i.test(zone);
const ianaOf = (zone: string) => WINDOWS_ZONES[zone.toLowerCase()] ?? zone;

function unsupported(zone: string): GraphError {
  return new GraphError(400, 'ErrorTimeZoneNotSupported', `The time zone '${zone}' is not supported.`);
}

/** Wall-clock parts of an instant in a zone. */
function partsIn(ms: number, zone: string): Record<string, number> {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', { timeZone: ianaOf(zone), hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }).formatToParts(ms);
  } catch {
    throw unsupported(zone);
  }
  return Object.fromEntries(parts.filter((p) => p.type !== 'literal').map((p) => [p.type, Number(p.value)]));
}

function offsetAt(ms: number, zone: string): number {
  const p = partsIn(ms, zone);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - (ms - (ms % 1000));
}

/** A wall-clock time in a named zone (IANA or a common Windows name) as epoch ms; an offset in the value wins. */
export function toUtcMs(dateTime: string, timeZone = 'UTC'): number {
  if (/(Z|[+-]\d{2}:\d{2})$/.test(dateTime)) return Date.parse(dateTime);
  const guess = Date.parse(dateTime.replace(/(\.\d{3})\d*$/, '$1') + 'Z');
  if (Number.isNaN(guess) || isUtc(timeZone)) return guess;
  return guess - offsetAt(guess - offsetAt(guess, timeZone), timeZone);
}

/** Graph's wire form of a UTC instant: `2024-05-01T09:00:00.0000000`. */
export function graphDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + '.0000000';
}

/** The wall-clock time of an instant in a zone, in Graph's wire form. */
export function fromUtcMs(ms: number, zone: string): string {
  if (isUtc(zone)) return graphDateTime(ms);
  const p = partsIn(ms, zone);
  return graphDateTime(Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!));
}

export const toIso = (t: GraphDateTime) => new Date(toUtcMs(t.dateTime, t.timeZone)).toISOString();

/** The zone of `Prefer: outlook.timezone="..."`, checked; undefined when absent (Graph then answers in UTC). */
export function preferredZone(req: SandboxRequest): string | undefined {
  const m = /outlook\.timezone\s*=\s*"([^"]*)"/i.exec(header(req, 'prefer') ?? '');
  if (!m) return undefined;
  const zone = m[1]!.trim();
  if (!isUtc(zone)) partsIn(0, zone);
  return zone;
}

/** A dateTimeTimeZone for an instant, in the caller's preferred zone (UTC when none). */
export function inZone(ms: number, zone: string | undefined): GraphDateTime {
  return zone ? { dateTime: fromUtcMs(ms, zone), timeZone: zone } : { dateTime: graphDateTime(ms), timeZone: 'UTC' };
}

export const DAY = 86_400_000;
export const HOUR = 3_600_000;
