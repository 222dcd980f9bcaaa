import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import type { CalendarOwner, CalendarState, GraphEvent, ScheduleItem } from './state.js';
import { instancesBetween } from './events.js';
import { GraphError } from './query.js';
import { inZone, preferredZone, toIso, toUtcMs } from './time.js';
import { isObject } from '../util.js';

/** Free/busy: getSchedule and findMeetingTimes (work and school accounts only). */

const AVAILABILITY: Record<string, string> = { free: '0', tentative: '1', busy: '2', oof: '3', workingElsewhere: '0' };

// Graph documents both calls as "not supported" for personal Microsoft accounts without giving the wire answer.
// This sandbox answers 400 NotSupported with a message naming personal accounts; the connector recognises that
// and other plausible shapes (see personalAccountRefusal in the connector), so the choice here is not load-bearing.
function personalRefusal(operation: string): GraphError {
  return new GraphError(400, 'NotSupported', `${operation} is not supported for personal Microsoft accounts (outlook.com, hotmail.com, live.com); it needs a work or school account.`);
}

function timeOf(value: unknown, field: string): number {
  if (!isObject(value) || typeof value.dateTime !== 'string') throw new GraphError(400, 'ErrorInvalidParameter', `'${field}' must be an object with dateTime and timeZone.`);
  const ms = toUtcMs(value.dateTime, typeof value.timeZone === 'string' ? value.timeZone : 'UTC');
  if (Number.isNaN(ms)) throw new GraphError(400, 'ErrorInvalidParameter', `'${field}.dateTime' is not a valid date and time.`);
  return ms;
}

/** Busy blocks (ISO UTC) of anyone the tenant knows: a mailbox of this sandbox, or a colleague's seeded schedule. */
function itemsOf(state: CalendarState, owners: CalendarOwner[], address: string, from: number, to: number): ScheduleItem[] | undefined {
  const ref = address.toLowerCase();
  const owner = owners.find((o) => o.mail.toLowerCase() === ref || o.id.toLowerCase() === ref);
  if (owner) {
    // Free/busy covers the default calendar only.
    const defaultId = owner.calendars.find((c) => c.isDefaultCalendar)?.id;
    return instancesBetween(owner.events.filter((e) => !e._calendarId || e._calendarId === defaultId), from, to)
      .filter((e: GraphEvent) => e.showAs !== 'free')
      .map((e) => ({ status: e.showAs as ScheduleItem['status'], subject: e.sensitivity === 'private' ? '' : e.subject, start: toIso(e.start), end: toIso(e.end) }));
  }
  return state.schedules[ref];
}

function getSchedule(state: CalendarState, owners: CalendarOwner[], req: SandboxRequest): SandboxResponse {
  const body = req.body;
  if (!isObject(body) || !Array.isArray(body.schedules) || body.schedules.length === 0) throw new GraphError(400, 'ErrorInvalidParameter', "'schedules' must list at least one address.");
  const start = timeOf(body.startTime, 'startTime');
  const end = timeOf(body.endTime, 'endTime');
  if (end <= start) throw new GraphError(400, 'ErrorInvalidParameter', "'endTime' must be after 'startTime'.");
  const interval = body.availabilityViewInterval ?? 30;
  if (!Number.isInteger(interval) || interval < 5 || interval > 1440) throw new GraphError(400, 'ErrorInvalidParameter', "'availabilityViewInterval' must be between 5 and 1440.");
  const zone = preferredZone(req);
  const value = body.schedules.map((address: string) => {
    const items = itemsOf(state, owners, String(address), start, end);
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
      scheduleItems: inWindow.map((i) => ({ isPrivate: i.subject === '', status: i.status, subject: i.subject, location: '', start: inZone(Date.parse(i.start), zone), end: inZone(Date.parse(i.end), zone) })),
      workingHours: { daysOfWeek: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'], startTime: '08:00:00.0000000', endTime: '17:00:00.0000000', timeZone: { name: 'Pacific Standard Time' } },
    };
  });
  return { status: 200, body: { '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#Collection(microsoft.graph.scheduleInformation)', value } };
}

const BLOCKING = new Set(['busy', 'oof', 'tentative']);

