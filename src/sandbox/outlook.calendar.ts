import { randomUUID } from 'node:crypto';
import type { Routes, SandboxRequest, SandboxResponse } from './server.js';
import { CATEGORIES, CONTACTS, EVENTS, SCHEDULES } from './outlook.data.js';
import { GraphError, applySelect, listResponse, nextGraphId, parseSelect, stripHtml, type Person } from './outlook.query.js';
import { hexId, isObject, queryParam } from './util.js';

/** Graph calendar, free/busy, contacts and categories, sharing the Outlook sandbox state. */

export type GraphEvent = Record<string, any> & { id: string; subject: string; start: GraphDateTime; end: GraphDateTime; showAs: string };
export type GraphContact = Record<string, any> & { id: string; displayName: string; emailAddresses: Person[] };
export interface GraphDateTime {
  dateTime: string;
  timeZone: string;
}
export interface OutlookCategory {
  id: string;
  displayName: string;
  color: string;
}
/** A free/busy block of someone else's calendar (ISO UTC instants). */
export interface ScheduleItem {
  status: 'free' | 'tentative' | 'busy' | 'oof' | 'workingElsewhere';
  subject: string;
  start: string;
  end: string;
}

export interface CalendarState {
  seq: number;
  user: { id: string; displayName: string; mail: string };
  events: GraphEvent[];
  contacts: GraphContact[];
  categories: OutlookCategory[];
  /** Colleagues' free/busy by address, answered by getSchedule. */
  schedules: Record<string, ScheduleItem[]>;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;

export function graphDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + '.0000000';
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

/** A wall-clock time in a named zone (IANA or a common Windows name) as epoch ms. */
export function toUtcMs(dateTime: string, timeZone = 'UTC'): number {
  if (/(Z|[+-]\d{2}:\d{2})$/.test(dateTime)) return Date.parse(dateTime);
  const guess = Date.parse(dateTime + 'Z');
  const zone = WINDOWS_ZONES[timeZone.toLowerCase()] ?? timeZone;
  if (Number.isNaN(guess) || /^(utc|gmt|z)$/i.test(zone)) return guess;
  try {
    const offset = (at: number) => {
      const parts = Object.fromEntries(
        new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
          .formatToParts(at)
          .map((p) => [p.type, p.value]),
      );
      return Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!) - at;
    };
    return guess - offset(guess - offset(guess));
  } catch {
    throw new GraphError(400, 'ErrorTimeZoneNotSupported', `The time zone '${timeZone}' is not supported.`);
  }
}

const badRequest = (message: string) => new GraphError(400, 'ErrorInvalidRequest', message);
const notFound = () => new GraphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
const nowIso = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

function timeOf(value: unknown, field: string): number {
  if (!isObject(value) || typeof value.dateTime !== 'string') throw badRequest(`'${field}' must be an object with dateTime and timeZone.`);
  const ms = toUtcMs(value.dateTime, typeof value.timeZone === 'string' ? value.timeZone : 'UTC');
  if (Number.isNaN(ms)) throw badRequest(`'${field}.dateTime' is not a valid date and time.`);
  return ms;
}

const EVENT_WRITABLE = ['subject', 'body', 'start', 'end', 'location', 'attendees', 'isAllDay', 'isOnlineMeeting', 'onlineMeetingProvider', 'showAs', 'categories', 'importance', 'sensitivity', 'reminderMinutesBeforeStart', 'isReminderOn', 'recurrence', 'transactionId', 'responseRequested', 'allowNewTimeProposals', 'hideAttendees'];

