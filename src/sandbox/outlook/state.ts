import type { USER } from './data.js';
import type { Person, Recipient } from './query.js';
import type { GraphDateTime } from './time.js';

/** The Graph stand-in's state (mail, calendars, contacts) and the token it accepts; the seed is in data.ts and calendar.data.ts, the routes read and change it. */

export interface GraphMessage {
  id: string;
  createdDateTime: string;
  lastModifiedDateTime: string;
  changeKey: string;
  categories: string[];
  receivedDateTime: string;
  sentDateTime: string;
  hasAttachments: boolean;
  internetMessageId: string;
  subject: string;
  bodyPreview: string;
  importance: 'low' | 'normal' | 'high';
  parentFolderId: string;
  conversationId: string;
  isDeliveryReceiptRequested: boolean;
  isReadReceiptRequested: boolean;
  isRead: boolean;
  isDraft: boolean;
  webLink: string;
  inferenceClassification: 'focused' | 'other';
  body: { contentType: 'html' | 'text'; content: string };
  sender: Recipient | null;
  from: Recipient | null;
  toRecipients: Recipient[];
  ccRecipients: Recipient[];
  bccRecipients: Recipient[];
  replyTo: Recipient[];
  flag: { flagStatus: 'notFlagged' | 'flagged' | 'complete' };
}
export interface MailFolder {
  id: string;
  displayName: string;
  parentFolderId: string;
  isHidden: boolean;
}
export interface FileAttachment {
  '@odata.type': '#microsoft.graph.fileAttachment';
  id: string;
  lastModifiedDateTime: string;
  name: string;
  contentType: string;
  size: number;
  isInline: boolean;
  contentId: string | null;
  contentLocation: string | null;
  contentBytes: string;
}
export interface SharedMailbox {
  id: string;
  displayName: string;
  mail: string;
  /** Whether the signed-in user was granted access to this mailbox. */
  delegated: boolean;
  messages: GraphMessage[];
  /** The mailbox's own folders, well-known names and master categories. */
  folders: MailFolder[];
  wellKnownFolders: Record<string, string>;
  categories: OutlookCategory[];
}

export interface OutlookState extends CalendarState {
  /** Bearer tokens this sandbox accepts; all act as `user` except the personal account's (OUTLOOK_PERSONAL_TOKEN, see calendar.ts). */
  tokens: Set<string>;
  user: typeof USER;
  folders: MailFolder[];
  /** Well-known folder name (inbox, sentitems, ...) → folder id. */
  wellKnownFolders: Record<string, string>;
  messages: GraphMessage[];
  /** File attachments by message id. */
  attachments: Record<string, FileAttachment[]>;
  mailboxes: SharedMailbox[];
  seq: number;
}

export type GraphContact = Record<string, any> & { id: string; displayName: string; emailAddresses: Person[] };
export type GraphEvent = Record<string, any> & { id: string; subject: string; start: GraphDateTime; end: GraphDateTime; showAs: string };
export interface GraphCalendar {
  id: string;
  name: string;
  isDefaultCalendar: boolean;
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

/** A mailbox whose calendars and contacts the sandbox holds. */
export interface CalendarOwner {
  id: string;
  displayName: string;
  mail: string;
  /** Whether the signed-in work user may open it as /users/{id}/... (a shared mailbox with delegated access). */
  delegated: boolean;
  /** A personal Microsoft account: no getSchedule, no findMeetingTimes, no other users' mailboxes. */
  personal: boolean;
  calendars: GraphCalendar[];
  events: GraphEvent[];
  contacts: GraphContact[];
}

export interface PersonalAccount extends CalendarOwner {
  userPrincipalName: string;
  /** The bearer token that signs in as this account. */
  token: string;
}

export interface CalendarState {
  seq: number;
  user: { id: string; displayName: string; mail: string; userPrincipalName?: string };
  /** Bearer tokens the sandbox accepts; seedCalendar adds the personal account's. */
  tokens: Set<string>;
  /** The signed-in user's default calendar. */
  events: GraphEvent[];
  contacts: GraphContact[];
  categories: OutlookCategory[];
  /** Colleagues' free/busy by address, answered by getSchedule. */
  schedules: Record<string, ScheduleItem[]>;
  /** Set by seedCalendar: the signed-in user's calendars (the default first), events in others carry `_calendarId`. */
  calendars?: GraphCalendar[];
  /** Set by seedCalendar: calendars and contacts of the shared mailboxes (MAILBOXES). */
  sharedCalendars?: CalendarOwner[];
  /** Set by seedCalendar: the personal account that OUTLOOK_PERSONAL_TOKEN signs in as. */
  personal?: PersonalAccount;
}

export const OUTLOOK_SAMPLE_TOKEN = 'sbx-outlook-token-0001';
