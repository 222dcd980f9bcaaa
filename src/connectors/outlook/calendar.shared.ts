import * as z from 'zod/v4';
import { AccountError, InputError, ProviderError } from '../../errors.js';
import type { Account } from '../../store/types.js';

/** Time zones, event shapes and personal-account detection shared by the calendar tools. */

const LOCAL = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2}(\.\d{1,7})?)?$/;
const ZONE = /^[A-Za-z0-9_+\-/ .()]{1,100}$/;

// Windows zone names Graph accepts, for the ones we compare locally; unknown names are left to Graph.
const WINDOWS_ZONES: Record<string, string> = {
  'pacific standard time': 'America/Los_Angeles',
  'mountain standard time': 'America/Denver',
  'central standard time': 'America/Chicago',
  'eastern standard time': 'America/New_York',
  'gmt standard time': 'Europe/London',
  'w. europe standard time': 'Europe/Berlin',
  'romance standard time': 'Europe/Paris',
  'central europe standard time': 'Europe/Budapest',
  'e. europe standard time': 'Europe/Chisinau',
  'india standard time': 'Asia/Kolkata',
  'china standard time': 'Asia/Shanghai',
  'tokyo standard time': 'Asia/Tokyo',
  'aus eastern standard time': 'Australia/Sydney',
  'e. south america standard time': 'America/Sao_Paulo',
  'utc': 'UTC',
};

export const timeZoneField = z.string().optional().describe('Zone of returned times, IANA or Windows; default UTC');

export const dateTimeTimeZone = z
  .object({
    dateTime: z.string().describe('Local, e.g. 2025-03-14T09:30:00'),
    timeZone: z.string().describe('IANA or Windows zone'),
  })
  .strict();

/** The same shape for an end time, described more briefly (every description costs tokens in tools/list). */
export const endTimeZone = z.object({ dateTime: z.string().describe('Local, no offset'), timeZone: z.string().describe('Zone') }).strict();

/** A zone name as Graph takes it; an IANA-looking name must be one this runtime knows. */
export function checkZone(zone: string, field: string): string {
  const value = zone.trim();
  if (!ZONE.test(value)) throw new InputError(`"${field}" is not a time zone name; use an IANA name such as Europe/Paris or a Windows name such as Pacific Standard Time.`, field);
  if (value.includes('/') && !ianaKnown(value)) throw new InputError(`"${field}": unknown IANA time zone "${value}"; check the spelling (e.g. America/New_York).`, field);
  return value;
}

function ianaKnown(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A local date and time without offset, normalised to seconds: 2025-03-14T09:30 → 2025-03-14T09:30:00. */
export function checkLocal(value: string, field: string): string {
  const m = LOCAL.exec(value.trim());
  if (!m || Number.isNaN(Date.parse(`${m[1]}:00Z`))) {
    throw new InputError(`"${field}" must be a local date and time without offset, e.g. 2025-03-14T09:30:00; put the zone in timeZone or time_zone.`, field);
  }
  return m[1]! + (m[2]?.slice(0, 3) ?? ':00');
}

/** The instant a local time in a zone stands for, when this runtime knows the zone; undefined otherwise. */
export function instant(local: string, zone: string): number | undefined {
  const iana = WINDOWS_ZONES[zone.toLowerCase()] ?? zone;
  if (!ianaKnown(iana)) return undefined;
  const guess = wallMs(local);
  const offset = (at: number) => {
    const p = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', { timeZone: iana, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
        .formatToParts(at)
        .map((x) => [x.type, Number(x.value)]),
    );
    return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - at;
  };
  return guess - offset(guess - offset(guess));
}

/** Wall-clock arithmetic: a local time read as if it were UTC, and back. */
export const wallMs = (local: string) => Date.parse(local.slice(0, 19) + 'Z');
export const wallString = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/** Refuses an end that is not after its start, where the two can be compared here (else Graph decides). */
export function checkOrder(start: { dateTime: string; timeZone: string }, end: { dateTime: string; timeZone: string }, field = 'end'): void {
  const sameZone = start.timeZone.toLowerCase() === end.timeZone.toLowerCase();
  const a = sameZone ? wallMs(start.dateTime) : instant(start.dateTime, start.timeZone);
  const b = sameZone ? wallMs(end.dateTime) : instant(end.dateTime, end.timeZone);
  if (a !== undefined && b !== undefined && b <= a) {
    throw new InputError(`"${field}" (${end.dateTime} ${end.timeZone}) must be after start (${start.dateTime} ${start.timeZone}).`, field);
  }
}

/** Graph answers times in this zone. */
export const preferZone = (zone: string) => ({ prefer: `outlook.timezone="${zone}"` });

/** Graph's `2025-03-14T09:30:00.0000000` without the fraction. */
export const trimTime = (dateTime: string | undefined) => (dateTime ?? '').replace(/\.\d+$/, '');

const EMAIL = /^[^@\s"<>(),;:]+@[^@\s"'<>(),;:]+\.[^@\s"'<>(),;:]+$/;

export function checkEmail(address: string, field: string): string {
  const value = address.trim();
  if (!EMAIL.test(value)) throw new InputError(`"${field}" is not an email address ("${value.slice(0, 80)}"); give one such as ana@contoso.com.`, field);
  return value;
}

/** Personal Microsoft accounts (outlook.com, hotmail.com) sign in through the consumers tenant. */
export function isPersonalAccount(account: Account): boolean {
  return account.meta?.tenant === 'consumers';
}

/**
 * Whether Graph refused getSchedule or findMeetingTimes because the account is personal. The wire answer is not
 * documented ("not supported" for personal accounts), so this accepts a not-supported code or a message naming
 * personal/consumer accounts, on the statuses such a refusal could plausibly carry.
 */
export function isPersonalRefusal(error: unknown): boolean {
  if (!(error instanceof ProviderError) || ![400, 403, 404, 405, 501].includes(error.status)) return false;
  const code = error.code ?? '';
  const message = error.providerMessage ?? '';
  return /not_?supported|unsupported|notimplemented/i.test(code) || /personal|consumer|microsoft account|\bMSA\b/i.test(message);
}

export function personalAccountError(account: Account): AccountError {
  return new AccountError(
    `Free/busy of other people (Graph getSchedule) works only for work or school accounts, and "${account.label}" is a personal Microsoft account. ` +
      'Use outlook_check_availability (it falls back to your own calendar) or outlook_list_events.',
  );
}