/** Suggests slots where the organizer and every attendee are free, on a 30-minute grid inside the time constraint. */
function findMeetingTimes(state: CalendarState, owners: CalendarOwner[], organizer: CalendarOwner, req: SandboxRequest): SandboxResponse {
  const body = isObject(req.body) ? req.body : {};
  const attendees: Array<{ type?: string; emailAddress: { address: string; name?: string } }> = Array.isArray(body.attendees) ? body.attendees : [];
  const duration = /^PT(?:(\d+)H)?(?:(\d+)M)?$/.exec(String(body.meetingDuration ?? 'PT30M'));
  if (!duration || (!duration[1] && !duration[2])) throw new GraphError(400, 'ErrorInvalidParameter', "'meetingDuration' must be an ISO 8601 duration such as PT1H or PT30M.");
  const ms = (Number(duration[1] ?? 0) * 60 + Number(duration[2] ?? 0)) * 60_000;
  const slots: unknown[] = Array.isArray(body.timeConstraint?.timeSlots) ? body.timeConstraint.timeSlots : [];
  if (slots.length === 0) throw new GraphError(400, 'ErrorInvalidParameter', "'timeConstraint.timeSlots' must hold at least one slot.");
  const max = Number.isInteger(body.maxCandidates) ? body.maxCandidates : 20;
  const zone = preferredZone(req);
  const suggestions: unknown[] = [];
  for (const slot of slots as Array<Record<string, unknown>>) {
    const from = timeOf(slot.start, 'timeSlots.start');
    const to = timeOf(slot.end, 'timeSlots.end');
    const busy = (address: string) => (itemsOf(state, owners, address, from, to) ?? []).filter((i) => BLOCKING.has(i.status));
    const who = [{ address: organizer.mail, organizer: true }, ...attendees.map((a) => ({ address: a.emailAddress.address, organizer: false }))];
    const blocks = who.map((w) => ({ ...w, busy: busy(w.address) }));
    for (let t = Math.ceil(from / 1_800_000) * 1_800_000; t + ms <= to && suggestions.length < max; t += 1_800_000) {
      const clash = (w: (typeof blocks)[number]) => w.busy.some((i) => Date.parse(i.start) < t + ms && Date.parse(i.end) > t);
      if (blocks.some((w) => clash(w) && !(w.organizer && body.isOrganizerOptional))) continue;
      suggestions.push({
        confidence: 100,
        order: suggestions.length + 1,
        organizerAvailability: 'free',
        suggestionReason: 'Suggested because it is one of the nearest times when all attendees are available.',
        attendeeAvailability: attendees.map((a) => ({ attendee: { type: a.type ?? 'required', emailAddress: { address: a.emailAddress.address } }, availability: 'free' })),
        locations: [],
        meetingTimeSlot: { start: inZone(t, zone), end: inZone(t + ms, zone) },
      });
    }
  }
  return { status: 200, body: { '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#microsoft.graph.meetingTimeSuggestionsResult', emptySuggestionsReason: suggestions.length ? '' : 'attendeesUnavailable', meetingTimeSuggestions: suggestions } };
}

/** `owners` lists every mailbox whose calendar the sandbox holds; `ownerOf` resolves the caller (and refuses personal accounts). */
export function scheduleRoutes(state: CalendarState, owners: () => CalendarOwner[], ownerOf: (req: SandboxRequest) => CalendarOwner): Routes {
  const caller = (req: SandboxRequest, operation: string) => {
    const owner = ownerOf(req);
    if (owner.personal) throw personalRefusal(operation);
    return owner;
  };
  const schedule = (req: SandboxRequest) => (caller(req, 'getSchedule'), getSchedule(state, owners(), req));
  const meetingTimes = (req: SandboxRequest) => findMeetingTimes(state, owners(), caller(req, 'findMeetingTimes'), req);
  return {
    'POST /me/calendar/getSchedule': schedule,
    'POST /users/:userId/calendar/getSchedule': schedule,
    'POST /me/findMeetingTimes': meetingTimes,
    'POST /users/:userId/findMeetingTimes': meetingTimes,
  };
}
