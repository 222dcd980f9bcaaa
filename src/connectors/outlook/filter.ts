import { InputError } from '../../errors.js';

export type Condition =
  | { field: 'subject'; text: string }
  | { field: 'body'; text: string }
  | { field: 'from'; pattern: string }
  | { field: 'hasAttachments'; value: boolean }
  /** `date` is the calendar date as YYYY-MM-DD. */
  | { field: 'received'; date: string };

/** Plain JSON: safe to store and reload. No conditions means every email. */
export interface ParsedFilter {
  conditions: Condition[];
}

export interface FilterableEmail {
  subject: string | null;
  bodyText: string | null;
  bodyPreview?: string | null;
  from: { address: string | null; name?: string | null } | null;
  hasAttachments: boolean;
  receivedDateTime: string;
}

export const MAX_FILTER_LENGTH = 1000;

const FIELD_NAMES: Condition['field'][] = ['subject', 'body', 'from', 'hasAttachments', 'received'];
const FIELDS = new Map(FIELD_NAMES.map((name) => [name.toLowerCase(), name]));
const FIELD_LIST = 'subject:, body:, from:, hasAttachments: or received:';
const DATE_SHAPE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

export function describeFilterSyntax(): string {
  return 'Accepted forms: subject:<text>, body:<text>, from:<pattern with *>, hasAttachments:true|false, received:MM/DD/YYYY, joined by AND.';
}

export function parseFilter(text: string): ParsedFilter {
  if (text.length > MAX_FILTER_LENGTH) {
    fail(MAX_FILTER_LENGTH, `the filter is ${text.length} characters long; expected at most ${MAX_FILTER_LENGTH}`);
  }
  return new FilterParser(text).parse();
}

class FilterParser {
  private pos = 0;
  constructor(private readonly text: string) {}

  parse(): ParsedFilter {
    const conditions: Condition[] = [];
    this.skipSpace();
    if (this.atEnd()) return { conditions };
    conditions.push(this.condition('start'));
    for (;;) {
      this.skipSpace();
      if (this.atEnd()) return { conditions };
      const wordStart = this.pos;
      const word = this.readUntil(isSpace);
      const keyword = word.toUpperCase();
      if (keyword !== 'AND') {
        rejectUnsupported(keyword, wordStart);
        fail(wordStart, `expected "AND" between conditions, found ${show(word)}`);
      }
      this.skipSpace();
      if (this.atEnd()) fail(wordStart, 'expected a condition after "AND", found the end of the filter');
      conditions.push(this.condition('afterAnd'));
    }
  }

  private condition(context: 'start' | 'afterAnd'): Condition {
    const start = this.pos;
    const name = this.readUntil((ch) => isSpace(ch) || ch === ':');
    if (this.text[this.pos] !== ':') {
      const keyword = name.toUpperCase();
      if (keyword === 'AND') {
        fail(start, context === 'start' ? 'expected a condition before "AND"' : 'expected a condition after "AND", found another "AND"');
      }
      rejectUnsupported(keyword, start);
      if (FIELDS.has(name.toLowerCase())) fail(this.pos, `expected ":" after ${show(name)}`);
      fail(start, `expected a condition such as subject:<text>, found ${show(name)}`);
    }
    if (name === '') fail(start, `expected a field name before ":"; expected ${FIELD_LIST}`);
    const field = FIELDS.get(name.toLowerCase());
    if (!field) fail(start, `unknown field ${show(name)}; expected ${FIELD_LIST}`);
    this.pos++;
    const valueStart = this.pos;
    return toCondition(field, this.value(field), valueStart);
  }

  private value(field: string): string {
    const start = this.pos;
    const empty = `empty value after ${field}:; expected a word or "quoted text"`;
    if (this.atEnd() || isSpace(this.text[start])) fail(start, empty);
    if (this.text[start] !== '"') {
      const word = this.readUntil(isSpace);
      const quote = word.indexOf('"');
      if (quote >= 0) fail(start + quote, 'unexpected " inside an unquoted value; expected the whole value in quotes');
      return word;
    }
    let out = '';
    this.pos++;
    for (;;) {
      if (this.atEnd()) fail(start, 'unterminated quoted text; expected a closing "');
      const ch = this.text[this.pos];
      if (ch === '"') break;
      if (ch === '\\') {
        const next = this.text[this.pos + 1];
        if (next === undefined) fail(start, 'unterminated quoted text; expected a closing "');
        if (next !== '"' && next !== '\\') fail(this.pos, `unsupported escape: a backslash before ${show(next)}; expected \\" or \\\\`);
        out += next;
        this.pos += 2;
      } else {
        out += ch;
        this.pos++;
      }
    }
    this.pos++;
    if (!this.atEnd() && !isSpace(this.text[this.pos])) fail(this.pos, 'expected a space or the end after the closing quote');
    if (out === '') fail(start, empty);
    return out;
  }

