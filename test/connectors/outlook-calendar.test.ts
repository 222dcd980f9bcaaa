import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OUTLOOK_PERSONAL_TOKEN, SANDBOX_TOKENS } from '../../src/sandbox/index.js';
import { startHarness, type Harness } from '../harness.js';
import { day, meeting, utcOf, wall } from './outlook-calendar.helpers.js';

// Outlook calendar tools: events (create, update, delete, list), free/busy, availability; time zones,
// shared mailboxes, personal accounts and permission groups.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.store.accounts.add({ provider: 'outlook', label: 'mail-only', groups: ['mail'], secret: { kind: 'token', token: SANDBOX_TOKENS.outlook } });
  await h.store.accounts.add({ provider: 'outlook', label: 'personal', meta: { tenant: 'consumers' }, groups: ['mail', 'calendar', 'contacts'], secret: { kind: 'token', token: OUTLOOK_PERSONAL_TOKEN } });
  // A personal account signed in through the common tenant: only Graph's refusal tells it apart.
  await h.store.accounts.add({ provider: 'outlook', label: 'personal-common', meta: { tenant: 'common' }, groups: ['calendar'], secret: { kind: 'token', token: OUTLOOK_PERSONAL_TOKEN } });
});
afterAll(() => h.close());
beforeEach(() => h.sandbox.servers.outlook.reset());

const requests = () => h.sandbox.servers.outlook.requests;
const last = () => requests().at(-1)!;
const state = () => h.sandbox.states.outlook;
const prefer = (i = -1) => requests().at(i)!.headers.prefer;

