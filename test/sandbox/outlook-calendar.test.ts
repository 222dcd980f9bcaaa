import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTLOOK_PERSONAL_TOKEN, SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { client } from './http.js';

/** The Graph sandbox's calendar side: series, time zones, shared calendars, the personal account, free/busy. */

let sandbox: Sandbox;
let api: ReturnType<typeof client>;
let personal: ReturnType<typeof client>;

beforeAll(async () => {
  sandbox = await startSandbox();
  api = client(sandbox.baseUrls.outlook, { authorization: `Bearer ${SANDBOX_TOKENS.outlook}` });
  personal = client(sandbox.baseUrls.outlook, { authorization: `Bearer ${OUTLOOK_PERSONAL_TOKEN}` });
});
afterAll(() => sandbox.close());

const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
const view = (from: string, to: string, extra = '') => `/me/calendarView?startDateTime=${from}&endDateTime=${to}${extra}`;

describe('recurring series', () => {
  it('calendarView expands the seeded stand-up into occurrences and one exception; /events shows the master', async () => {
    const res = await api('GET', view(`${day(-2)}T00:00:00Z`, `${day(3)}T00:00:00Z`, '&$top=100'));
    const standups = res.body.value.filter((e: any) => e.subject === 'Team standup');
    expect(standups.map((e: any) => e.type)).toEqual(['occurrence', 'occurrence', 'occurrence', 'exception', 'occurrence']);
    expect(standups[3].start.dateTime).toBe(`${day(1)}T08:30:00.0000000`);
    expect(new Set(standups.map((e: any) => e.seriesMasterId)).size).toBe(1);
    const list = await api('GET', '/me/events?$top=100');
    expect(list.body.value.filter((e: any) => e.subject === 'Team standup').map((e: any) => e.type)).toEqual(['seriesMaster']);
  });

  it('a weekly series in a zone keeps its wall-clock time; changing or deleting one occurrence touches only it', async () => {
    const monday = new Date(Date.UTC(2031, 0, 6)); // a Monday in winter
    const created = await api('POST', '/me/events', {
      body: {
        subject: '1:1',
        start: { dateTime: '2031-01-06T09:00:00', timeZone: 'Europe/Paris' },
        end: { dateTime: '2031-01-06T09:30:00', timeZone: 'Europe/Paris' },
        recurrence: { pattern: { type: 'weekly', interval: 1, daysOfWeek: ['monday', 'wednesday'] }, range: { type: 'endDate', startDate: '2031-01-06', endDate: '2031-01-15' } },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.type).toBe('seriesMaster');
    const paris = { prefer: 'outlook.timezone="Europe/Paris"' };
    const all = await api('GET', view(monday.toISOString(), '2031-01-20T00:00:00Z'), { headers: paris });
    const ones = all.body.value.filter((e: any) => e.subject === '1:1');
    expect(ones.map((e: any) => e.start.dateTime.slice(0, 16))).toEqual(['2031-01-06T09:00', '2031-01-08T09:00', '2031-01-13T09:00', '2031-01-15T09:00']);
    expect(ones[0].start.timeZone).toBe('Europe/Paris');
    const moved = await api('PATCH', `/me/events/${ones[1].id}`, { body: { start: { dateTime: '2031-01-08T11:00:00', timeZone: 'Europe/Paris' }, end: { dateTime: '2031-01-08T11:30:00', timeZone: 'Europe/Paris' } } });
    expect(moved.body).toMatchObject({ id: ones[1].id, type: 'exception', seriesMasterId: created.body.id });
    expect((await api('DELETE', `/me/events/${ones[2].id}`)).status).toBe(204);
    const after = await api('GET', view(monday.toISOString(), '2031-01-20T00:00:00Z'), { headers: paris });
    const rows = after.body.value.filter((e: any) => e.subject === '1:1').map((e: any) => `${e.type} ${e.start.dateTime.slice(0, 16)}`);
    expect(rows).toEqual(['occurrence 2031-01-06T09:00', 'exception 2031-01-08T11:00', 'occurrence 2031-01-15T09:00']);
    const bad = await api('POST', '/me/events', { body: { subject: 'x', start: { dateTime: '2031-01-06T09:00:00', timeZone: 'UTC' }, end: { dateTime: '2031-01-06T10:00:00', timeZone: 'UTC' }, recurrence: { pattern: { type: 'hourly', interval: 1 }, range: { type: 'noEnd', startDate: '2031-01-06' } } } });
    expect(bad.status).toBe(400);
  });
});

describe('time zones', () => {
  it('answers in the Prefer zone (IANA or Windows) and in UTC without one; an unknown zone is refused', async () => {
    const created = await api('POST', '/me/events', { body: { subject: 'Zoned', start: { dateTime: '2031-07-01T09:00:00', timeZone: 'Europe/Paris' }, end: { dateTime: '2031-07-01T10:00:00', timeZone: 'Europe/Paris' } } });
    expect(created.body.start).toEqual({ dateTime: '2031-07-01T07:00:00.0000000', timeZone: 'UTC' });
    const pacific = await api('GET', `/me/events/${created.body.id}`, { headers: { prefer: 'outlook.timezone="Pacific Standard Time"' } });
    expect(pacific.body.start).toEqual({ dateTime: '2031-07-01T00:00:00.0000000', timeZone: 'Pacific Standard Time' });
    expect(pacific.headers['preference-applied']).toBe('outlook.timezone="Pacific Standard Time"');
    const tokyo = await api('GET', view('2031-07-01T00:00:00Z', '2031-07-02T00:00:00Z'), { headers: { prefer: 'outlook.timezone="Asia/Tokyo"' } });
    expect(tokyo.body.value.find((e: any) => e.subject === 'Zoned').end).toEqual({ dateTime: '2031-07-01T17:00:00.0000000', timeZone: 'Asia/Tokyo' });
    const bad = await api('GET', `/me/events/${created.body.id}`, { headers: { prefer: 'outlook.timezone="Mars/Olympus"' } });
    expect(bad.body.error.code).toBe('ErrorTimeZoneNotSupported');
  });

  it('all-day events must start and end at midnight', async () => {
    const res = await api('POST', '/me/events', { body: { subject: 'x', isAllDay: true, start: { dateTime: '2031-07-01T09:00:00', timeZone: 'UTC' }, end: { dateTime: '2031-07-02T09:00:00', timeZone: 'UTC' } } });
    expect(res.body.error.code).toBe('ErrorPropertyValidationFailure');
  });
});

describe('create with transactionId', () => {
  it('a retry returns the same event; reusing the id for another event is refused', async () => {
    const body = { subject: 'Once', transactionId: '7c9e6679-7425-40de-944b-e07fc1f90ae7', start: { dateTime: '2031-02-01T09:00:00', timeZone: 'UTC' }, end: { dateTime: '2031-02-01T10:00:00', timeZone: 'UTC' } };
    const first = await api('POST', '/me/events', { body });
    const again = await api('POST', '/me/events', { body });
    expect(again.body.id).toBe(first.body.id);
    expect(sandbox.states.outlook.events.filter((e) => e.subject === 'Once')).toHaveLength(1);
    const other = await api('POST', '/me/events', { body: { ...body, subject: 'Other' } });
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('ErrorDuplicateTransactionId');
  });
});

describe('shared calendars and other calendars', () => {
  it('/users/{id} reaches a delegated mailbox, refuses one without access and an unknown user', async () => {
    const res = await api('GET', `/users/support@contoso.example/calendarView?startDateTime=${day(1)}T00:00:00Z&endDateTime=${day(2)}T00:00:00Z`);
    expect(res.body.value.map((e: any) => e.subject)).toEqual(['Support rota: Morgan', 'Incident review']);
    expect((await api('GET', '/users/support@contoso.example/contacts')).body.value.map((c: any) => c.displayName)).toEqual(['Northwind Billing']);
    expect((await api('GET', '/users/ceo@contoso.example/events')).body.error.code).toBe('ErrorAccessDenied');
    expect((await api('GET', '/users/ghost@contoso.example/events')).status).toBe(404);
  });

  it('lists calendars; a second calendar has its own view', async () => {
    const cals = await api('GET', '/me/calendars');
    expect(cals.body.value.map((c: any) => [c.name, c.isDefaultCalendar])).toEqual([['Calendar', true], ['Team events', false]]);
    const team = await api('GET', `/me/calendars/${cals.body.value[1].id}/calendarView?startDateTime=${day(0)}T00:00:00Z&endDateTime=${day(10)}T00:00:00Z`);
    expect(team.body.value.map((e: any) => e.subject)).toEqual(['Hackathon demo day']);
    const main = await api('GET', `/me/calendarView?startDateTime=${day(0)}T00:00:00Z&endDateTime=${day(10)}T00:00:00Z&$top=100`);
    expect(main.body.value.map((e: any) => e.subject)).not.toContain('Hackathon demo day');
    expect((await api('GET', '/me/calendars/nope/calendarView?startDateTime=2031-01-01&endDateTime=2031-01-02')).status).toBe(404);
  });
});

describe('personal account', () => {
  it('signs in as its own user with its own calendar and contacts', async () => {
    expect((await personal('GET', '/me')).body).toMatchObject({ displayName: 'Riley Park', userPrincipalName: 'riley.park@outlook.example' });
    const events = await personal('GET', view(`${day(1)}T00:00:00Z`, `${day(2)}T00:00:00Z`));
    expect(events.body.value.map((e: any) => e.subject)).toEqual(['Gym', 'Lunch with Sam', 'Call the bank', 'Podcast time']);
    expect((await personal('GET', '/me/contacts')).body.value.map((c: any) => c.displayName)).toEqual(['Sam Rivera', 'Jamie Park']);
    expect((await personal('GET', '/users/avery@contoso.example/events')).status).toBe(404);
  });

  it('getSchedule and findMeetingTimes are not supported', async () => {
    const window = { startTime: { dateTime: `${day(1)}T00:00:00`, timeZone: 'UTC' }, endTime: { dateTime: `${day(2)}T00:00:00`, timeZone: 'UTC' } };
    const schedule = await personal('POST', '/me/calendar/getSchedule', { body: { schedules: ['sam.rivera@acme.example'], ...window } });
    expect(schedule.status).toBe(400);
    expect(schedule.body.error).toMatchObject({ code: 'NotSupported', message: expect.stringMatching(/personal Microsoft accounts/) });
    const times = await personal('POST', '/me/findMeetingTimes', { body: { attendees: [], timeConstraint: { timeSlots: [{ start: window.startTime, end: window.endTime }] } } });
    expect(times.body.error.code).toBe('NotSupported');
  });
});

describe('free/busy for work accounts', () => {
  it('getSchedule sees series occurrences and answers in the Prefer zone', async () => {
    const res = await api('POST', '/me/calendar/getSchedule', {
      headers: { prefer: 'outlook.timezone="UTC"' },
      body: { schedules: ['avery@contoso.example', 'support@contoso.example'], startTime: { dateTime: `${day(1)}T08:00:00`, timeZone: 'UTC' }, endTime: { dateTime: `${day(1)}T12:00:00`, timeZone: 'UTC' }, availabilityViewInterval: 15 },
    });
    const [me, support] = res.body.value;
    expect(me.scheduleItems.map((i: any) => `${i.subject} ${i.start.dateTime.slice(11, 16)}`)).toEqual(['Weekly sync 10:00', 'Team standup 08:30']);
    expect(me.availabilityView).toBe('0020000022000000');
    expect(support.scheduleItems.map((i: any) => i.subject)).toEqual(['Incident review']);
  });

  it('findMeetingTimes suggests slots where everyone is free', async () => {
    const res = await api('POST', '/me/findMeetingTimes', {
      body: {
        attendees: [{ type: 'required', emailAddress: { address: 'priya@contoso.example' } }],
        timeConstraint: { timeSlots: [{ start: { dateTime: `${day(1)}T09:00:00`, timeZone: 'UTC' }, end: { dateTime: `${day(1)}T12:00:00`, timeZone: 'UTC' } }] },
        meetingDuration: 'PT1H',
      },
    });
    expect(res.body.meetingTimeSuggestions.map((s: any) => s.meetingTimeSlot.start.dateTime.slice(11, 16))).toEqual(['09:00', '10:30', '11:00']);
  });
});