/** An event in Graph's shape from a create body; `existing` keeps the id on update. Start and end come back in UTC. */
export function buildEvent(state: CalendarState, body: Record<string, any>, existing?: GraphEvent): GraphEvent {
  for (const k of Object.keys(body)) {
    if (!EVENT_WRITABLE.includes(k) && !(existing && k in existing)) {
      throw new GraphError(400, 'BadRequest', `The property '${k}' does not exist on type 'microsoft.graph.event'.`);
    }
  }
  const start = timeOf(body.start, 'start');
  const end = timeOf(body.end, 'end');
  if (end < start) throw badRequest('The end of the event must not be before its start.');
  const id = existing?.id ?? nextGraphId(state, 'AAMkAGE');
  const content = String(body.body?.content ?? '');
  const online = !!body.isOnlineMeeting;
  const location = String(body.location?.displayName ?? '');
  const attendees = (Array.isArray(body.attendees) ? body.attendees : []).map((a: any) => {
    const address = a?.emailAddress?.address;
    if (typeof address !== 'string') throw badRequest('Each attendee needs emailAddress.address.');
    return { type: a.type ?? 'required', status: { response: a.status?.response ?? 'none', time: '0001-01-01T00:00:00Z' }, emailAddress: { name: a.emailAddress.name ?? address, address } };
  });
  const modified = nowIso();
  return {
    id,
    createdDateTime: existing?.createdDateTime ?? modified,
    lastModifiedDateTime: modified,
    changeKey: hexId(id + modified + JSON.stringify(body), 20),
    categories: Array.isArray(body.categories) ? body.categories : [],
    transactionId: body.transactionId ?? null,
    originalStartTimeZone: body.start.timeZone ?? 'UTC',
    originalEndTimeZone: body.end.timeZone ?? 'UTC',
    iCalUId: existing?.iCalUId ?? '040000008200E00074C5B7101A82E008' + hexId(id, 32).toUpperCase(),
    reminderMinutesBeforeStart: body.reminderMinutesBeforeStart ?? 15,
    isReminderOn: body.isReminderOn ?? true,
    hasAttachments: false,
    subject: String(body.subject ?? ''),
    bodyPreview: stripHtml(content).slice(0, 255),
    importance: body.importance ?? 'normal',
    sensitivity: body.sensitivity ?? 'normal',
    isAllDay: !!body.isAllDay,
    isCancelled: false,
    isOrganizer: true,
    responseRequested: body.responseRequested ?? true,
    seriesMasterId: null,
    showAs: body.showAs ?? 'busy',
    type: 'singleInstance',
    webLink: `https://outlook.office365.com/owa/?itemid=${encodeURIComponent(id)}&exvsurl=1&path=/calendar/item`,
    onlineMeetingUrl: null,
    isOnlineMeeting: online,
    onlineMeetingProvider: online ? (body.onlineMeetingProvider ?? 'teamsForBusiness') : 'unknown',
    allowNewTimeProposals: body.allowNewTimeProposals ?? true,
    isDraft: false,
    hideAttendees: body.hideAttendees ?? false,
    recurrence: body.recurrence ?? null,
    responseStatus: { response: 'organizer', time: '0001-01-01T00:00:00Z' },
    body: { contentType: /^text$/i.test(String(body.body?.contentType)) ? 'text' : 'html', content },
    start: { dateTime: graphDateTime(start), timeZone: 'UTC' },
    end: { dateTime: graphDateTime(end), timeZone: 'UTC' },
    location: { displayName: location, locationType: 'default', uniqueIdType: 'unknown' },
    locations: location ? [{ displayName: location, locationType: 'default', uniqueIdType: 'unknown' }] : [],
    attendees,
    organizer: { emailAddress: { name: state.user.displayName, address: state.user.mail } },
    onlineMeeting: online ? { joinUrl: `https://teams.microsoft.com/l/meetup-join/19%3ameeting_${hexId(id, 24)}%40thread.v2/0` } : null,
  };
}

const CONTACT_DEFAULTS = {
  categories: [] as string[],
  birthday: null,
  initials: null,
  middleName: null,
  nickName: null,
  title: null,
  generation: null,
  imAddresses: [] as string[],
  jobTitle: null,
  companyName: null,
  department: null,
  officeLocation: null,
  profession: null,
  businessHomePage: null,
  assistantName: null,
  manager: null,
  homePhones: [] as string[],
  mobilePhone: null,
  businessPhones: [] as string[],
  spouseName: null,
  personalNotes: '',
  children: [] as string[],
  emailAddresses: [] as Person[],
  homeAddress: {},
  businessAddress: {},
  otherAddress: {},
};

