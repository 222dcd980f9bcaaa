import { randomUUID } from 'node:crypto';
import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import type { Tool } from '../../tool.js';
import { checkAvailability, getFreeBusy } from './availability.tools.js';
import { checkEmail, checkLocal, checkOrder, checkZone, dateTimeTimeZone, endTimeZone, preferZone, timeZoneField, trimTime } from './calendar.shared.js';
import { cursorField, graphPage, graphQuery, limitField, mailboxField, mailboxPath, person, withGraphHints } from './common.js';
import { outlook } from './connector.js';

const attendee = z
  .object({
    address: z.string().describe('Email address'),
    name: z.string().optional().describe('Display name'),
    type: z.enum(['required', 'optional', 'resource']).optional().describe('Default required'),
  })
  .strict();

type Attendee = z.output<typeof attendee>;
type EventChanges = {
  subject?: string;
  body?: { content: string; contentType?: 'text' | 'html' };
  start?: { dateTime: string; timeZone: string };
  end?: { dateTime: string; timeZone: string };
  location?: string;
  attendees?: Attendee[];
  is_online_meeting?: boolean;
  is_all_day?: boolean;
  reminder_minutes?: number;
  show_as?: string;
};

/** The event fields create_event and update_event share; on update every one is optional and attendees are replaced whole. */
function eventShape(update: boolean) {
  const time = (shape: typeof dateTimeTimeZone, what: string) => (update ? shape.optional().describe(`New ${what}`) : shape.describe(what[0]!.toUpperCase() + what.slice(1)));
  return {
    subject: update ? z.string().optional().describe('New title') : z.string().describe('Title'),
    body: z
      .object({ content: z.string().describe('Text or HTML'), contentType: z.enum(['text', 'html']).optional().describe('Default text') })
      .strict()
      .optional()
      .describe('Description'),
    start: time(dateTimeTimeZone, 'start'),
    end: time(endTimeZone, 'end, after start'),
    location: z.string().optional().describe('Location name'),
    attendees: z.array(attendee).optional().describe(update ? 'Replaces all attendees' : 'Invitees (emailed)'),
    is_online_meeting: z.boolean().optional().describe('Add a meeting link'),
    is_all_day: z.boolean().optional().describe('Times at 00:00'),
    reminder_minutes: z.number().int().min(0).optional().describe('Minutes before start'),
    show_as: z.enum(['free', 'tentative', 'busy', 'oof', 'workingElsewhere']).optional().describe('Default busy'),
    mailbox: mailboxField,
  };
}

/** Checks the caller's fields and turns them into Graph's event body. */
function graphEvent(input: EventChanges): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const start = input.start && { dateTime: checkLocal(input.start.dateTime, 'start.dateTime'), timeZone: checkZone(input.start.timeZone, 'start.timeZone') };
  const end = input.end && { dateTime: checkLocal(input.end.dateTime, 'end.dateTime'), timeZone: checkZone(input.end.timeZone, 'end.timeZone') };
  if (start && end) checkOrder(start, end);
  if (input.is_all_day) {
    for (const [field, t] of [['start', start], ['end', end]] as const) {
      if (t && !t.dateTime.endsWith('T00:00:00')) throw new InputError(`"${field}.dateTime" of an all-day event must be at midnight (T00:00:00), e.g. ${t.dateTime.slice(0, 10)}T00:00:00.`, `${field}.dateTime`);
    }
  }
  if (input.subject !== undefined) out.subject = input.subject;
  if (input.body) out.body = { contentType: input.body.contentType === 'html' ? 'HTML' : 'Text', content: input.body.content };
  if (start) out.start = start;
  if (end) out.end = end;
  if (input.location !== undefined) out.location = { displayName: input.location };
  if (input.attendees) {
    out.attendees = input.attendees.map((a, i) => ({
      emailAddress: { address: checkEmail(a.address, `attendees[${i}].address`), ...(a.name ? { name: a.name } : {}) },
      type: a.type ?? 'required',
    }));
  }
  if (input.is_online_meeting !== undefined) out.isOnlineMeeting = input.is_online_meeting;
  if (input.is_all_day !== undefined) out.isAllDay = input.is_all_day;
  if (input.reminder_minutes !== undefined) Object.assign(out, { reminderMinutesBeforeStart: input.reminder_minutes, isReminderOn: true });
  if (input.show_as !== undefined) out.showAs = input.show_as;
  return out;
}

