import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.js';
import {
  describeFilterSyntax,
  matchesFilter,
  matchesWildcard,
  parseFilter,
  type FilterableEmail,
  type ParsedFilter,
} from '../../src/connectors/outlook/filter.js';

const SYNTAX =
  'Accepted forms: subject:<text>, body:<text>, from:<pattern with *>, hasAttachments:true|false, received:MM/DD/YYYY, joined by AND.';

function email(overrides: Partial<FilterableEmail> = {}): FilterableEmail {
  return {
    subject: 'Quarterly Report',
    bodyText: 'Please find the numbers attached.',
    bodyPreview: 'Please find the numbers',
    from: { address: 'bob@acme.com', name: 'Bob Smith' },
    hasAttachments: true,
    receivedDateTime: '2024-03-10T15:00:00Z',
    ...overrides,
  };
}

function errorOf(filter: string): InputError {
  try {
    parseFilter(filter);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error(`expected ${JSON.stringify(filter)} to be refused`);
}

const matches = (filter: string, e: FilterableEmail, timeZone?: string) =>
  matchesFilter(parseFilter(filter), e, timeZone ? { timeZone } : undefined);

describe('parseFilter: valid filters', () => {
  const cases: [string, ParsedFilter['conditions']][] = [
    ['', []],
    ['   \t\n ', []],
    ['subject:invoice', [{ field: 'subject', text: 'invoice' }]],
    ['Subject:Invoice', [{ field: 'subject', text: 'Invoice' }]],
    ['BODY:hello', [{ field: 'body', text: 'hello' }]],
    ['subject:"quarterly report"', [{ field: 'subject', text: 'quarterly report' }]],
    ['subject:"say \\"hi\\" \\\\ now"', [{ field: 'subject', text: 'say "hi" \\ now' }]],
    ['subject:a:b', [{ field: 'subject', text: 'a:b' }]],
    ['subject:AND', [{ field: 'subject', text: 'AND' }]],
    ['from:*@acme.com', [{ field: 'from', pattern: '*@acme.com' }]],
    ['from:"Bob Smith"', [{ field: 'from', pattern: 'Bob Smith' }]],
    ['hasAttachments:true', [{ field: 'hasAttachments', value: true }]],
    ['HASATTACHMENTS:FALSE', [{ field: 'hasAttachments', value: false }]],
    ['received:02/29/2024', [{ field: 'received', date: '2024-02-29' }]],
    ['received:1/5/2024', [{ field: 'received', date: '2024-01-05' }]],
    ['received:"12/31/1999"', [{ field: 'received', date: '1999-12-31' }]],
    [
      'subject:a and body:b AND from:c@d.e And hasattachments:true',
      [
        { field: 'subject', text: 'a' },
        { field: 'body', text: 'b' },
        { field: 'from', pattern: 'c@d.e' },
        { field: 'hasAttachments', value: true },
      ],
    ],
    [
      '  subject:"x y"\tAND\n  received:07/04/2024  ',
      [
        { field: 'subject', text: 'x y' },
        { field: 'received', date: '2024-07-04' },
      ],
    ],
  ];

  it.each(cases)('parses %j', (filter, conditions) => {
    const parsed = parseFilter(filter);
    expect(parsed).toEqual({ conditions });
    expect(JSON.parse(JSON.stringify(parsed))).toEqual(parsed);
  });

  it('accepts a filter of exactly 1000 characters', () => {
    const filter = `subject:${'a'.repeat(992)}`;
    expect(filter).toHaveLength(1000);
    expect(parseFilter(filter).conditions).toHaveLength(1);
  });
});

describe('parseFilter: malformed filters', () => {
  const cases: [string, string, number][] = [
    ['form:bob', 'unknown field "form"; expected subject:, body:, from:, hasAttachments: or received:', 1],
    ['subject:a AND form:b', 'unknown field "form"', 15],
    ['constructor:x', 'unknown field "constructor"', 1],
    [':x', 'expected a field name before ":"', 1],
    ['subject hello', 'expected ":" after "subject"', 8],
    ['hasAttachments', 'expected ":" after "hasAttachments"', 15],
    ['hello', 'expected a condition such as subject:<text>, found "hello"', 1],
    ['subject:', 'empty value after subject:', 9],
    ['subject: invoice', 'empty value after subject:', 9],
    ['body:""', 'empty value after body:', 6],
    ['subject:"abc', 'unterminated quoted text; expected a closing "', 9],
    ['subject:a AND body:"abc\\"', 'unterminated quoted text', 20],
    ['subject:"abc\\', 'unterminated quoted text', 9],
    ['subject:"a\\nb"', 'unsupported escape: a backslash before "n"; expected \\" or \\\\', 11],
    ['subject:"a"b', 'expected a space or the end after the closing quote', 12],
    ['subject:a"b"', 'unexpected " inside an unquoted value', 10],
    ['hasAttachments:yes', 'expected true or false after hasAttachments:, found "yes"', 16],
    ['hasAttachments:"true "', 'expected true or false', 16],
    ['received:2024-01-05', 'expected a date as MM/DD/YYYY after received:, found "2024-01-05"', 10],
    ['received:02/30/2024', '"02/30/2024" is not a real date; expected MM/DD/YYYY', 10],
    ['received:02/29/2023', 'is not a real date', 10],
    ['received:13/01/2024', 'is not a real date', 10],
    ['received:00/10/2024', 'is not a real date', 10],
    ['received:01/05/24', 'expected a date as MM/DD/YYYY', 10],
    ['subject:a AND', 'expected a condition after "AND", found the end of the filter', 11],
    ['subject:a and   ', 'expected a condition after "AND"', 11],
    ['AND subject:a', 'expected a condition before "AND"', 1],
    ['  and subject:a', 'expected a condition before "AND"', 3],
    ['subject:a AND AND body:b', 'expected a condition after "AND", found another "AND"', 15],
    ['subject:a body:b', 'expected "AND" between conditions, found "body:b"', 11],
    ['subject:a ANDbody:b', 'expected "AND" between conditions', 11],
    ['subject:a OR body:b', 'OR is not supported; expected conditions joined by AND', 11],
    ['subject:a or body:b', 'OR is not supported', 11],
    ['NOT subject:a', 'NOT is not supported', 1],
    ['subject:a AND not body:b', 'NOT is not supported', 15],
    [`subject:${'a'.repeat(993)}`, 'the filter is 1001 characters long; expected at most 1000', 1001],
  ];

  it.each(cases)('refuses %j', (filter, fragment, position) => {
    const error = errorOf(filter);
    expect(error.field).toBe('filter');
    expect(error.message).toContain(fragment);
    expect(error.message).toMatch(new RegExp(`^Filter error at position ${position}: `));
    expect(error.message.endsWith(` ${describeFilterSyntax()}`)).toBe(true);
  });

  it('writes the whole message in the documented shape', () => {
    expect(errorOf('subject:a AND form:b').message).toBe(
      `Filter error at position 15: unknown field "form"; expected subject:, body:, from:, hasAttachments: or received:. ${SYNTAX}`,
    );
  });

  it('shortens a long offending token in the message', () => {
    const message = errorOf(`${'x'.repeat(500)}:y`).message;
    expect(message).toContain(`unknown field "${'x'.repeat(40)}…"`);
    expect(message).not.toContain('x'.repeat(41));
  });
});

describe('describeFilterSyntax', () => {
  it('lists every accepted form on one line', () => {
    expect(describeFilterSyntax()).toBe(SYNTAX);
    expect(describeFilterSyntax()).not.toContain('\n');
  });
});

describe('matchesFilter: from', () => {
  const from = (address: string | null, name: string | null = null) => email({ from: { address, name } });

  it.each([
    ['*@acme.com', 'bob@acme.com', true],
    ['*@acme.com', 'BOB@ACME.COM', true],
    ['*@acme.com', 'bob@acme.com.evil.io', false],
    ['*@acme.com', 'bob@notacme.org', false],
    ['bob@*', 'bob@x.org', true],
    ['bob@*', 'bobby@x.org', false],
    ['bob@*', 'jimbob@x.org', false],
    ['b*b@acme.com', 'bob@acme.com', true],
    ['b*b@acme.com', 'bb@acme.com', true],
    ['b*b@acme.com', 'bob@acme.co', false],
    ['*sales*', 'eu-sales@x.com', true],
    ['*sales*', 'sales@x.com', true],
    ['*sales*', 'x@Sales.example', true],
    ['*sales*', 'sale@x.com', false],
    ['*@*.com', 'a@b.c.com', true],
    ['*@*.com', 'a@b.org', false],
    ['a*b*c', 'aXbYbZc', true],
    ['a*b*c', 'aXbYcZ', false],
    ['*', 'anyone@anywhere', true],
    ['a.c@x.com', 'abc@x.com', false],
    ['a+b@x.com', 'a+b@x.com', true],
    ['a+b@x.com', 'aab@x.com', false],
  ] as const)('pattern %j against %j is %s', (pattern, address, expected) => {
    expect(matchesFilter({ conditions: [{ field: 'from', pattern }] }, from(address))).toBe(expected);
  });

  it('matches an exact address case-insensitively, and only the whole address', () => {
    expect(matches('from:Bob@Acme.com', from('bob@acme.com'))).toBe(true);
    expect(matches('from:bob@acme.com', from('bob@acme.com.au'))).toBe(false);
    expect(matches('from:bob@acme.com', from('x-bob@acme.com'))).toBe(false);
  });

  it('matches the display name exactly when the pattern has no *', () => {
    expect(matches('from:"bob SMITH"', from('b@x.com', 'Bob Smith'))).toBe(true);
    expect(matches('from:Bob', from('b@x.com', 'Bob Smith'))).toBe(false);
    expect(matches('from:Bob*', from('b@x.com', 'Bob Smith'))).toBe(false);
  });

  it('never matches an email without a sender address or name', () => {
    expect(matches('from:*', email({ from: null }))).toBe(false);
    expect(matches('from:*', from(null, 'Bob'))).toBe(false);
    expect(matches('from:bob', email({ from: { address: null } }))).toBe(false);
  });

  it('stays fast on a hostile pattern (no backtracking regex)', () => {
    const started = Date.now();
    expect(matchesWildcard(`${'*a'.repeat(200)}b`, 'a'.repeat(5000))).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('matchesFilter: text, attachments and AND', () => {
  it('matches subject as a case-insensitive substring', () => {
    expect(matches('subject:QUARTER', email())).toBe(true);
    expect(matches('subject:annual', email())).toBe(false);
    expect(matches('subject:report', email({ subject: null }))).toBe(false);
  });

  it('matches quoted text with spaces as one phrase', () => {
    expect(matches('subject:"quarterly report"', email({ subject: 'Re: Quarterly Report Q3' }))).toBe(true);
    expect(matches('subject:"quarterly report"', email({ subject: 'quarterly sales report' }))).toBe(false);
  });

  it('matches body text, falling back to bodyPreview when there is no body text', () => {
    expect(matches('body:NUMBERS', email())).toBe(true);
    expect(matches('body:attached', email({ bodyText: null, bodyPreview: 'see attached' }))).toBe(true);
    expect(matches('body:attached', email({ bodyText: '', bodyPreview: 'see attached' }))).toBe(true);
    expect(matches('body:preview-only', email({ bodyText: 'full body', bodyPreview: 'preview-only' }))).toBe(false);
    expect(matches('body:x', email({ bodyText: null, bodyPreview: undefined }))).toBe(false);
  });

  it('matches hasAttachments true and false', () => {
    expect(matches('hasAttachments:false', email({ hasAttachments: false }))).toBe(true);
    expect(matches('hasAttachments:false', email({ hasAttachments: true }))).toBe(false);
    expect(matches('hasAttachments:TRUE', email({ hasAttachments: true }))).toBe(true);
  });

  it('matches every email, even an empty one, with an empty filter', () => {
    const bare = email({ subject: null, bodyText: null, bodyPreview: null, from: null, hasAttachments: false });
    expect(matches('', bare)).toBe(true);
    expect(matches('   ', email())).toBe(true);
  });

  it('requires every condition joined by AND', () => {
    expect(matches('subject:quarterly AND from:*@acme.com AND hasAttachments:true', email())).toBe(true);
    expect(matches('subject:quarterly AND from:*@other.com', email())).toBe(false);
    expect(matches('subject:nope and from:*@acme.com', email())).toBe(false);
  });
});

describe('matchesFilter: received', () => {
  const originalTz = process.env.TZ;
  afterEach(() => {
    if (originalTz === undefined) delete process.env.TZ;
    else process.env.TZ = originalTz;
  });

  it('uses the UTC calendar date by default', () => {
    const late = email({ receivedDateTime: '2024-03-10T03:30:00Z' });
    expect(matches('received:03/10/2024', late)).toBe(true);
    expect(matches('received:03/09/2024', late)).toBe(false);
  });

  it('uses the calendar date in the given time zone around midnight', () => {
    const ny = 'America/New_York';
    const lateEvening = email({ receivedDateTime: '2024-03-10T03:30:00Z' }); // 23:30 on 03/09 in New York (EST)
    expect(matches('received:03/09/2024', lateEvening, ny)).toBe(true);
    expect(matches('received:03/10/2024', lateEvening, ny)).toBe(false);
    const midnight = email({ receivedDateTime: '2024-07-04T04:00:00Z' }); // 00:00 on 07/04 (EDT)
    const justBefore = email({ receivedDateTime: '2024-07-04T03:59:59Z' });
    expect(matches('received:07/04/2024', midnight, ny)).toBe(true);
    expect(matches('received:07/04/2024', justBefore, ny)).toBe(false);
    expect(matches('received:07/03/2024', justBefore, ny)).toBe(true);
  });

  it('reads an offset other than Z correctly', () => {
    const e = email({ receivedDateTime: '2024-01-01T01:00:00+02:00' }); // 2023-12-31T23:00Z
    expect(matches('received:12/31/2023', e)).toBe(true);
  });

  it('treats a date-time without an offset as UTC, whatever the host time zone', () => {
    process.env.TZ = 'Asia/Tokyo';
    expect(new Date('2024-01-01T05:00:00').getUTCDate(), 'the host time zone change must take effect').toBe(31);
    const e = email({ receivedDateTime: '2024-01-01T05:00:00' }); // read as Tokyo time it would be 12/31 in UTC
    expect(matches('received:01/01/2024', e)).toBe(true);
  });

  it('does not match an unreadable receivedDateTime', () => {
    expect(matches('received:01/01/2024', email({ receivedDateTime: 'yesterday' }))).toBe(false);
  });

  it('refuses an unknown time zone with an InputError on timeZone', () => {
    let caught: unknown;
    try {
      matches('received:01/01/2024', email(), 'Mars/Olympus');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InputError);
    expect((caught as InputError).field).toBe('timeZone');
    expect((caught as InputError).message).toContain('Unknown time zone "Mars/Olympus"');
  });
});
