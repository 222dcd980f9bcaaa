import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import type { Account } from '../../store/types.js';
import {
  checkEmail,
  checkLocal,
  checkZone,
  isPersonalAccount,
  isPersonalRefusal,
  personalAccountError,
  preferZone,
  trimTime,
  wallMs,
  wallString,
} from './calendar.shared.js';
import { graphPage, graphQuery, withGraphHints } from './common.js';
import { outlook } from './connector.js';

/** Free/busy: get_free_busy (Graph getSchedule) and check_availability (common free slots, with a personal-account fallback). */

const windowShape = {
  start: z.string().describe('Local, no offset, e.g. 2025-03-14T08:00:00'),
  end: z.string().describe('Same format'),
  time_zone: z.string().optional().describe('Of times in and out, IANA or Windows; default UTC'),
};

/** Checks a window given as local times in one zone; returns them normalised. */
function checkWindow(input: { start: string; end: string; time_zone?: string }) {
  const zone = checkZone(input.time_zone ?? 'UTC', 'time_zone');
  const start = checkLocal(input.start, 'start');
  const end = checkLocal(input.end, 'end');
  if (wallMs(end) <= wallMs(start)) throw new InputError(`"end" (${end}) must be after "start" (${start}).`, 'end');
  return { zone, start, end };
}

interface ScheduleInformation {
  scheduleId?: string;
  availabilityView?: string;
  scheduleItems?: Array<{ status?: string; subject?: string; start?: { dateTime?: string }; end?: { dateTime?: string } }>;
  error?: { message?: string; responseCode?: string };
}

/** POST getSchedule with results in `zone`; a personal account's refusal becomes an error that names the alternatives. */
async function getSchedule(api: Api, schedules: string[], w: { zone: string; start: string; end: string }, interval?: number): Promise<ScheduleInformation[]> {
  const body = {
    schedules,
    startTime: { dateTime: w.start, timeZone: w.zone },
    endTime: { dateTime: w.end, timeZone: w.zone },
    ...(interval ? { availabilityViewInterval: interval } : {}),
  };
  const res = await api.request({ method: 'POST', endpoint: '/me/calendar/getSchedule', body, headers: preferZone(w.zone) });
  return ((res.body as { value?: ScheduleInformation[] }).value ?? []) as ScheduleInformation[];
}

const getFreeBusy = outlook.tool({
  name: 'get_free_busy',
  title: 'Get free/busy schedule',
  description:
    "Get each person's free/busy between start and end: availabilityView and busy items. " +
    'Work or school accounts only; outlook_check_availability finds free slots.',
  input: z
    .object({
      schedules: z.array(z.string()).min(1).max(20).describe('Emails of people or rooms'),
      ...windowShape,
      interval_minutes: z.number().int().min(5).max(1440).optional().describe('Minutes per availabilityView digit; default 30'),
    })
    .strict(),
  output: z.object({
    schedules: z.array(
      z.object({
        scheduleId: z.string().nullable(),
        availabilityView: z.string().describe('digit per interval: 0 free, 1 tentative, 2 busy, 3 away, 4 elsewhere'),
        items: z.array(z.object({ status: z.string(), start: z.string(), end: z.string(), subject: z.string().optional() })),
        error: z.string().optional(),
      }),
    ),
  }),
  effect: 'read',
  async run(input, { api, account }) {
    const w = checkWindow(input);
    const schedules = input.schedules.map((s, i) => checkEmail(s, `schedules[${i}]`));
    if (isPersonalAccount(account)) throw personalAccountError(account);
    const value = await withGraphHints(account, 'calendar', undefined, async () => {
      try {
        return await getSchedule(api, schedules, w, input.interval_minutes);
      } catch (error) {
        throw isPersonalRefusal(error) ? personalAccountError(account) : error;
      }
    });
    return {
      schedules: value.map((s) => ({
        scheduleId: s.scheduleId,
        availabilityView: s.availabilityView ?? '',
        items: (s.scheduleItems ?? []).map((i) => ({ status: i.status ?? 'unknown', start: trimTime(i.start?.dateTime), end: trimTime(i.end?.dateTime), ...(i.subject ? { subject: i.subject } : {}) })),
        ...(s.error ? { error: [s.error.responseCode, s.error.message].filter(Boolean).join(': ') } : {}),
      })),
    };
  },
});

/** Statuses that make a person unavailable; free, workingElsewhere and unknown do not. */
const BLOCKING = new Set(['busy', 'oof', 'tentative']);

interface Busy {
  /** Graph may leave a schedule's id out of its answer. */
  person?: string;
  start: string;
  end: string;
  status: string;
}

/**
 * Free stretches of the window, cut into back-to-back slots of `minutes`. The arithmetic is on wall-clock times in the
 * caller's zone, in which Graph answered (Prefer); only a slot across a DST change can be an hour off.
 */
function freeSlots(busy: Busy[], start: string, end: string, minutes: number, max: number): Array<{ start: string; end: string }> {
  const from = wallMs(start);
  const to = wallMs(end);
  const step = minutes * 60_000;
  const blocks = busy.map((b) => [wallMs(b.start), wallMs(b.end)] as const).sort((a, b) => a[0] - b[0]);
  const slots: Array<{ start: string; end: string }> = [];
  let t = from;
  const emit = (until: number) => {
    for (; t + step <= until && slots.length < max; t += step) slots.push({ start: wallString(t), end: wallString(t + step) });
  };
  for (const [s, e] of blocks) {
    if (e <= t) continue;
    if (s > t) emit(Math.min(s, to));
    t = Math.max(t, e);
    if (t >= to || slots.length >= max) break;
  }
  emit(to);
  return slots;
}

