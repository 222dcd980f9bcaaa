import { randomUUID } from 'node:crypto';
import type { Routes, SandboxHandler, SandboxRequest } from '../server.js';
import { PERSONAL_CONTACTS, PERSONAL_EVENTS, PERSONAL_USER, SHARED_CALENDARS, STANDUP, TEAM_CALENDAR, type ContactSeed } from './calendar.data.js';
import { buildContact, contactRoutes } from './contacts.js';
import { CATEGORIES, CONTACTS, EVENTS, MAILBOXES, SCHEDULES, type EventSeed } from './data.js';
import { buildEvent, changeOccurrence, eventRoutes } from './events.js';
import { GraphError, nextGraphId } from './query.js';
import { scheduleRoutes } from './schedule.js';
import type { CalendarOwner, CalendarState, GraphCalendar, GraphContact, GraphEvent, ScheduleItem } from './state.js';
import { DAY, HOUR, graphDateTime } from './time.js';
import { bearerToken, isObject } from '../util.js';

/**
 * Graph calendar, free/busy, contacts and categories, sharing the Outlook sandbox state. Events live in
 * events.ts (series in recurrence.ts, zones in time.ts), contacts in contacts.ts,
 * getSchedule and findMeetingTimes in schedule.ts; the state's shape is in state.ts; this file
 * holds whose calendar a request reaches (/me, /users/{id}, or the personal account's own), and the seed.
 */

export { buildContact } from './contacts.js';

/** A personal Microsoft account's token: its calendar and contacts work, getSchedule and findMeetingTimes do not. */
export const OUTLOOK_PERSONAL_TOKEN = 'sbx-outlook-personal-0001';

const same = (a: string, b: string | undefined) => !!b && a.toLowerCase() === b.toLowerCase();

/** The signed-in user as a calendar owner (its arrays are the state's own). */
function selfOwner(state: CalendarState): CalendarOwner {
  return { id: state.user.id, displayName: state.user.displayName, mail: state.user.mail, delegated: true, personal: false, calendars: state.calendars ?? [], events: state.events, contacts: state.contacts };
}

/** Whose calendar a request reaches: the caller's own for /me, else the /users/{id} mailbox if the caller may open it. */
export function ownerOf(state: CalendarState, req: SandboxRequest): CalendarOwner {
  const userId = req.params.userId;
  const personal = state.personal;
  if (personal && bearerToken(req) === personal.token) {
    if (userId === undefined || [personal.id, personal.mail, personal.userPrincipalName].some((x) => same(x, userId))) return personal;
    throw new GraphError(404, 'ErrorInvalidUser', `The requested user '${userId}' is invalid.`);
  }
  const self = selfOwner(state);
  if (userId === undefined || [self.id, self.mail, state.user.userPrincipalName].some((x) => x && same(x, userId))) return self;
  const box = state.sharedCalendars?.find((b) => same(b.id, userId) || same(b.mail, userId));
  if (!box) throw new GraphError(404, 'ErrorInvalidUser', `The requested user '${userId}' is invalid.`);
  if (!box.delegated) throw new GraphError(403, 'ErrorAccessDenied', 'Access is denied. Check credentials and try again.');
  return box;
}

/** Wraps `GET /me` so the personal account's token answers as that account. */
export function withPersonalAccount(state: CalendarState, routes: Routes): Routes {
  const me = routes['GET /me'];
  if (!me) return routes;
  const handler: SandboxHandler = (req) => {
    const p = state.personal;
    if (!p || bearerToken(req) !== p.token) return me(req);
    return { status: 200, body: { '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#users/$entity', id: p.id, displayName: p.displayName, mail: null, userPrincipalName: p.userPrincipalName, givenName: p.displayName.split(' ')[0], surname: p.displayName.split(' ')[1] ?? null } };
  };
  return { ...routes, 'GET /me': handler };
}

function seedEvents(state: CalendarState, today: number, seeds: EventSeed[], organizer: { displayName: string; mail: string }): GraphEvent[] {
  const at = (day: number, hour: number) => today + day * DAY + hour * HOUR;
  return seeds.map((e) => {
    const start = at(e.day, e.startHour);
    return buildEvent(
      state,
      {
        subject: e.subject,
        body: { contentType: 'html', content: e.body ? `<html><body><p>${e.body}</p></body></html>` : '' },
        start: { dateTime: graphDateTime(start), timeZone: 'UTC' },
        end: { dateTime: graphDateTime(start + e.hours * HOUR), timeZone: 'UTC' },
        isAllDay: e.allDay ?? false,
        location: { displayName: e.location ?? '' },
        attendees: (e.attendees ?? []).map((a) => ({ type: a.type ?? 'required', status: { response: a.response ?? 'none' }, emailAddress: a.person })),
        isOnlineMeeting: e.online ?? false,
        showAs: e.showAs ?? 'busy',
        sensitivity: e.sensitivity ?? 'normal',
        categories: e.categories ?? [],
      },
      { organizer },
    );
  });
}

function seedContacts(state: CalendarState, seeds: ContactSeed[]): GraphContact[] {
  return seeds.map((c) =>
    buildContact(state, {
      givenName: c.givenName,
      surname: c.surname,
      emailAddresses: [{ name: `${c.givenName} ${c.surname}`, address: c.email }],
      companyName: c.companyName ?? null,
      jobTitle: c.jobTitle ?? null,
      mobilePhone: c.mobilePhone ?? null,
    }),
  );
}