describe('outlook_create_event', () => {
  it('posts the spec event shape with a transactionId and Prefer in the start zone; returns the compact event', async () => {
    const r = await h.ok('outlook_create_event', {
      subject: 'Roadmap review',
      body: { content: 'Agenda: Q3 goals', contentType: 'text' },
      start: { dateTime: `${day(9)}T14:00`, timeZone: 'Pacific Standard Time' },
      end: { dateTime: `${day(9)}T15:00:00`, timeZone: 'Pacific Standard Time' },
      location: 'Room 4A',
      attendees: [{ address: 'priya@contoso.example', name: 'Priya Patel' }, { address: 'room-4a@contoso.example', type: 'resource' }],
      is_online_meeting: true,
      reminder_minutes: 10,
      show_as: 'tentative',
    });
    expect(requests()).toHaveLength(1);
    expect(last().method).toBe('POST');
    expect(last().path).toBe('/v1.0/me/events');
    expect(prefer()).toBe('outlook.timezone="Pacific Standard Time"');
    expect(last().body).toEqual({
      subject: 'Roadmap review',
      body: { contentType: 'Text', content: 'Agenda: Q3 goals' },
      start: { dateTime: `${day(9)}T14:00:00`, timeZone: 'Pacific Standard Time' },
      end: { dateTime: `${day(9)}T15:00:00`, timeZone: 'Pacific Standard Time' },
      location: { displayName: 'Room 4A' },
      attendees: [
        { emailAddress: { address: 'priya@contoso.example', name: 'Priya Patel' }, type: 'required' },
        { emailAddress: { address: 'room-4a@contoso.example' }, type: 'resource' },
      ],
      isOnlineMeeting: true,
      reminderMinutesBeforeStart: 10,
      isReminderOn: true,
      showAs: 'tentative',
      transactionId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    });
    expect(r).toEqual({
      id: expect.any(String),
      subject: 'Roadmap review',
      start: `${day(9)}T14:00:00`,
      end: `${day(9)}T15:00:00`,
      time_zone: 'Pacific Standard Time',
      webLink: expect.stringContaining('outlook.office365.com'),
      attendees: [
        { address: 'priya@contoso.example', type: 'required', response: 'none' },
        { address: 'room-4a@contoso.example', type: 'resource', response: 'none' },
      ],
      onlineMeetingUrl: expect.stringContaining('teams.microsoft.com'),
    });
    const stored = state().events.find((e) => e.id === r.id)!;
    expect(stored).toMatchObject({ subject: 'Roadmap review', showAs: 'tentative', originalStartTimeZone: 'Pacific Standard Time' });
    expect(Date.parse(stored.start.dateTime + 'Z')).toBe(utcOf(`${day(9)}T14:00:00`, 'America/Los_Angeles'));
  });

  it('the same transaction_id twice makes one event; reused for a different event Graph refuses it', async () => {
    const transaction_id = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
    const a = await h.ok('outlook_create_event', { ...meeting('Retry-safe', 11), transaction_id });
    const b = await h.ok('outlook_create_event', { ...meeting('Retry-safe', 11), transaction_id });
    expect(b.id).toBe(a.id);
    expect(requests().map((r) => r.body.transactionId)).toEqual([transaction_id, transaction_id]);
    expect(state().events.filter((e) => e.subject === 'Retry-safe')).toHaveLength(1);
    const text = await h.fails('outlook_create_event', { ...meeting('Something else', 11), transaction_id });
    expect(text).toMatch(/400/);
    expect(text).toMatch(/ErrorDuplicateTransactionId/);
  });

  it('waits out a 429 with a fractional Retry-After and sends the same transactionId again (no duplicate)', async () => {
    h.sandbox.servers.outlook.once('POST /v1.0/me/events', {
      status: 429,
      headers: { 'retry-after': '0.05' },
      body: { error: { code: 'TooManyRequests', message: 'Please retry again later.' } },
    });
    const r = await h.ok('outlook_create_event', meeting('Throttled', 12));
    expect(requests()).toHaveLength(2);
    expect(requests()[1]!.body.transactionId).toBe(requests()[0]!.body.transactionId);
    expect(state().events.filter((e) => e.subject === 'Throttled').map((e) => e.id)).toEqual([r.id]);
  });

  it('refuses an end before the start, naming end, and sends nothing', async () => {
    const text = await h.fails('outlook_create_event', { subject: 'Backwards', start: { dateTime: `${day(3)}T10:00:00`, timeZone: 'Europe/Paris' }, end: { dateTime: `${day(3)}T09:00:00`, timeZone: 'Europe/Paris' } });
    expect(text).toMatch(/"end".*must be after start/);
    // Different zones are compared as instants: 09:00 in New York is after 10:00 in Paris.
    await h.ok('outlook_create_event', { subject: 'Across zones', start: { dateTime: `${day(3)}T10:00:00`, timeZone: 'Europe/Paris' }, end: { dateTime: `${day(3)}T09:00:00`, timeZone: 'America/New_York' } });
    expect(requests()).toHaveLength(1);
  });

  it('refuses an offset in dateTime, a bad attendee address, a non-midnight all-day event and a bad transaction_id by field', async () => {
    expect(await h.fails('outlook_create_event', { ...meeting('x', 3), start: { dateTime: `${day(3)}T09:00:00Z`, timeZone: 'UTC' } })).toMatch(/"start.dateTime" must be a local date and time without offset/);
    expect(await h.fails('outlook_create_event', meeting('x', 3, { attendees: [{ address: 'priya' }] }))).toMatch(/"attendees\[0\].address" is not an email address/);
    expect(await h.fails('outlook_create_event', meeting('x', 3, { is_all_day: true }))).toMatch(/"start.dateTime" of an all-day event must be at midnight/);
    expect(await h.fails('outlook_create_event', meeting('x', 3, { transaction_id: 'abc' }))).toMatch(/"transaction_id" must be a UUID/);
    expect(await h.fails('outlook_create_event', { ...meeting('x', 3), start: { dateTime: `${day(3)}T09:00:00`, timeZone: 'Europe/Pariss' } })).toMatch(/unknown IANA time zone "Europe\/Pariss"/);
    expect(requests()).toHaveLength(0);
  });

  it('refuses an account without the calendar permission group, naming it, and sends nothing', async () => {
    const text = await h.fails('outlook_create_event', { ...meeting('x', 3), account: 'mail-only' });
    expect(text).toMatch(/was not granted the calendar permission group/);
    expect(text).toMatch(/--groups mail,calendar/);
    expect(requests()).toHaveLength(0);
  });
});