/** Who "you" are in getSchedule: the account's address, else what /me says. */
async function selfAddress(api: Api, account: Account): Promise<string> {
  if (account.identity?.includes('@')) return account.identity;
  const me = await api.get<{ mail?: string | null; userPrincipalName?: string }>('/me?$select=mail,userPrincipalName');
  return me.mail ?? me.userPrincipalName ?? 'me';
}

const OWN_PAGES = 5;

/** Busy blocks of the signed-in user's own calendar (calendarView, showAs), for accounts without getSchedule. */
async function ownBusy(api: Api, account: Account, w: { zone: string; start: string; end: string }): Promise<{ busy: Busy[]; truncated: boolean }> {
  // calendarView reads bounds without offset as UTC; widen by the largest UTC offsets and filter locally in the
  // caller's zone, in which Graph answers (Prefer), so no zone arithmetic happens here.
  const pad = 14 * 3_600_000;
  const query = graphQuery({
    startDateTime: `${wallString(wallMs(w.start) - pad)}Z`,
    endDateTime: `${wallString(wallMs(w.end) + pad)}Z`,
    $select: 'subject,start,end,showAs,isCancelled',
    $orderby: 'start/dateTime',
    $top: 100,
  });
  const person = account.identity ?? 'me';
  const busy: Busy[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < OWN_PAGES; i++) {
    const page = await graphPage<any>(api, `/me/calendarView${query}`, cursor, preferZone(w.zone));
    for (const e of page.items) {
      const start = trimTime(e.start?.dateTime);
      const end = trimTime(e.end?.dateTime);
      if (e.isCancelled || !BLOCKING.has(e.showAs) || wallMs(start) >= wallMs(w.end) || wallMs(end) <= wallMs(w.start)) continue;
      busy.push({ person, start, end, status: e.showAs });
    }
    if (!page.next_cursor) return { busy, truncated: false };
    cursor = page.next_cursor;
  }
  return { busy, truncated: true };
}

const checkAvailability = outlook.tool({
  name: 'check_availability',
  title: 'Check availability',
  description:
    'Check whether you and others are free between start and end; returns busy blocks and common free slots. ' +
    'Personal accounts check only your calendar (see note).',
  input: z
    .object({
      people: z.array(z.string()).max(20).optional().describe('Emails besides yours (always included)'),
      ...windowShape,
      duration_minutes: z.number().int().min(5).max(1440).optional().describe('Slot length; default 30'),
      max_slots: z.number().int().min(1).max(50).optional().describe('Default 10'),
    })
    .strict(),
  output: z.object({
    all_free: z.boolean().describe('No busy block in any checked calendar'),
    busy: z.array(z.object({ person: z.string().nullable(), start: z.string(), end: z.string(), status: z.string() })),
    slots: z.array(z.object({ start: z.string(), end: z.string() })),
    source: z.enum(['getSchedule', 'own_calendar']),
    note: z.string().optional(),
  }),
  effect: 'read',
  async run(input, { api, account }) {
    const w = checkWindow(input);
    const minutes = input.duration_minutes ?? 30;
    if (wallMs(w.end) - wallMs(w.start) < minutes * 60_000) {
      throw new InputError(`"duration_minutes" (${minutes}) is longer than the window from start to end; widen the window or shorten the slot.`, 'duration_minutes');
    }
    const people = (input.people ?? []).map((p, i) => checkEmail(p, `people[${i}]`));
    const slotsOf = (busy: Busy[]) => freeSlots(busy, w.start, w.end, minutes, input.max_slots ?? 10);

    return withGraphHints(account, 'calendar', undefined, async () => {
      if (!isPersonalAccount(account)) {
        try {
          const me = await selfAddress(api, account);
          const schedules = [...new Map([me, ...people].map((a) => [a.toLowerCase(), a])).values()];
          const value = await getSchedule(api, schedules, w);
          const busy: Busy[] = [];
          const unchecked: string[] = [];
          for (const s of value) {
            if (s.error) unchecked.push(`${s.scheduleId} (${s.error.responseCode ?? s.error.message ?? 'error'})`);
            for (const i of s.scheduleItems ?? []) {
              if (BLOCKING.has(i.status ?? '')) busy.push({ person: s.scheduleId, start: trimTime(i.start?.dateTime), end: trimTime(i.end?.dateTime), status: i.status! });
            }
          }
          const note = unchecked.length ? `Could not check: ${unchecked.join(', ')}; slots ignore them.` : undefined;
          return { all_free: busy.length === 0, busy, slots: slotsOf(busy), source: 'getSchedule' as const, ...(note ? { note } : {}) };
        } catch (error) {
          if (!isPersonalRefusal(error)) throw error;
        }
      }
      const { busy, truncated } = await ownBusy(api, account, w);
      const note =
        'Personal Microsoft account: Graph has no free/busy of other people for it, so only your own calendar was checked' +
        (people.length ? `; not checked: ${people.join(', ')}` : '') +
        (truncated ? `; only the first ${OWN_PAGES * 100} events of the window were read` : '') +
        '.';
      return { all_free: busy.length === 0, busy, slots: slotsOf(busy), source: 'own_calendar' as const, note };
    });
  },
});

export { checkAvailability, getFreeBusy };