export function buildContact(state: CalendarState, body: Record<string, any>, existing?: GraphContact): GraphContact {
  const base = existing ?? { ...CONTACT_DEFAULTS, givenName: null, surname: null };
  for (const k of Object.keys(body)) {
    if (!(k in base) && k !== 'displayName') {
      throw new GraphError(400, 'BadRequest', `The property '${k}' does not exist on type 'microsoft.graph.contact'.`);
    }
  }
  const merged = { ...base, ...body };
  const id = existing?.id ?? nextGraphId(state, 'AAMkAGC');
  const modified = nowIso();
  const displayName = body.displayName ?? (existing && !('givenName' in body || 'surname' in body) ? existing.displayName : [merged.givenName, merged.surname].filter(Boolean).join(' '));
  return {
    ...merged,
    id,
    createdDateTime: existing?.createdDateTime ?? modified,
    lastModifiedDateTime: modified,
    changeKey: hexId(id + modified + JSON.stringify(body), 20),
    parentFolderId: existing?.parentFolderId ?? 'AQMkADcontacts',
    displayName: displayName ?? '',
    fileAs: displayName ?? '',
    emailAddresses: (merged.emailAddresses ?? []).map((e: any) => ({ name: e?.name ?? e?.address, address: e?.address })),
  };
}

export function seedCalendar(state: CalendarState, now: Date): void {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const at = (day: number, hour: number) => today + day * DAY + hour * HOUR;
  state.events = EVENTS.map((e) => {
    const start = at(e.day, e.startHour);
    return buildEvent(state, {
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
    });
  });
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
}

const render = (item: Record<string, any>): Record<string, unknown> => ({ '@odata.etag': `W/"${item.changeKey}"`, ...item });

function one(req: SandboxRequest, item: Record<string, unknown>, status = 200): SandboxResponse {
  const row = render(item);
  return { status, body: applySelect(row, parseSelect(req, [row])) };
}

const AVAILABILITY: Record<string, string> = { free: '0', tentative: '1', busy: '2', oof: '3', workingElsewhere: '0' };