  private readUntil(stop: (ch: string) => boolean): string {
    const start = this.pos;
    while (!this.atEnd() && !stop(this.text[this.pos])) this.pos++;
    return this.text.slice(start, this.pos);
  }

  private skipSpace(): void {
    while (!this.atEnd() && isSpace(this.text[this.pos])) this.pos++;
  }

  private atEnd(): boolean {
    return this.pos >= this.text.length;
  }
}

function toCondition(field: Condition['field'], value: string, at: number): Condition {
  switch (field) {
    case 'subject':
    case 'body':
      return { field, text: value };
    case 'from':
      return { field, pattern: value };
    case 'hasAttachments': {
      const lower = value.toLowerCase();
      if (lower !== 'true' && lower !== 'false') fail(at, `expected true or false after hasAttachments:, found ${show(value)}`);
      return { field, value: lower === 'true' };
    }
    case 'received':
      return { field, date: parseDate(value, at) };
  }
}

function parseDate(value: string, at: number): string {
  const parts = DATE_SHAPE.exec(value);
  if (!parts) fail(at, `expected a date as MM/DD/YYYY after received:, found ${show(value)}`);
  const [month, day, year] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (year < 1000 || month < 1 || month > 12 || day < 1 || day > daysInMonth) {
    fail(at, `${show(value)} is not a real date; expected MM/DD/YYYY`);
  }
  return `${year}-${pad(month)}-${pad(day)}`;
}

function rejectUnsupported(keyword: string, at: number): void {
  if (keyword === 'OR' || keyword === 'NOT') {
    fail(at, `${keyword} is not supported; expected conditions joined by AND (all must match)`);
  }
}

function fail(index: number, what: string): never {
  throw new InputError(`Filter error at position ${index + 1}: ${what}. ${describeFilterSyntax()}`, 'filter');
}

function show(token: string): string {
  return JSON.stringify(token.length > 40 ? `${token.slice(0, 40)}…` : token);
}

const isSpace = (ch: string) => ch.trim() === '';

const pad = (n: number) => String(n).padStart(2, '0');

export function matchesFilter(filter: ParsedFilter, email: FilterableEmail, options: { timeZone?: string } = {}): boolean {
  const formatter = dateFormatter(options.timeZone ?? 'UTC');
  const needsDate = filter.conditions.some((c) => c.field === 'received');
  const receivedOn = needsDate ? localDate(email.receivedDateTime, formatter) : undefined;
  return filter.conditions.every((condition) => {
    switch (condition.field) {
      case 'subject':
        return containsIgnoringCase(email.subject, condition.text);
      case 'body':
        return containsIgnoringCase(email.bodyText || email.bodyPreview || null, condition.text);
      case 'from':
        return matchesSender(condition.pattern, email.from);
      case 'hasAttachments':
        return email.hasAttachments === condition.value;
      case 'received':
        return receivedOn === condition.date;
    }
  });
}

function containsIgnoringCase(haystack: string | null, needle: string): boolean {
  return haystack !== null && haystack.toLowerCase().includes(needle.toLowerCase());
}

function matchesSender(pattern: string, from: FilterableEmail['from']): boolean {
  const address = from?.address?.toLowerCase();
  const wanted = pattern.toLowerCase();
  if (wanted.includes('*')) return address !== undefined && matchesWildcard(wanted, address);
  return address === wanted || from?.name?.toLowerCase() === wanted;
}

/** Whole-string match where `*` stands for any run of characters; iterative, O(pattern × text). */
export function matchesWildcard(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.length && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function dateFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    } catch {
      throw new InputError(`Unknown time zone ${show(timeZone)}; expected an IANA name such as "America/New_York" or "UTC".`, 'timeZone');
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Graph sends UTC instants; one without an offset is read as UTC, not as the host's local time. */
function localDate(isoDateTime: string, formatter: Intl.DateTimeFormat): string | undefined {
  const hasOffset = /(Z|[+-]\d{2}:?\d{2})$/i.test(isoDateTime);
  const instant = new Date(hasOffset ? isoDateTime : `${isoDateTime}Z`);
  if (Number.isNaN(instant.getTime())) return undefined;
  const parts = formatter.formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year').padStart(4, '0')}-${part('month')}-${part('day')}`;
}