describe('outlook_update_event', () => {
  it('PATCHes only the given fields, replaces attendees whole, answers in the asked zone', async () => {
    const created = await h.ok('outlook_create_event', meeting('Draft plan', 13, { attendees: [{ address: 'priya@contoso.example' }, { address: 'sam.rivera@acme.example' }], location: 'Room 1' }));
    h.sandbox.servers.outlook.reset();
    const r = await h.ok('outlook_update_event', { id: created.id, subject: 'Final plan', attendees: [{ address: 'jordan.lee@fabrikam.example', type: 'optional' }], time_zone: 'Asia/Tokyo' });
    expect(last().method).toBe('PATCH');
    expect(last().path).toBe(`/v1.0/me/events/${encodeURIComponent(created.id)}`);
    expect(last().body).toEqual({ subject: 'Final plan', attendees: [{ emailAddress: { address: 'jordan.lee@fabrikam.example' }, type: 'optional' }] });
    expect(prefer()).toBe('outlook.timezone="Asia/Tokyo"');
    expect(r).toMatchObject({ id: created.id, subject: 'Final plan', start: `${day(13)}T18:00:00`, time_zone: 'Asia/Tokyo', attendees: [{ address: 'jordan.lee@fabrikam.example', type: 'optional', response: 'none' }] });
    expect(state().events.find((e) => e.id === created.id)!.location.displayName).toBe('Room 1');
  });

  it('moves an event to new times given in a zone', async () => {
    const created = await h.ok('outlook_create_event', meeting('Move me', 14));
    const r = await h.ok('outlook_update_event', { id: created.id, start: { dateTime: `${day(14)}T16:00:00`, timeZone: 'Europe/Paris' }, end: { dateTime: `${day(14)}T17:00:00`, timeZone: 'Europe/Paris' } });
    expect(r).toMatchObject({ start: `${day(14)}T16:00:00`, end: `${day(14)}T17:00:00`, time_zone: 'Europe/Paris' });
    expect(Date.parse(state().events.find((e) => e.id === created.id)!.start.dateTime + 'Z')).toBe(utcOf(`${day(14)}T16:00:00`, 'Europe/Paris'));
  });

  it('surfaces ErrorItemNotFound for an unknown id, and refuses an update with nothing to change', async () => {
    const text = await h.fails('outlook_update_event', { id: 'AAMkAGEnope', subject: 'x' });
    expect(text).toMatch(/404/);
    expect(text).toMatch(/ErrorItemNotFound/);
    expect(await h.fails('outlook_update_event', { id: 'AAMkAGEnope' })).toMatch(/Nothing to change/);
    expect(requests()).toHaveLength(1);
  });
});

describe('outlook_delete_event', () => {
  it('DELETEs the event and returns {deleted, id}; a second delete is ErrorItemNotFound', async () => {
    const created = await h.ok('outlook_create_event', meeting('Doomed', 15));
    h.sandbox.servers.outlook.reset();
    expect(await h.ok('outlook_delete_event', { id: created.id })).toEqual({ deleted: true, id: created.id });
    expect(last().method).toBe('DELETE');
    expect(last().path).toBe(`/v1.0/me/events/${encodeURIComponent(created.id)}`);
    expect(state().events.some((e) => e.id === created.id)).toBe(false);
    const text = await h.fails('outlook_delete_event', { id: created.id });
    expect(text).toMatch(/Microsoft Graph answered 404 to DELETE/);
    expect(text).toMatch(/ErrorItemNotFound/);
  });
});