function getSchedule(state: CalendarState, body: any): SandboxResponse {
  if (!isObject(body) || !Array.isArray(body.schedules) || body.schedules.length === 0) throw new GraphError(400, 'ErrorInvalidParameter', "'schedules' must list at least one address.");
  const start = timeOf(body.startTime, 'startTime');
  const end = timeOf(body.endTime, 'endTime');
  const interval = body.availabilityViewInterval ?? 30;
  if (!Number.isInteger(interval) || interval < 5 || interval > 1440) throw new GraphError(400, 'ErrorInvalidParameter', "'availabilityViewInterval' must be between 5 and 1440.");
  const value = body.schedules.map((address: string) => {
    const own = String(address).toLowerCase() === state.user.mail.toLowerCase();
    const items: ScheduleItem[] | undefined = own
      ? state.events.filter((e) => !e.isCancelled && e.showAs !== 'free').map((e) => ({ status: e.showAs as ScheduleItem['status'], subject: e.sensitivity === 'private' ? '' : e.subject, start: toIso(e.start), end: toIso(e.end) }))
      : state.schedules[String(address).toLowerCase()];
    if (!items) return { scheduleId: address, availabilityView: '', scheduleItems: [], error: { message: `The specified mailbox '${address}' could not be found.`, responseCode: 'ErrorMailRecipientNotFound' } };
    const inWindow = items.filter((i) => Date.parse(i.start) < end && Date.parse(i.end) > start);
    let view = '';
    for (let t = start; t < end; t += interval * 60_000) {
      const slot = inWindow.filter((i) => Date.parse(i.start) < t + interval * 60_000 && Date.parse(i.end) > t);
      view += String(Math.max(0, ...slot.map((i) => Number(AVAILABILITY[i.status] ?? 0))));
    }
    return {
      scheduleId: address,
      availabilityView: view,
      scheduleItems: inWindow.map((i) => ({ isPrivate: false, status: i.status, subject: i.subject, location: '', start: { dateTime: graphDateTime(Date.parse(i.start)), timeZone: 'UTC' }, end: { dateTime: graphDateTime(Date.parse(i.end)), timeZone: 'UTC' } })),
      workingHours: { daysOfWeek: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'], startTime: '08:00:00.0000000', endTime: '17:00:00.0000000', timeZone: { name: 'Pacific Standard Time' } },
    };
  });
  return { status: 200, body: { '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#Collection(microsoft.graph.scheduleInformation)', value } };
}

const toIso = (t: GraphDateTime) => new Date(toUtcMs(t.dateTime, t.timeZone)).toISOString();

export function calendarRoutes(state: CalendarState): Routes {
  const ctx = (path: string) => `users('${encodeURIComponent(state.user.id)}')/${path}`;
  const findEvent = (id: string) => state.events.find((e) => e.id === id) ?? (() => { throw notFound(); })();
  const findContact = (id: string) => state.contacts.find((c) => c.id === id) ?? (() => { throw notFound(); })();
  const listEvents = (req: SandboxRequest) => listResponse(req, state.events, { context: ctx('events'), render });
  const createEvent = (req: SandboxRequest) => {
    if (!isObject(req.body)) throw badRequest('Empty Payload. JSON content expected.');
    const event = buildEvent(state, req.body);
    state.events.push(event);
    return one(req, event, 201);
  };
  const getEvent = (req: SandboxRequest) => one(req, findEvent(req.params.id!));
  const patchEvent = (req: SandboxRequest) => {
    const old = findEvent(req.params.id!);
    if (!isObject(req.body)) throw badRequest('Empty Payload. JSON content expected.');
    const updated = buildEvent(state, { ...pickWritable(old), ...req.body }, old);
    state.events.splice(state.events.indexOf(old), 1, updated);
    return one(req, updated);
  };
  const deleteEvent = (req: SandboxRequest) => {
    state.events.splice(state.events.indexOf(findEvent(req.params.id!)), 1);
    return { status: 204 };
  };

  return {
    'GET /me/events': listEvents,
    'POST /me/events': createEvent,
    'GET /me/events/:id': getEvent,
    'PATCH /me/events/:id': patchEvent,
    'DELETE /me/events/:id': deleteEvent,
    'GET /me/calendar/events': listEvents,
    'POST /me/calendar/events': createEvent,
    'GET /me/calendar/events/:id': getEvent,
    'PATCH /me/calendar/events/:id': patchEvent,
    'DELETE /me/calendar/events/:id': deleteEvent,
    'GET /me/calendarView': (req) => {
      const from = queryParam(req, 'startDateTime');
      const to = queryParam(req, 'endDateTime');
      if (!from || !to) {
        throw new GraphError(400, 'ErrorInvalidParameter', 'This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.');
      }
      const start = toUtcMs(from);
      const end = toUtcMs(to);
      if (Number.isNaN(start) || Number.isNaN(end)) throw new GraphError(400, 'ErrorInvalidParameter', 'StartDateTime and EndDateTime must be ISO 8601 date and time values.');
      const inView = state.events.filter((e) => toUtcMs(e.start.dateTime, e.start.timeZone) < end && toUtcMs(e.end.dateTime, e.end.timeZone) > start);
      return listResponse(req, inView, { context: ctx('calendarView'), defaultOrder: 'start/dateTime asc', render });
    },
    'POST /me/calendar/getSchedule': (req) => getSchedule(state, req.body),
    'GET /me/contacts': (req) => listResponse(req, state.contacts, { context: ctx('contacts'), render }),
    'POST /me/contacts': (req) => {
      if (!isObject(req.body)) throw badRequest('Empty Payload. JSON content expected.');
      const contact = buildContact(state, req.body);
      state.contacts.push(contact);
      return one(req, contact, 201);
    },
    'GET /me/contacts/:id': (req) => one(req, findContact(req.params.id!)),
    'PATCH /me/contacts/:id': (req) => {
      const old = findContact(req.params.id!);
      if (!isObject(req.body)) throw badRequest('Empty Payload. JSON content expected.');
      const updated = buildContact(state, req.body, old);
      state.contacts.splice(state.contacts.indexOf(old), 1, updated);
      return one(req, updated);
    },
    'DELETE /me/contacts/:id': (req) => {
      state.contacts.splice(state.contacts.indexOf(findContact(req.params.id!)), 1);
      return { status: 204 };
    },
    'GET /me/outlook/masterCategories': () => ({
      status: 200,
      body: { '@odata.context': `https://graph.microsoft.com/v1.0/$metadata#${ctx('outlook/masterCategories')}`, value: state.categories },
    }),
    'POST /me/outlook/masterCategories': (req) => {
      const { displayName, color = 'none' } = isObject(req.body) ? req.body : ({} as Record<string, any>);
      if (typeof displayName !== 'string' || !displayName.trim()) throw badRequest("The request body needs 'displayName'.");
      if (!/^(none|preset([0-9]|1[0-9]|2[0-4]))$/.test(String(color))) throw badRequest(`'${color}' is not a valid category color (none, preset0 ... preset24).`);
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

function pickWritable(event: GraphEvent): Record<string, unknown> {
  return Object.fromEntries(EVENT_WRITABLE.filter((k) => k in event).map((k) => [k, event[k]]));
}