const calendarsFor = (state: CalendarState, names: string[]): GraphCalendar[] =>
  names.map((name, i) => ({ id: nextGraphId(state, 'AAMkAGCal'), name, isDefaultCalendar: i === 0 }));

export function seedCalendar(state: CalendarState, now: Date): void {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const at = (day: number, hour: number) => today + day * DAY + hour * HOUR;
  const me = { displayName: state.user.displayName, mail: state.user.mail };
  state.calendars = calendarsFor(state, ['Calendar', TEAM_CALENDAR.name]);
  state.events = seedEvents(state, today, EVENTS, me);

  const s = STANDUP;
  const standup = buildEvent(
    state,
    {
      subject: s.subject,
      start: { dateTime: graphDateTime(at(s.firstDay, s.startHour)), timeZone: 'UTC' },
      end: { dateTime: graphDateTime(at(s.firstDay, s.startHour) + s.minutes * 60_000), timeZone: 'UTC' },
      isOnlineMeeting: true,
      recurrence: {
        pattern: { type: 'daily', interval: 1 },
        range: { type: 'numbered', startDate: new Date(at(s.firstDay, 0)).toISOString().slice(0, 10), numberOfOccurrences: s.occurrences, recurrenceTimeZone: 'UTC' },
      },
    },
    { organizer: me },
  );
  const moved = at(s.movedDay, s.startHour) + s.movedByMinutes * 60_000;
  changeOccurrence(state, standup, new Date(at(s.movedDay, 0)).toISOString().slice(0, 10).replace(/-/g, ''), {
    start: { dateTime: graphDateTime(moved), timeZone: 'UTC' },
    end: { dateTime: graphDateTime(moved + s.minutes * 60_000), timeZone: 'UTC' },
  });
  state.events.push(standup);
  for (const e of seedEvents(state, today, TEAM_CALENDAR.events, me)) state.events.push({ ...e, _calendarId: state.calendars[1]!.id });

  state.contacts = CONTACTS.map((c) =>
    buildContact(state, {
      givenName: c.givenName,
      surname: c.surname,
      emailAddresses: [{ name: `${c.givenName} ${c.surname}`, address: c.email }],
      companyName: c.companyName,
      jobTitle: c.jobTitle,
      department: c.department,
      mobilePhone: c.mobilePhone,
      businessPhones: c.mobilePhone ? [c.mobilePhone.replace(/\d{2}$/, '00')] : [],
      businessAddress: { city: c.city, state: c.state, countryOrRegion: c.country },
    }),
  );
  state.categories = CATEGORIES.map((c) => ({ id: randomUUID(), ...c }));
  state.schedules = Object.fromEntries(
    Object.entries(SCHEDULES).map(([address, items]) => [
      address,
      items.map((i) => ({ status: i.status as ScheduleItem['status'], subject: i.subject, start: new Date(at(i.day, i.startHour)).toISOString(), end: new Date(at(i.day, i.startHour + i.hours)).toISOString() })),
    ]),
  );
  state.sharedCalendars = MAILBOXES.map((m) => {
    const seed = SHARED_CALENDARS[m.mail] ?? { events: [], contacts: [] };
    const owner = { displayName: m.displayName, mail: m.mail };
    return { id: m.id, ...owner, delegated: m.delegated, personal: false, calendars: calendarsFor(state, ['Calendar']), events: seedEvents(state, today, seed.events, owner), contacts: seedContacts(state, seed.contacts) };
  });
  state.personal = {
    ...PERSONAL_USER,
    token: OUTLOOK_PERSONAL_TOKEN,
    delegated: true,
    personal: true,
    calendars: calendarsFor(state, ['Calendar']),
    events: seedEvents(state, today, PERSONAL_EVENTS, PERSONAL_USER),
    contacts: seedContacts(state, PERSONAL_CONTACTS),
  };
  state.tokens.add(OUTLOOK_PERSONAL_TOKEN);
}

export function calendarRoutes(state: CalendarState): Routes {
  const ctx = (path: string) => `users('${encodeURIComponent(state.user.id)}')/${path}`;
  const owner = (req: SandboxRequest) => ownerOf(state, req);
  const owners = () => [selfOwner(state), ...(state.sharedCalendars ?? [])];
  return {
    ...eventRoutes(state, owner),
    ...scheduleRoutes(state, owners, owner),
    ...contactRoutes(state, owner),
    'GET /me/outlook/masterCategories': () => ({
      status: 200,
      body: { '@odata.context': `https://graph.microsoft.com/v1.0/$metadata#${ctx('outlook/masterCategories')}`, value: state.categories },
    }),
    'POST /me/outlook/masterCategories': (req) => {
      const { displayName, color = 'none' } = isObject(req.body) ? req.body : ({} as Record<string, any>);
      if (typeof displayName !== 'string' || !displayName.trim()) throw new GraphError(400, 'ErrorInvalidRequest', "The request body needs 'displayName'.");
      if (!/^(none|preset([0-9]|1[0-9]|2[0-4]))$/.test(String(color))) throw new GraphError(400, 'ErrorInvalidRequest', `'${color}' is not a valid category color (none, preset0 ... preset24).`);
      // The real service answers a duplicate name with a conflict; the exact code is this sandbox's choice.
      if (state.categories.some((c) => c.displayName.toLowerCase() === displayName.toLowerCase())) {
        throw new GraphError(409, 'ErrorDuplicateCategory', `A category named '${displayName}' already exists.`);
      }
      const category = { id: randomUUID(), displayName, color: String(color) };
      state.categories.push(category);
      return { status: 201, body: category };
    },
  };
}