const eventOutput = z.object({
  id: z.string(),
  subject: z.string(),
  start: z.string(),
  end: z.string(),
  time_zone: z.string(),
  webLink: z.string().optional(),
  attendees: z.array(z.object({ address: z.string(), type: z.string(), response: z.string() })),
  onlineMeetingUrl: z.string().optional(),
});

function eventResult(e: any): z.input<typeof eventOutput> {
  const joinUrl = e.onlineMeeting?.joinUrl ?? e.onlineMeetingUrl;
  return {
    id: e.id,
    subject: e.subject ?? '',
    start: trimTime(e.start?.dateTime),
    end: trimTime(e.end?.dateTime),
    time_zone: e.start?.timeZone ?? 'UTC',
    webLink: e.webLink ?? undefined,
    attendees: (e.attendees ?? []).map((a: any) => ({ address: a.emailAddress?.address ?? '', type: a.type ?? 'required', response: a.status?.response ?? 'none' })),
    ...(joinUrl ? { onlineMeetingUrl: joinUrl } : {}),
  };
}

async function send(api: Api, method: 'POST' | 'PATCH', endpoint: string, body: unknown, zone: string): Promise<any> {
  return (await api.request({ method, endpoint, body, headers: preferZone(zone), endpointField: method === 'PATCH' ? 'id' : 'mailbox' })).body;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const createEvent = outlook.tool({
  name: 'create_event',
  title: 'Create event',
  description:
    'Create a calendar event and invite its attendees; returns the event with its id. ' +
    'Edit it with outlook_update_event.',
  input: z
    .object({
      ...eventShape(false),
      transaction_id: z.string().optional().describe('UUID; reuse on retry to avoid a duplicate'),
    })
    .strict(),
  output: eventOutput,
  effect: 'write',
  async run({ mailbox, transaction_id, ...input }, { api, account }) {
    if (transaction_id !== undefined && !UUID.test(transaction_id)) throw new InputError('"transaction_id" must be a UUID such as 0f8fad5b-d9cb-469f-a165-70867728950e; omit it to get a fresh one.', 'transaction_id');
    const body = { ...graphEvent(input), transactionId: transaction_id ?? randomUUID() };
    const zone = checkZone(input.start!.timeZone, 'start.timeZone');
    return withGraphHints(account, 'calendar', mailbox, async () => eventResult(await send(api, 'POST', `${mailboxPath(mailbox)}/events`, body, zone)));
  },
});

const updateEvent = outlook.tool({
  name: 'update_event',
  title: 'Update event',
  description:
    'Change the given fields of an event (attendees replaced whole); returns the event. ' +
    'Ids come from outlook_list_events.',
  input: z
    .object({
      id: z.string().min(1).describe('Event id'),
      ...eventShape(true),
      time_zone: timeZoneField.describe('Zone of returned times; default start.timeZone'),
    })
    .strict(),
  output: eventOutput,
  effect: 'write',
  idempotent: true,
  async run({ id, mailbox, time_zone, ...input }, { api, account }) {
    const body = graphEvent(input);
    if (Object.keys(body).length === 0) throw new InputError('Nothing to change: give at least one field besides "id" (subject, start, end, attendees...).', 'id');
    const zone = time_zone ? checkZone(time_zone, 'time_zone') : (input.start?.timeZone ?? 'UTC');
    const endpoint = `${mailboxPath(mailbox)}/events/${encodeURIComponent(id)}`;
    return withGraphHints(account, 'calendar', mailbox, async () => eventResult(await send(api, 'PATCH', endpoint, body, zone)));
  },
});

const deleteEvent = outlook.tool({
  name: 'delete_event',
  title: 'Delete event',
  description:
    'Delete an event or one occurrence (an organizer\'s delete cancels it for attendees). ' +
    'Ids come from outlook_list_events.',
  input: z.object({ id: z.string().min(1).describe('Event id'), mailbox: mailboxField }).strict(),
  output: z.object({ deleted: z.literal(true), id: z.string() }),
  effect: 'delete',
  idempotent: true,
  async run({ id, mailbox }, { api, account }) {
    await withGraphHints(account, 'calendar', mailbox, () => api.request({ method: 'DELETE', endpoint: `${mailboxPath(mailbox)}/events/${encodeURIComponent(id)}`, endpointField: 'id' }));
    return { deleted: true as const, id };
  },
});

const RANGE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?)?(Z|[+-]\d{2}:\d{2})?$/i;

