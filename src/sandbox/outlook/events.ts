import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import type { CalendarOwner, CalendarState, GraphEvent } from './state.js';
import { GraphError, applySelect, listResponse, nextGraphId, parseSelect, stripHtml } from './query.js';
import { checkRecurrence, expandSeries, type Recurrence } from './recurrence.js';
import { DAY, graphDateTime, inZone, preferredZone, toUtcMs } from './time.js';
import { hexId, isObject, queryParam } from '../util.js';

/** Graph events of one owner: create (transactionId), get, update, delete, calendarView with series expanded, instances. */


const badRequest = (message: string) => new GraphError(400, 'ErrorInvalidRequest', message);
export const notFound = () => new GraphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.');
const nowIso = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const SHOW_AS = ['free', 'tentative', 'busy', 'oof', 'workingElsewhere', 'unknown'];
const ATTENDEE_TYPES = ['required', 'optional', 'resource'];

function timeOf(value: unknown, field: string): number {
  if (!isObject(value) || typeof value.dateTime !== 'string') throw badRequest(`'${field}' must be an object with dateTime and timeZone.`);
  const ms = toUtcMs(value.dateTime, typeof value.timeZone === 'string' ? value.timeZone : 'UTC');
  if (Number.isNaN(ms)) throw badRequest(`'${field}.dateTime' is not a valid date and time.`);
  return ms;
}

const EVENT_WRITABLE = ['subject', 'body', 'start', 'end', 'location', 'attendees', 'isAllDay', 'isOnlineMeeting', 'onlineMeetingProvider', 'showAs', 'categories', 'importance', 'sensitivity', 'reminderMinutesBeforeStart', 'isReminderOn', 'recurrence', 'transactionId', 'responseRequested', 'allowNewTimeProposals', 'hideAttendees'];

export interface BuildOptions {
  existing?: GraphEvent;
  organizer?: { displayName: string; mail: string };
  /** A changed occurrence of a series. */
  exceptionOf?: GraphEvent;
}

/** An event in Graph's shape from a create body; `existing` keeps the id on update. Start and end are stored in UTC. */
export function buildEvent(state: Pick<CalendarState, 'seq' | 'user'>, body: Record<string, any>, options: BuildOptions = {}): GraphEvent {
  const { existing, exceptionOf } = options;
  for (const k of Object.keys(body)) {
    if (!EVENT_WRITABLE.includes(k) && !(existing && k in existing)) {
      throw new GraphError(400, 'BadRequest', `The property '${k}' does not exist on type 'microsoft.graph.event'.`);
    }
  }
  const start = timeOf(body.start, 'start');
  const end = timeOf(body.end, 'end');
  if (end < start) throw badRequest('The end of the event must not be before its start.');
  const startZone = String(body.start.timeZone ?? 'UTC');
  if (body.isAllDay) {
    const midnight = (ms: number, zone: string) => inZone(ms, zone).dateTime.slice(11, 19) === '00:00:00';
    if (!midnight(start, startZone) || !midnight(end, String(body.end.timeZone ?? 'UTC')) || end === start) {
      throw new GraphError(400, 'ErrorPropertyValidationFailure', 'An all-day event must start and end at midnight and last at least one day.');
    }
  }
  if (body.showAs !== undefined && !SHOW_AS.includes(body.showAs)) throw badRequest(`'${body.showAs}' is not a valid showAs value.`);
  const recurrence: Recurrence | null = exceptionOf || body.recurrence == null ? null : checkRecurrence(body.recurrence);
  const id = existing?.id ?? nextGraphId(state, 'AAMkAGE');
  const content = String(body.body?.content ?? '');
  const online = !!body.isOnlineMeeting;
  const location = String(body.location?.displayName ?? '');
  const attendees = (Array.isArray(body.attendees) ? body.attendees : []).map((a: any) => {
    const address = a?.emailAddress?.address;
    if (typeof address !== 'string' || !address.includes('@')) throw badRequest('Each attendee needs emailAddress.address.');
    const type = a.type ?? 'required';
    if (!ATTENDEE_TYPES.includes(type)) throw badRequest(`'${type}' is not a valid attendee type (required, optional, resource).`);
    return { type, status: { response: a.status?.response ?? 'none', time: '0001-01-01T00:00:00Z' }, emailAddress: { name: a.emailAddress.name ?? address, address } };
  });
  const organizer = options.organizer ?? { displayName: state.user.displayName, mail: state.user.mail };
  const modified = nowIso();
  return {
    id,
    createdDateTime: existing?.createdDateTime ?? modified,
    lastModifiedDateTime: modified,
    changeKey: hexId(id + modified + JSON.stringify(body), 20),
    categories: Array.isArray(body.categories) ? body.categories : [],
    transactionId: body.transactionId ?? null,
    originalStartTimeZone: startZone,
    originalEndTimeZone: String(body.end.timeZone ?? 'UTC'),
    iCalUId: exceptionOf?.iCalUId ?? existing?.iCalUId ?? '040000008200E00074C5B7101A82E008' + hexId(id, 32).toUpperCase(),
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
    seriesMasterId: exceptionOf?.id ?? null,
    showAs: body.showAs ?? 'busy',
    type: exceptionOf ? 'exception' : recurrence ? 'seriesMaster' : 'singleInstance',
    webLink: `https://outlook.office365.com/owa/?itemid=${encodeURIComponent(id)}&exvsurl=1&path=/calendar/item`,
    onlineMeetingUrl: null,
    isOnlineMeeting: online,
    onlineMeetingProvider: online ? (body.onlineMeetingProvider ?? 'teamsForBusiness') : 'unknown',
    allowNewTimeProposals: body.allowNewTimeProposals ?? true,
    isDraft: false,
    hideAttendees: body.hideAttendees ?? false,
    recurrence,
    responseStatus: { response: 'organizer', time: '0001-01-01T00:00:00Z' },
    body: { contentType: /^text$/i.test(String(body.body?.contentType)) ? 'text' : 'html', content },
    start: { dateTime: graphDateTime(start), timeZone: 'UTC' },
    end: { dateTime: graphDateTime(end), timeZone: 'UTC' },
    location: { displayName: location, locationType: 'default', uniqueIdType: 'unknown' },
    locations: location ? [{ displayName: location, locationType: 'default', uniqueIdType: 'unknown' }] : [],
    attendees,
    organizer: { emailAddress: { name: organizer.displayName, address: organizer.mail } },
    onlineMeeting: online ? { joinUrl: `https://teams.microsoft.com/l/meetup-join/19%3ameeting_${hexId(id, 24)}%40thread.v2/0` } : null,
    // Sandbox bookkeeping, never rendered: the calendar it lives in, and a series' changed or deleted occurrences.
    _calendarId: existing?._calendarId,
    _exceptions: exceptionOf ? undefined : existing?._exceptions,
  };
}

