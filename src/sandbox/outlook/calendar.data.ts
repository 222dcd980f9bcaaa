import { PEOPLE, type EventSeed } from './data.js';

/** Calendar and contact seeds besides the signed-in user's own: a series, a second calendar, shared mailboxes, a personal account. */

/** The sample user's daily stand-up: five occurrences from two days ago; tomorrow's one was moved half an hour later. */
export const STANDUP = { subject: 'Team standup', firstDay: -2, startHour: 8, minutes: 15, occurrences: 5, movedDay: 1, movedByMinutes: 30 };

/** The sample user's second calendar and what it holds. */
export const TEAM_CALENDAR = { name: 'Team events', events: [{ subject: 'Hackathon demo day', day: 6, startHour: 13, hours: 3, location: 'Atrium' }] as EventSeed[] };

/** Calendars and contacts of the shared mailboxes (ids and addresses match MAILBOXES in data.ts). */
export const SHARED_CALENDARS: Record<string, { events: EventSeed[]; contacts: ContactSeed[] }> = {
  'support@contoso.example': {
    events: [
      { subject: 'Support rota: Morgan', day: 1, startHour: 8, hours: 9, showAs: 'free' },
      { subject: 'Incident review', day: 1, startHour: 11, hours: 1, attendees: [{ person: PEOPLE.morgan }], online: true },
    ],
    contacts: [{ givenName: 'Northwind', surname: 'Billing', email: PEOPLE.billing.address, companyName: 'Northwind', jobTitle: 'Accounts receivable' }],
  },
  'ceo@contoso.example': {
    events: [{ subject: 'Board meeting', day: 1, startHour: 9, hours: 3, sensitivity: 'private' }],
    contacts: [],
  },
};

export interface ContactSeed {
  givenName: string;
  surname: string;
  email: string;
  companyName?: string;
  jobTitle?: string;
  mobilePhone?: string;
}

/** A personal Microsoft account (outlook.com): its own calendar and contacts, no free/busy of others. */
export const PERSONAL_USER = {
  // Personal accounts have 16-hex-digit user ids.
  id: '4c1d7f2e9a8b3c60',
  displayName: 'Riley Park',
  mail: 'riley.park@outlook.example',
  userPrincipalName: 'riley.park@outlook.example',
};

export const PERSONAL_EVENTS: EventSeed[] = [
  { subject: 'Gym', day: 1, startHour: 7, hours: 1 },
  { subject: 'Lunch with Sam', day: 1, startHour: 12, hours: 1, attendees: [{ person: PEOPLE.sam, response: 'accepted' }], location: 'Ramen place on 5th' },
  { subject: 'Call the bank', day: 1, startHour: 15, hours: 0.5, showAs: 'tentative' },
  { subject: 'Podcast time', day: 1, startHour: 17, hours: 1, showAs: 'free' },
  { subject: 'Weekend in the mountains', day: 5, startHour: 0, hours: 48, allDay: true, showAs: 'oof' },
];

export const PERSONAL_CONTACTS: ContactSeed[] = [
  { givenName: 'Sam', surname: 'Rivera', email: PEOPLE.sam.address, mobilePhone: '+1 512 555 0177' },
  { givenName: 'Jamie', surname: 'Park', email: 'jamie.park@outlook.example', mobilePhone: '+1 206 555 0188' },
];