/** A calendarView bound: ISO 8601 with or without offset (Graph reads none as UTC); a bare date is midnight. */
function rangeBound(value: string, field: string): { text: string; ms: number } {
  const v = value.trim();
  const text = /T/i.test(v) ? v : `${v}T00:00:00`;
  const ms = Date.parse(/(Z|[+-]\d{2}:\d{2})$/i.test(text) ? text : `${text}Z`);
  if (!RANGE.test(v) || Number.isNaN(ms)) throw new InputError(`"${field}" must be an ISO 8601 date and time such as 2025-03-14T00:00:00 (UTC) or 2025-03-14T00:00:00+01:00.`, field);
  return { text, ms };
}

const eventRow = z.object({
  id: z.string(),
  subject: z.string(),
  start: z.string(),
  end: z.string(),
  location: z.string().optional(),
  organizer: z.string().optional(),
  isAllDay: z.boolean(),
  showAs: z.string(),
  type: z.string().describe('singleInstance, occurrence or exception'),
  webLink: z.string().optional(),
});

const listEvents = outlook.tool({
  name: 'list_events',
  title: 'List events',
  description:
    'List events between start and end, series expanded, times in time_zone. ' +
    'For free slots use outlook_check_availability.',
  input: z
    .object({
      start: z.string().describe('ISO 8601; UTC without offset'),
      end: z.string().describe('Same format'),
      time_zone: timeZoneField,
      calendar_id: z.string().min(1).optional().describe('From GET /me/calendars; default calendar'),
      mailbox: mailboxField,
      limit: limitField(100, 50),
      cursor: cursorField,
    })
    .strict(),
  output: z.object({ events: z.array(eventRow), time_zone: z.string(), next_cursor: z.string().nullable() }),
  effect: 'read',
  records: 'events',
  async run({ start, end, time_zone, calendar_id, mailbox, limit, cursor }, { api, account }) {
    const from = rangeBound(start, 'start');
    const to = rangeBound(end, 'end');
    if (to.ms <= from.ms) throw new InputError(`"end" (${end}) must be after "start" (${start}).`, 'end');
    const zone = checkZone(time_zone ?? 'UTC', 'time_zone');
    const calendar = calendar_id ? `/calendars/${encodeURIComponent(calendar_id)}` : '';
    const query = graphQuery({
      startDateTime: from.text,
      endDateTime: to.text,
      $select: 'subject,start,end,location,organizer,isAllDay,showAs,type,webLink',
      $orderby: 'start/dateTime',
      $top: limit ?? 50,
    });
    const page = await withGraphHints(account, 'calendar', mailbox, () => graphPage<any>(api, `${mailboxPath(mailbox)}${calendar}/calendarView${query}`, cursor, preferZone(zone)));
    const events = page.items.map((e) => ({
      id: e.id,
      subject: e.subject ?? '',
      start: trimTime(e.start?.dateTime),
      end: trimTime(e.end?.dateTime),
      location: e.location?.displayName || undefined,
      organizer: person(e.organizer)?.address ?? undefined,
      isAllDay: !!e.isAllDay,
      showAs: e.showAs ?? 'unknown',
      type: e.type ?? 'singleInstance',
      webLink: e.webLink ?? undefined,
    }));
    return { events, time_zone: zone, next_cursor: page.next_cursor };
  },
});

/** In the specification's order. */
export const calendarTools: Tool[] = [checkAvailability, createEvent, deleteEvent, listEvents, updateEvent, getFreeBusy];