/** The writable fields of a stored event, times back in the zone it was created in (so an all-day event stays at midnight). */
export function pickWritable(event: GraphEvent): Record<string, unknown> {
  const out: Record<string, unknown> = Object.fromEntries(EVENT_WRITABLE.filter((k) => k in event && event[k] !== null).map((k) => [k, event[k]]));
  out.start = inZone(toUtcMs(event.start.dateTime, event.start.timeZone), event.originalStartTimeZone);
  out.end = inZone(toUtcMs(event.end.dateTime, event.end.timeZone), event.originalEndTimeZone);
  return out;
}

const startMs = (e: GraphEvent) => toUtcMs(e.start.dateTime, e.start.timeZone);
const endMs = (e: GraphEvent) => toUtcMs(e.end.dateTime, e.end.timeZone);

// An occurrence id names its series and its original date; Graph's are opaque too.
const OCCURRENCE = 'AAMkAGO';
const occurrenceId = (masterId: string, key: string) => OCCURRENCE + Buffer.from(`${masterId}|${key}`).toString('base64url');
function parseOccurrenceId(id: string): { masterId: string; key: string } | undefined {
  if (!id.startsWith(OCCURRENCE)) return undefined;
  const [masterId, key] = Buffer.from(id.slice(OCCURRENCE.length), 'base64url').toString('utf8').split('|');
  return masterId && key && /^\d{8}$/.test(key) ? { masterId, key } : undefined;
}

function occurrence(master: GraphEvent, key: string, start: number, end: number): GraphEvent {
  return { ...master, id: occurrenceId(master.id, key), type: 'occurrence', seriesMasterId: master.id, recurrence: null, start: { dateTime: graphDateTime(start), timeZone: 'UTC' }, end: { dateTime: graphDateTime(end), timeZone: 'UTC' } };
}

/** The series' instances (occurrences and exceptions) whose original dates come before `until`. */
function seriesInstances(master: GraphEvent, until: number): Array<{ key: string; event: GraphEvent }> {
  const out: Array<{ key: string; event: GraphEvent }> = [];
  for (const o of expandSeries(master.recurrence, startMs(master), endMs(master), master.originalStartTimeZone, until)) {
    const changed = master._exceptions?.[o.key];
    if (changed === null) continue;
    out.push({ key: o.key, event: changed ?? occurrence(master, o.key, o.start, o.end) });
  }
  return out;
}