describe('outlook_list_events', () => {
  const window = { start: `${day(-2)}T00:00:00Z`, end: `${day(3)}T00:00:00Z` };

  it('reads calendarView with the range, compact $select, order and Prefer; series come expanded', async () => {
    const r = await h.ok('outlook_list_events', { ...window, limit: 100 });
    expect(last().method).toBe('GET');
    expect(last().path).toBe('/v1.0/me/calendarView');
    expect(Object.fromEntries(last().query)).toEqual({
      startDateTime: window.start,
      endDateTime: window.end,
      $select: 'subject,start,end,location,organizer,isAllDay,showAs,type,webLink',
      $orderby: 'start/dateTime',
      $top: '100',
    });
    expect(prefer()).toBe('outlook.timezone="UTC"');
    expect(r.time_zone).toBe('UTC');
    const standups = r.events.filter((e: any) => e.subject === 'Team standup');
    expect(standups.map((e: any) => e.type)).toEqual(['occurrence', 'occurrence', 'occurrence', 'exception', 'occurrence']);
    expect(standups[3]).toMatchObject({ start: `${day(1)}T08:30:00`, end: `${day(1)}T08:45:00` });
    expect(r.events.find((e: any) => e.subject === 'Fabrikam renewal call')).toEqual({
      id: expect.any(String),
      subject: 'Fabrikam renewal call',
      start: `${day(1)}T14:00:00`,
      end: `${day(1)}T15:00:00`,
      location: 'Conference Room 4A',
      organizer: 'avery@contoso.example',
      isAllDay: false,
      showAs: 'busy',
      type: 'singleInstance',
      webLink: expect.any(String),
    });
    expect(r.events.find((e: any) => e.subject === 'Lisbon offsite')).toMatchObject({ isAllDay: true, showAs: 'oof' });
    const starts = r.events.map((e: any) => e.start);
    expect(starts).toEqual([...starts].sort());
  });

  it('pages through more than one page with the cursor, keeping the zone', async () => {
    const first = await h.ok('outlook_list_events', { ...window, limit: 3, time_zone: 'Europe/Paris' });
    expect(first.events).toHaveLength(3);
    expect(first.next_cursor).toEqual(expect.any(String));
    const seen = [...first.events];
    let cursor = first.next_cursor;
    let pages = 1;
    while (cursor) {
      const page = await h.ok('outlook_list_events', { ...window, limit: 3, time_zone: 'Europe/Paris', cursor });
      expect(last().query.get('$skip')).toBe(String(pages * 3));
      expect(prefer()).toBe('outlook.timezone="Europe/Paris"');
      seen.push(...page.events);
      cursor = page.next_cursor;
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    const all = await h.ok('outlook_list_events', { ...window, limit: 100 });
    expect(seen.map((e) => e.id)).toEqual(all.events.map((e: any) => e.id));
  });

  it('an event created in one zone lists with converted times in another (IANA and Windows names)', async () => {
    const d = day(20);
    const created = await h.ok('outlook_create_event', { subject: 'Paris standup', start: { dateTime: `${d}T09:00:00`, timeZone: 'Europe/Paris' }, end: { dateTime: `${d}T09:45:00`, timeZone: 'Europe/Paris' } });
    expect(created).toMatchObject({ start: `${d}T09:00:00`, end: `${d}T09:45:00`, time_zone: 'Europe/Paris' });
    const start = utcOf(`${d}T09:00:00`, 'Europe/Paris');
    const range = { start: `${d}T00:00:00Z`, end: `${day(21)}T00:00:00Z` };
    const ny = await h.ok('outlook_list_events', { ...range, time_zone: 'America/New_York' });
    expect(prefer()).toBe('outlook.timezone="America/New_York"');
    expect(ny.events.find((e: any) => e.id === created.id)).toMatchObject({ start: wall(start, 'America/New_York'), end: wall(start + 45 * 60_000, 'America/New_York') });
    const pacific = await h.ok('outlook_list_events', { ...range, time_zone: 'Pacific Standard Time' });
    expect(pacific.time_zone).toBe('Pacific Standard Time');
    expect(pacific.events.find((e: any) => e.id === created.id).start).toBe(wall(start, 'America/Los_Angeles'));
    const utc = await h.ok('outlook_list_events', range);
    expect(utc.events.find((e: any) => e.id === created.id).start).toBe(wall(start, 'UTC'));
  });

  it('passes an offset in the range through (Graph honours it) and a bare date as midnight UTC', async () => {
    const r = await h.ok('outlook_list_events', { start: `${day(1)}T14:30:00+02:00`, end: day(2) });
    expect(last().query.get('startDateTime')).toBe(`${day(1)}T14:30:00+02:00`);
    expect(last().query.get('endDateTime')).toBe(`${day(2)}T00:00:00`);
    // 14:30+02:00 is 12:30 UTC: the 14:00 UTC call is in, the 10:00 weekly sync is out.
    expect(r.events.map((e: any) => e.subject)).toEqual(['Fabrikam renewal call']);
    expect(await h.fails('outlook_list_events', { start: day(2), end: day(1) })).toMatch(/"end".*must be after "start"/);
  });

  it('reads another calendar by id, and a shared mailbox by address; refuses one without delegated access', async () => {
    const team = state().calendars![1]!;
    const r = await h.ok('outlook_list_events', { start: day(0), end: day(10), calendar_id: team.id });
    expect(last().path).toBe(`/v1.0/me/calendars/${encodeURIComponent(team.id)}/calendarView`);
    expect(r.events.map((e: any) => e.subject)).toEqual(['Hackathon demo day']);
    const shared = await h.ok('outlook_list_events', { start: day(1), end: day(2), mailbox: 'support@contoso.example' });
    expect(last().path).toBe('/v1.0/users/support%40contoso.example/calendarView');
    expect(shared.events.map((e: any) => [e.subject, e.organizer])).toEqual([['Support rota: Morgan', 'support@contoso.example'], ['Incident review', 'support@contoso.example']]);
    const text = await h.fails('outlook_list_events', { start: day(1), end: day(2), mailbox: 'ceo@contoso.example' });
    expect(text).toMatch(/refused access to the mailbox "ceo@contoso.example".*delegated access/);
  });

  it('surfaces Graph errors: an unknown calendar id, a zone Graph does not know', async () => {
    const missing = await h.fails('outlook_list_events', { start: day(0), end: day(1), calendar_id: 'nope' });
    expect(missing).toMatch(/404.*ErrorItemNotFound/);
    const zone = await h.fails('outlook_list_events', { start: day(0), end: day(1), time_zone: 'Atlantis Standard Time' });
    expect(zone).toMatch(/400.*ErrorTimeZoneNotSupported/);
  });
});

describe('outlook_get_free_busy', () => {
  it('posts getSchedule with the window in the zone and Prefer; returns views, items and per-person errors', async () => {
    const r = await h.ok('outlook_get_free_busy', {
      schedules: ['priya@contoso.example', 'morgan.chen@contoso.example', 'nobody@contoso.example'],
      start: `${day(1)}T08:00:00`,
      end: `${day(1)}T16:00:00`,
      interval_minutes: 60,
    });
    expect(last().method).toBe('POST');
    expect(last().path).toBe('/v1.0/me/calendar/getSchedule');
    expect(last().body).toEqual({
      schedules: ['priya@contoso.example', 'morgan.chen@contoso.example', 'nobody@contoso.example'],
      startTime: { dateTime: `${day(1)}T08:00:00`, timeZone: 'UTC' },
      endTime: { dateTime: `${day(1)}T16:00:00`, timeZone: 'UTC' },
      availabilityViewInterval: 60,
    });
    expect(prefer()).toBe('outlook.timezone="UTC"');
    const [priya, morgan, nobody] = r.schedules;
    expect(priya).toEqual({
      scheduleId: 'priya@contoso.example',
      availabilityView: '00200220',
      items: [
        { status: 'busy', start: `${day(1)}T10:00:00`, end: `${day(1)}T10:30:00`, subject: 'Weekly sync' },
        { status: 'busy', start: `${day(1)}T13:00:00`, end: `${day(1)}T15:00:00`, subject: 'Design review' },
      ],
    });
    expect(morgan.availabilityView).toBe('01000000');
    expect(nobody).toEqual({ scheduleId: 'nobody@contoso.example', availabilityView: '', items: [], error: expect.stringMatching(/^ErrorMailRecipientNotFound/) });
  });

  it('returns item times in the asked zone', async () => {
    const r = await h.ok('outlook_get_free_busy', { schedules: ['priya@contoso.example'], start: `${day(1)}T00:00:00`, end: `${day(2)}T00:00:00`, time_zone: 'Asia/Kolkata' });
    expect(last().body.startTime).toEqual({ dateTime: `${day(1)}T00:00:00`, timeZone: 'Asia/Kolkata' });
    expect(prefer()).toBe('outlook.timezone="Asia/Kolkata"');
    expect(r.schedules[0].items.find((i: any) => i.subject === 'Weekly sync').start).toBe(wall(Date.parse(`${day(1)}T10:00:00Z`), 'Asia/Kolkata'));
  });

  it('a personal account is told to use check_availability, before anything is sent', async () => {
    const text = await h.fails('outlook_get_free_busy', { schedules: ['sam.rivera@acme.example'], start: `${day(1)}T08:00:00`, end: `${day(1)}T16:00:00`, account: 'personal' });
    expect(text).toMatch(/only for work or school accounts.*outlook_check_availability/);
    expect(requests()).toHaveLength(0);
  });

  it("surfaces a 503 without retrying the POST, and Graph's refusal for a personal account as the same advice", async () => {
    h.sandbox.servers.outlook.once('POST /v1.0/me/calendar/getSchedule', { status: 503, body: { error: { code: 'serviceNotAvailable', message: 'Service unavailable' } } });
    const text = await h.fails('outlook_get_free_busy', { schedules: ['priya@contoso.example'], start: `${day(1)}T08:00:00`, end: `${day(1)}T16:00:00` });
    expect(text).toMatch(/503.*serviceNotAvailable/);
    expect(requests()).toHaveLength(1);
    const refused = await h.fails('outlook_get_free_busy', { schedules: ['priya@contoso.example'], start: `${day(1)}T08:00:00`, end: `${day(1)}T16:00:00`, account: 'personal-common' });
    expect(refused).toMatch(/personal Microsoft account.*outlook_check_availability/);
  });
});

describe('outlook_check_availability', () => {
  it('work account: getSchedule for you and the people, busy blocks, common slots', async () => {
    const r = await h.ok('outlook_check_availability', { people: ['priya@contoso.example', 'morgan.chen@contoso.example'], start: `${day(1)}T08:00:00`, end: `${day(1)}T12:00:00` });
    expect(requests().map((x) => `${x.method} ${x.path}`)).toEqual(['POST /v1.0/me/calendar/getSchedule']);
    expect(last().body.schedules).toEqual(['avery@contoso.example', 'priya@contoso.example', 'morgan.chen@contoso.example']);
    expect(prefer()).toBe('outlook.timezone="UTC"');
    expect(r.source).toBe('getSchedule');
    expect(r.all_free).toBe(false);
    expect(r.busy).toEqual(
      expect.arrayContaining([
        { person: 'avery@contoso.example', start: `${day(1)}T08:30:00`, end: `${day(1)}T08:45:00`, status: 'busy' },
        { person: 'avery@contoso.example', start: `${day(1)}T10:00:00`, end: `${day(1)}T10:30:00`, status: 'busy' },
        { person: 'priya@contoso.example', start: `${day(1)}T10:00:00`, end: `${day(1)}T10:30:00`, status: 'busy' },
        { person: 'morgan.chen@contoso.example', start: `${day(1)}T09:00:00`, end: `${day(1)}T10:00:00`, status: 'tentative' },
      ]),
    );
    expect(r.busy).toHaveLength(4);
    expect(r.slots.map((s: any) => `${s.start.slice(11, 16)}-${s.end.slice(11, 16)}`)).toEqual(['08:00-08:30', '10:30-11:00', '11:00-11:30', '11:30-12:00']);
    expect(r.note).toBeUndefined();
  });

  it('reports all free for a free window, honours duration, max_slots and time_zone, and names people it could not check', async () => {
    const r = await h.ok('outlook_check_availability', { people: ['priya@contoso.example', 'ghost@contoso.example'], start: `${day(1)}T11:00:00`, end: `${day(1)}T13:00:00`, duration_minutes: 45, max_slots: 1 });
    expect(r.all_free).toBe(true);
    expect(r.slots).toEqual([{ start: `${day(1)}T11:00:00`, end: `${day(1)}T11:45:00` }]);
    expect(r.note).toMatch(/Could not check: ghost@contoso.example \(ErrorMailRecipientNotFound\)/);
    const local = await h.ok('outlook_check_availability', { start: `${day(1)}T00:00:00`, end: `${day(2)}T00:00:00`, time_zone: 'Asia/Tokyo', max_slots: 50 });
    expect(last().body.startTime).toEqual({ dateTime: `${day(1)}T00:00:00`, timeZone: 'Asia/Tokyo' });
    const sync = wall(Date.parse(`${day(1)}T10:00:00Z`), 'Asia/Tokyo');
    expect(local.busy.map((b: any) => b.start)).toContain(sync);
    expect(local.slots.some((s: any) => s.start === sync)).toBe(false);
  });

  it('personal account (consumers tenant): no getSchedule; falls back to its own calendarView and says so', async () => {
    const r = await h.ok('outlook_check_availability', { people: ['sam.rivera@acme.example'], start: `${day(1)}T06:00:00`, end: `${day(1)}T16:00:00`, duration_minutes: 60, account: 'personal' });
    expect(requests().map((x) => `${x.method} ${x.path}`)).toEqual(['GET /v1.0/me/calendarView']);
    expect(prefer()).toBe('outlook.timezone="UTC"');
    expect(last().query.get('$select')).toBe('subject,start,end,showAs,isCancelled');
    expect(r.source).toBe('own_calendar');
    expect(r.note).toMatch(/only your own calendar was checked; not checked: sam.rivera@acme.example/);
    expect(r.busy).toEqual([
      { person: 'me', start: `${day(1)}T07:00:00`, end: `${day(1)}T08:00:00`, status: 'busy' },
      { person: 'me', start: `${day(1)}T12:00:00`, end: `${day(1)}T13:00:00`, status: 'busy' },
      { person: 'me', start: `${day(1)}T15:00:00`, end: `${day(1)}T15:30:00`, status: 'tentative' },
    ]);
    expect(r.all_free).toBe(false);
    expect(r.slots.map((s: any) => s.start.slice(11, 16))).toEqual(['06:00', '08:00', '09:00', '10:00', '11:00', '13:00', '14:00']);
  });

  it("personal account behind the common tenant: Graph's getSchedule refusal triggers the same fallback", async () => {
    const r = await h.ok('outlook_check_availability', { start: `${day(1)}T08:00:00`, end: `${day(1)}T12:00:00`, account: 'personal-common' });
    expect(requests().map((x) => `${x.method} ${x.path}`)).toEqual(['GET /v1.0/me', 'POST /v1.0/me/calendar/getSchedule', 'GET /v1.0/me/calendarView']);
    expect(requests()[1]!.body.schedules).toEqual(['riley.park@outlook.example']);
    expect(r.source).toBe('own_calendar');
    expect(r.note).toMatch(/Personal Microsoft account/);
    expect(r.busy).toEqual([]);
    expect(r.all_free).toBe(true);
  });

  it('surfaces other Graph errors instead of falling back, and refuses a slot longer than the window', async () => {
    h.sandbox.servers.outlook.once('POST /v1.0/me/calendar/getSchedule', { status: 500, body: { error: { code: 'ErrorInternalServerError', message: 'boom' } } });
    const text = await h.fails('outlook_check_availability', { start: `${day(1)}T08:00:00`, end: `${day(1)}T12:00:00` });
    expect(text).toMatch(/500.*ErrorInternalServerError/);
    expect(requests().some((r) => r.path.endsWith('/calendarView'))).toBe(false);
    expect(await h.fails('outlook_check_availability', { start: `${day(1)}T08:00:00`, end: `${day(1)}T08:20:00` })).toMatch(/"duration_minutes" \(30\) is longer than the window/);
  });
});
