import { GraphError } from './query.js';
import { DAY, fromUtcMs, toUtcMs } from './time.js';
import { isObject } from '../util.js';

/** Graph's patternedRecurrence: which dates a series falls on, evaluated in its recurrence time zone. */

const PATTERNS = ['daily', 'weekly', 'absoluteMonthly', 'relativeMonthly', 'absoluteYearly', 'relativeYearly'];
const RANGES = ['endDate', 'noEnd', 'numbered'];
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const INDEXES = ['first', 'second', 'third', 'fourth', 'last'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface Recurrence {
  pattern: { type: string; interval: number; daysOfWeek?: string[]; dayOfMonth?: number; month?: number; index?: string; firstDayOfWeek?: string };
  range: { type: string; startDate: string; endDate?: string; numberOfOccurrences?: number; recurrenceTimeZone?: string };
}

const invalid = (message: string) => new GraphError(400, 'ErrorPropertyValidationFailure', `Recurrence: ${message}`);

/** Checks a recurrence the way Graph does before it stores a series master. */
export function checkRecurrence(value: unknown): Recurrence {
  if (!isObject(value) || !isObject(value.pattern) || !isObject(value.range)) throw invalid("'recurrence' needs 'pattern' and 'range'.");
  const { pattern, range } = value as Recurrence;
  if (!PATTERNS.includes(pattern.type)) throw invalid(`pattern.type must be one of ${PATTERNS.join(', ')}.`);
  if (!Number.isInteger(pattern.interval) || pattern.interval < 1) throw invalid('pattern.interval must be a positive integer.');
  if (/weekly|relative/i.test(pattern.type) && (!Array.isArray(pattern.daysOfWeek) || !pattern.daysOfWeek.length || pattern.daysOfWeek.some((d) => !WEEKDAYS.includes(d)))) {
    throw invalid(`pattern.daysOfWeek is required for ${pattern.type}.`);
  }
  if (/absolute/.test(pattern.type) && !(Number(pattern.dayOfMonth) >= 1 && Number(pattern.dayOfMonth) <= 31)) throw invalid(`pattern.dayOfMonth is required for ${pattern.type}.`);
  if (/Yearly/.test(pattern.type) && !(Number(pattern.month) >= 1 && Number(pattern.month) <= 12)) throw invalid(`pattern.month is required for ${pattern.type}.`);
  if (!RANGES.includes(range.type)) throw invalid(`range.type must be one of ${RANGES.join(', ')}.`);
  if (typeof range.startDate !== 'string' || !DATE.test(range.startDate)) throw invalid('range.startDate must be a date (YYYY-MM-DD).');
  if (range.type === 'endDate' && (typeof range.endDate !== 'string' || !DATE.test(range.endDate) || range.endDate < range.startDate)) throw invalid('range.endDate must be a date on or after startDate.');
  if (range.type === 'numbered' && !(Number.isInteger(range.numberOfOccurrences) && range.numberOfOccurrences! > 0)) throw invalid('range.numberOfOccurrences must be a positive integer.');
  return value as Recurrence;
}

function matches(p: Recurrence['pattern'], first: Date, d: Date): boolean {
  const days = Math.round((d.getTime() - first.getTime()) / DAY);
  const months = (d.getUTCFullYear() - first.getUTCFullYear()) * 12 + d.getUTCMonth() - first.getUTCMonth();
  const weekday = WEEKDAYS[d.getUTCDay()]!;
  const lastOfMonth = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  const relative = () => {
    if (!p.daysOfWeek!.includes(weekday)) return false;
    const index = p.index ?? 'first';
    return index === 'last' ? d.getUTCDate() + 7 > lastOfMonth : Math.ceil(d.getUTCDate() / 7) === INDEXES.indexOf(index) + 1;
  };
  switch (p.type) {
    case 'daily':
      return days % p.interval === 0;
    case 'weekly': {
      const fdw = WEEKDAYS.indexOf(p.firstDayOfWeek ?? 'sunday');
      const weekStart = (x: Date) => x.getTime() - (((x.getUTCDay() - fdw + 7) % 7) * DAY);
      const weeks = Math.round((weekStart(d) - weekStart(first)) / (7 * DAY));
      return p.daysOfWeek!.includes(weekday) && weeks % p.interval === 0;
    }
    case 'absoluteMonthly':
      return months % p.interval === 0 && d.getUTCDate() === Math.min(p.dayOfMonth!, lastOfMonth);
    case 'relativeMonthly':
      return months % p.interval === 0 && relative();
    case 'absoluteYearly':
      return months % (12 * p.interval) === 0 && d.getUTCMonth() + 1 === p.month && d.getUTCDate() === p.dayOfMonth;
    default:
      return months % (12 * p.interval) === 0 && d.getUTCMonth() + 1 === p.month && relative();
  }
}

export interface Occurrence {
  /** The date the occurrence falls on in the recurrence time zone, YYYYMMDD: the key of its id. */
  key: string;
  start: number;
  end: number;
}

/**
 * The occurrences of a series whose original dates fall before `until` (epoch ms), in order.
 * Each keeps the master's wall-clock start time in the recurrence time zone, so DST moves it in UTC.
 */
export function expandSeries(recurrence: Recurrence, masterStart: number, masterEnd: number, masterZone: string, until: number): Occurrence[] {
  const zone = recurrence.range.recurrenceTimeZone || masterZone || 'UTC';
  const wallTime = fromUtcMs(masterStart, zone).slice(11, 19);
  const first = new Date(recurrence.range.startDate + 'T00:00:00Z');
  const last = recurrence.range.type === 'endDate' ? new Date(recurrence.range.endDate + 'T00:00:00Z').getTime() : Infinity;
  const count = recurrence.range.type === 'numbered' ? recurrence.range.numberOfOccurrences! : Infinity;
  const out: Occurrence[] = [];
  let seen = 0;
  // Bounded: ten years of days, whatever the range says.
  for (let i = 0, t = first.getTime(); i < 3660 && t <= last && seen < count; i++, t += DAY) {
    const d = new Date(t);
    if (!matches(recurrence.pattern, first, d)) continue;
    seen++;
    const date = d.toISOString().slice(0, 10);
    const start = toUtcMs(`${date}T${wallTime}`, zone);
    if (start >= until) break;
    out.push({ key: date.replace(/-/g, ''), start, end: start + (masterEnd - masterStart) });
  }
  return out;
}