/** One instance of a series by its date key (YYYYMMDD). */
export function instanceOf(master: GraphEvent, key: string): GraphEvent {
  const date = Date.UTC(+key.slice(0, 4), +key.slice(4, 6) - 1, +key.slice(6, 8));
  const hit = seriesInstances(master, date + 2 * DAY).find((i) => i.key === key);
  if (!hit) throw notFound();
  return hit.event;
}

/** Changes one occurrence of a series: it becomes an exception with its own times and fields. */
export function changeOccurrence(state: Pick<CalendarState, 'seq' | 'user'>, master: GraphEvent, key: string, patch: Record<string, unknown>, organizer?: BuildOptions['organizer']): GraphEvent {
  const old = instanceOf(master, key);
  const updated = buildEvent(state, { ...pickWritable(old), ...patch }, { existing: old, organizer, exceptionOf: master });
  master._exceptions = { ...master._exceptions, [key]: updated };
  return updated;
}

/** What a calendar view shows: single events and every instance of a series that overlaps [from, to). */
export function instancesBetween(events: GraphEvent[], from: number, to: number): GraphEvent[] {
  const out: GraphEvent[] = [];
  const overlaps = (e: GraphEvent) => startMs(e) < to && endMs(e) > from && !e.isCancelled;
  for (const e of events) {
    if (e.type !== 'seriesMaster') {
      if (overlaps(e)) out.push(e);
      continue;
    }
    // An exception may have moved up to a day later than its original date.
    for (const { event } of seriesInstances(e, to + DAY)) if (overlaps(event)) out.push(event);
  }
  return out;
}

/** Graph's wire form: etag, no bookkeeping, times in the `Prefer: outlook.timezone` zone (UTC without one). */
export function renderEvent(req: SandboxRequest): (e: GraphEvent) => Record<string, unknown> {
  const zone = preferredZone(req);
  return (e) => {
    const row: Record<string, unknown> = { '@odata.etag': `W/"${e.changeKey}"` };
    for (const [k, v] of Object.entries(e)) if (!k.startsWith('_')) row[k] = v;
    row.start = inZone(startMs(e), zone);
    row.end = inZone(endMs(e), zone);
    return row;
  };
}

function one(req: SandboxRequest, event: GraphEvent, status = 200): SandboxResponse {
  const row = renderEvent(req)(event);
  const zone = preferredZone(req);
  return { status, headers: zone ? { 'preference-applied': `outlook.timezone="${zone}"` } : {}, body: applySelect(row, parseSelect(req, [row])) };
}

export type OwnerOf = (req: SandboxRequest) => CalendarOwner;

/** Event routes for `/me/...` and `/users/{id}/...`; `ownerOf` decides whose calendar (and refuses what the caller may not open). */
export function eventRoutes(state: CalendarState, ownerOf: OwnerOf): Routes {
  const calendarOf = (owner: CalendarOwner, req: SandboxRequest) => {
    const id = req.params.calendarId;
    const cal = id === undefined ? owner.calendars.find((c) => c.isDefaultCalendar) : owner.calendars.find((c) => c.id === id);
    if (!cal) throw notFound();
    return cal;
  };
  const inCalendar = (owner: CalendarOwner, calendarId: string) => owner.events.filter((e) => (e._calendarId ?? owner.calendars[0]?.id) === calendarId);
  const context = (owner: CalendarOwner, path: string) => `users('${encodeURIComponent(owner.id)}')/${path}`;

  /** A stored event, or an instance of a series; `replace` swaps in a changed one (null deletes it). */
  const find = (owner: CalendarOwner, id: string) => {
    const stored = owner.events.find((e) => e.id === id);
    if (stored) {
      const replace = (next: GraphEvent | null) => void owner.events.splice(owner.events.indexOf(stored), 1, ...(next ? [next] : []));
      return { event: stored, master: undefined, replace };
    }
    const occ = parseOccurrenceId(id);
    const master = occ && owner.events.find((e) => e.id === occ.masterId && e.type === 'seriesMaster');
    if (!master) throw notFound();
    const event = instanceOf(master, occ!.key);
    return { event, master, replace: (next: GraphEvent | null) => void (master._exceptions = { ...master._exceptions, [occ!.key]: next }) };
  };

  const create = (req: SandboxRequest) => {
    const owner = ownerOf(req);
    const cal = calendarOf(owner, req);
    if (!isObject(req.body)) throw badRequest('Empty Payload. JSON content expected.');
    const event = buildEvent(state, req.body, { organizer: owner });
    // transactionId: a retried create answers the event it already made. Reusing the id for a different event is refused
    // as Graph does (ErrorDuplicateTransactionId); the 400 status is this sandbox's choice.
    const earlier = event.transactionId ? owner.events.find((e) => e.transactionId === event.transactionId) : undefined;
    if (earlier) {
      if (earlier.subject === event.subject && startMs(earlier) === startMs(event) && endMs(earlier) === endMs(event)) return one(req, earlier, 201);
      throw new GraphError(400, 'ErrorDuplicateTransactionId', "Your request can't be completed. The TransactionId specified in the request has already been used to create a different event.");
    }
    event._calendarId = cal.id;
    owner.events.push(event);
    return one(req, event, 201);
  };
  const list = (req: SandboxRequest) => {
    const owner = ownerOf(req);
    const cal = calendarOf(owner, req);
    const view = inCalendar(owner, cal.id).filter((e) => e.type === 'singleInstance' || e.type === 'seriesMaster');
    return listResponse(req, view, { context: context(owner, 'events'), render: renderEvent(req) });
  };
  const calendarView = (req: SandboxRequest) => {
    const owner = ownerOf(req);
    const cal = calendarOf(owner, req);
    const [from, to] = windowOf(req);
    return listResponse(req, instancesBetween(inCalendar(owner, cal.id), from, to), { context: context(owner, 'calendarView'), defaultOrder: 'start/dateTime asc', render: renderEvent(req) });
  };
  const get = (req: SandboxRequest) => one(req, find(ownerOf(req), req.params.id!).event);
  const patch = (req: SandboxRequest) => {
    const owner = ownerOf(req);
    const found = find(owner, req.params.id!);
    if (!isObject(req.body)) throw badRequest('Empty Payload. JSON content expected.');
    if (found.master && 'recurrence' in req.body) throw badRequest('The recurrence of a single occurrence cannot be changed; update the series master.');
    const old = found.event;
    const updated = buildEvent(state, { ...pickWritable(old), ...req.body }, { existing: old, organizer: owner, exceptionOf: found.master });
    found.replace(updated);
    return one(req, updated);
  };
  const remove = (req: SandboxRequest) => {
    find(ownerOf(req), req.params.id!).replace(null);
    return { status: 204 };
  };
  const instances = (req: SandboxRequest) => {
    const owner = ownerOf(req);
    const master = owner.events.find((e) => e.id === req.params.id);
    if (!master) throw notFound();
    const [from, to] = windowOf(req);
    return listResponse(req, instancesBetween([master], from, to), { context: context(owner, `events('${master.id}')/instances`), defaultOrder: 'start/dateTime asc', render: renderEvent(req) });
  };
  const calendars = (req: SandboxRequest) => {
    const owner = ownerOf(req);
    const rows = owner.calendars.map((c) => ({ ...c, color: 'auto', canEdit: true, canShare: !owner.personal, owner: { name: owner.displayName, address: owner.mail } }));
    return listResponse(req, rows, { context: context(owner, 'calendars') });
  };

  const table: Routes = {
    'GET ~/calendars': calendars,
    'GET ~/events': list,
    'POST ~/events': create,
    'GET ~/events/:id': get,
    'PATCH ~/events/:id': patch,
    'DELETE ~/events/:id': remove,
    'GET ~/events/:id/instances': instances,
    'GET ~/calendar/events': list,
    'POST ~/calendar/events': create,
    'GET ~/calendar/events/:id': get,
    'PATCH ~/calendar/events/:id': patch,
    'DELETE ~/calendar/events/:id': remove,
    'GET ~/calendars/:calendarId/events': list,
    'POST ~/calendars/:calendarId/events': create,
    'GET ~/calendarView': calendarView,
    'GET ~/calendar/calendarView': calendarView,
    'GET ~/calendars/:calendarId/calendarView': calendarView,
  };
  return forMeAndUsers(table);
}

/** `~` in a route key stands for both `/me` and `/users/:userId`. */
export function forMeAndUsers(table: Routes): Routes {
  return Object.fromEntries(Object.entries(table).flatMap(([key, handler]) => [[key.replace(' ~', ' /me'), handler], [key.replace(' ~', ' /users/:userId'), handler]]));
}

/** startDateTime and endDateTime of a calendar view: required; an offset is honoured, none means UTC (Prefer does not change that). */
function windowOf(req: SandboxRequest): [number, number] {
  const from = queryParam(req, 'startDateTime');
  const to = queryParam(req, 'endDateTime');
  if (!from || !to) {
    throw new GraphError(400, 'ErrorInvalidParameter', 'This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.');
  }
  const start = toUtcMs(from);
  const end = toUtcMs(to);
  if (Number.isNaN(start) || Number.isNaN(end)) throw new GraphError(400, 'ErrorInvalidParameter', 'StartDateTime and EndDateTime must be ISO 8601 date and time values.');
  return [start, end];
}
