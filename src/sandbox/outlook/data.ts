/** Sample mailbox of the Outlook sandbox: Avery Quinn at Contoso. Times are relative to `now`. */

export const USER = {
  id: '6f1c2d3e-0a4b-4c5d-8e9f-a0b1c2d3e4f5',
  displayName: 'Avery Quinn',
  givenName: 'Avery',
  surname: 'Quinn',
  mail: 'avery@contoso.example',
  userPrincipalName: 'avery@contoso.example',
  jobTitle: 'Account Director',
  officeLocation: 'Seattle / 4th floor',
  preferredLanguage: 'en-US',
  mobilePhone: '+1 206 555 0100',
  businessPhones: ['+1 206 555 0101'],
};

export const PEOPLE = {
  avery: { name: 'Avery Quinn', address: 'avery@contoso.example' },
  jordan: { name: 'Jordan Lee', address: 'jordan.lee@fabrikam.example' },
  priya: { name: 'Priya Patel', address: 'priya@contoso.example' },
  sam: { name: 'Sam Rivera', address: 'sam.rivera@acme.example' },
  morgan: { name: 'Morgan Chen', address: 'morgan.chen@contoso.example' },
  alex: { name: 'Alex Kim', address: 'alex.kim@contoso.example' },
  billing: { name: 'Northwind Billing', address: 'billing@northwind.example' },
  github: { name: 'GitHub', address: 'notifications@github.example' },
  security: { name: 'Contoso Security', address: 'security-noreply@contoso.example' },
  digest: { name: 'Contoso Weekly', address: 'digest@contoso.example' },
  hr: { name: 'Contoso HR', address: 'hr@contoso.example' },
  travel: { name: 'Contoso Travel Desk', address: 'travel@contoso.example' },
  promo: { name: 'Totally Legit Prizes', address: 'winner@prizes.example' },
};
type Person = { name: string; address: string };

/** Well-known name → display name; the child folder 'Receipts' lives under the inbox. */
export const FOLDERS: Array<{ wellKnown?: string; displayName: string; parent?: string }> = [
  { wellKnown: 'msgfolderroot', displayName: 'Top of Information Store' },
  { wellKnown: 'inbox', displayName: 'Inbox', parent: 'msgfolderroot' },
  { wellKnown: 'drafts', displayName: 'Drafts', parent: 'msgfolderroot' },
  { wellKnown: 'sentitems', displayName: 'Sent Items', parent: 'msgfolderroot' },
  { wellKnown: 'deleteditems', displayName: 'Deleted Items', parent: 'msgfolderroot' },
  { wellKnown: 'junkemail', displayName: 'Junk Email', parent: 'msgfolderroot' },
  { wellKnown: 'archive', displayName: 'Archive', parent: 'msgfolderroot' },
  { wellKnown: 'outbox', displayName: 'Outbox', parent: 'msgfolderroot' },
  { displayName: 'Receipts', parent: 'inbox' },
];

export const CATEGORIES = [
  { displayName: 'Customers', color: 'preset0' },
  { displayName: 'Follow up', color: 'preset1' },
  { displayName: 'Finance', color: 'preset3' },
  { displayName: 'Personal', color: 'preset4' },
  { displayName: 'Travel', color: 'preset7' },
];

export interface AttachmentSeed {
  name: string;
  contentType: string;
  content: Buffer;
  isInline?: boolean;
}

export interface MessageSeed {
  folder: string;
  from: Person;
  to: Person[];
  cc?: Person[];
  subject: string;
  html: string;
  hoursAgo: number;
  isRead?: boolean;
  isDraft?: boolean;
  categories?: string[];
  importance?: 'low' | 'normal' | 'high';
  flagged?: boolean;
  focused?: boolean;
  attachments?: AttachmentSeed[];
}

const PDF = (title: string) => Buffer.from(`%PDF-1.4\n%\u00e2\u00e3\n1 0 obj << /Title (${title}) >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`, 'latin1');
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const p = PEOPLE;
const html = (...paras: string[]) => `<html><body>${paras.map((t) => `<p>${t}</p>`).join('')}</body></html>`;

export const MESSAGES: MessageSeed[] = [
  // Inbox: 14 messages, newest first, so `$top=10` gives two pages.
  { folder: 'inbox', from: p.jordan, to: [p.avery], subject: 'Q4 contract renewal', hoursAgo: 1, importance: 'high', categories: ['Customers'], html: html('Hi Avery,', 'Attached is the redlined Q4 renewal. Can we close this by Friday?', 'Jordan'), attachments: [{ name: 'Contract-Q4.pdf', contentType: 'application/pdf', content: PDF('Fabrikam Q4 renewal') }] },
  { folder: 'inbox', from: p.hr, to: [p.avery], subject: 'Benefits enrollment closes Friday', hoursAgo: 3, importance: 'high', html: html('Reminder: open enrollment closes this Friday at 17:00.') },
  { folder: 'inbox', from: p.billing, to: [p.avery], subject: 'Invoice INV-20931 for November', hoursAgo: 5, categories: ['Finance'], html: html('Your invoice INV-20931 (USD 4,200.00) is attached. Payment is due in 30 days.'), attachments: [{ name: 'INV-20931.pdf', contentType: 'application/pdf', content: PDF('INV-20931') }] },
  { folder: 'inbox', from: p.sam, to: [p.avery], cc: [p.priya], subject: 'Re: Pilot results', hoursAgo: 8, categories: ['Customers'], html: html('The pilot numbers look great: 38% faster onboarding.', 'Sam') },
  { folder: 'inbox', from: p.priya, to: [p.avery], subject: 'Design review notes', hoursAgo: 20, html: html('Notes from the design review, with the screenshot we discussed.'), attachments: [{ name: 'screenshot.png', contentType: 'image/png', content: PNG, isInline: false }] },
  { folder: 'inbox', from: p.github, to: [p.avery], subject: '[sbx-octocat/hello-world] Greeting is not localized (Issue #3)', hoursAgo: 26, isRead: true, focused: false, html: html('sbx-hubot opened an issue: the greeting is always in English.') },
  { folder: 'inbox', from: p.morgan, to: [p.avery], subject: 'Lunch on Thursday?', hoursAgo: 30, isRead: true, categories: ['Personal'], html: html('Ramen place on 5th? 12:30?') },
  { folder: 'inbox', from: p.security, to: [p.avery], subject: 'New sign-in to your account', hoursAgo: 40, isRead: true, focused: false, html: html('We noticed a new sign-in from Chrome on Windows. If this was you, no action is needed.') },
  { folder: 'inbox', from: p.jordan, to: [p.avery], subject: 'Pricing questions', hoursAgo: 50, isRead: true, flagged: true, categories: ['Customers', 'Follow up'], html: html('Could you send the volume pricing for 500+ seats?') },
  { folder: 'inbox', from: p.digest, to: [p.avery], subject: 'Contoso weekly digest', hoursAgo: 60, isRead: true, focused: false, html: html('This week: new cafeteria menu, Q4 all-hands recording, and parking updates.') },
  { folder: 'inbox', from: p.sam, to: [p.avery], subject: 'Intro call next week', hoursAgo: 75, isRead: true, html: html('Would Tuesday 10:00 work for an intro call with our CTO?') },
  { folder: 'inbox', from: p.alex, to: [p.avery], subject: 'Quarterly report draft', hoursAgo: 90, isRead: true, categories: ['Finance'], html: html('Draft of the quarterly report; numbers are preliminary.'), attachments: [{ name: 'Q3-report.csv', contentType: 'text/csv', content: Buffer.from('region,revenue\nNA,1200000\nEMEA,830000\nAPAC,410000\n') }] },
  { folder: 'inbox', from: p.travel, to: [p.avery], subject: 'Your trip to Lisbon: itinerary', hoursAgo: 110, isRead: true, categories: ['Travel'], html: html('Flight TP 1234 departs SEA 18:05. Hotel: Lisboa Centro, 3 nights.') },
  { folder: 'inbox', from: p.priya, to: [p.avery], subject: 'Team offsite agenda', hoursAgo: 130, categories: ['Travel'], html: html('Draft agenda for the offsite attached.'), attachments: [{ name: 'agenda.txt', contentType: 'text/plain', content: Buffer.from('Day 1: strategy\nDay 2: roadmap\nDay 3: team activity\n') }] },
  // Receipts (child of Inbox)
  { folder: 'Receipts', from: p.travel, to: [p.avery], subject: 'Receipt: Lisbon hotel deposit', hoursAgo: 200, isRead: true, categories: ['Travel', 'Finance'], html: html('Deposit of EUR 150.00 received.') },
  { folder: 'Receipts', from: p.billing, to: [p.avery], subject: 'Receipt: payment for INV-20588', hoursAgo: 400, isRead: true, categories: ['Finance'], html: html('Thank you, we received USD 3,900.00.') },
  // Sent Items
  { folder: 'sentitems', from: p.avery, to: [p.jordan], subject: 'Re: Pricing questions', hoursAgo: 48, isRead: true, html: html('Hi Jordan, volume pricing is on its way by Wednesday.') },
  { folder: 'sentitems', from: p.avery, to: [p.priya], subject: 'Offsite: dietary needs', hoursAgo: 100, isRead: true, html: html('Please collect dietary needs by Monday.') },
  { folder: 'sentitems', from: p.avery, to: [p.sam], cc: [p.morgan], subject: 'Pilot kickoff', hoursAgo: 300, isRead: true, html: html('Kickoff is confirmed for the 3rd.') },
  // Archive
  { folder: 'archive', from: p.jordan, to: [p.avery], subject: 'Signed NDA', hoursAgo: 900, isRead: true, categories: ['Customers'], html: html('Signed NDA attached for your records.'), attachments: [{ name: 'NDA-signed.pdf', contentType: 'application/pdf', content: PDF('NDA') }] },
  { folder: 'archive', from: p.hr, to: [p.avery], subject: 'Welcome to Contoso', hoursAgo: 2000, isRead: true, html: html('Welcome aboard, Avery!') },
  // Drafts, Deleted Items, Junk Email
  { folder: 'drafts', from: p.avery, to: [p.morgan], subject: 'Re: Lunch on Thursday?', hoursAgo: 29, isRead: true, isDraft: true, html: html('Sounds good, see you') },
  { folder: 'deleteditems', from: p.digest, to: [p.avery], subject: 'Contoso weekly digest (last week)', hoursAgo: 230, isRead: true, html: html('Last week at Contoso.') },
  { folder: 'junkemail', from: p.promo, to: [p.avery], subject: 'You have WON a prize!!!', hoursAgo: 12, focused: false, html: html('Click here to claim your prize.') },
];

/** Shared mailboxes reachable as /users/{address}/messages. */
export const MAILBOXES: Array<{ id: string; displayName: string; mail: string; delegated: boolean; messages: MessageSeed[]; categories?: Array<{ displayName: string; color: string }> }> = [
  {
    id: '0b7e6c1a-2f3d-4e5a-9b8c-7d6e5f4a3b2c',
    displayName: 'Contoso Support',
    mail: 'support@contoso.example',
    delegated: true,
    categories: [
      { displayName: 'Escalated', color: 'preset0' },
      { displayName: 'Waiting on customer', color: 'preset5' },
    ],
    messages: [
      { folder: 'inbox', from: p.sam, to: [{ name: 'Contoso Support', address: 'support@contoso.example' }], subject: 'Cannot export report', hoursAgo: 4, html: html('Export to CSV fails with error 500.') },
      { folder: 'inbox', from: p.jordan, to: [{ name: 'Contoso Support', address: 'support@contoso.example' }], subject: 'SSO setup help', hoursAgo: 16, isRead: true, html: html('How do we set up SSO with Entra ID?') },
      { folder: 'inbox', from: p.morgan, to: [{ name: 'Contoso Support', address: 'support@contoso.example' }], subject: 'Status page link', hoursAgo: 50, isRead: true, html: html('Where is the status page?') },
    ],
  },
  { id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', displayName: 'Dana Ortiz (CEO)', mail: 'ceo@contoso.example', delegated: false, messages: [] },
];

export interface EventSeed {
  subject: string;
  /** Days from today (UTC midnight) and hours into that day. */
  day: number;
  startHour: number;
  hours: number;
  allDay?: boolean;
  attendees?: Array<{ person: Person; type?: 'required' | 'optional'; response?: string }>;
  location?: string;
  online?: boolean;
  showAs?: 'free' | 'tentative' | 'busy' | 'oof' | 'workingElsewhere';
  sensitivity?: 'normal' | 'private';
  categories?: string[];
  body?: string;
}

export const EVENTS: EventSeed[] = [
  { subject: 'Pilot retro', day: -1, startHour: 16, hours: 1, attendees: [{ person: p.sam, response: 'accepted' }], location: 'Teams', online: true },
  { subject: 'Weekly sync', day: 1, startHour: 10, hours: 0.5, attendees: [{ person: p.priya, response: 'accepted' }, { person: p.morgan, type: 'optional', response: 'tentativelyAccepted' }], online: true, body: 'Agenda: pipeline, hiring, offsite.' },
  { subject: 'Fabrikam renewal call', day: 1, startHour: 14, hours: 1, attendees: [{ person: p.jordan, response: 'none' }], location: 'Conference Room 4A', categories: ['Customers'] },
  { subject: 'Lisbon offsite', day: 2, startHour: 0, hours: 24, allDay: true, showAs: 'oof', location: 'Lisbon', categories: ['Travel'] },
  { subject: 'Dentist', day: 3, startHour: 9, hours: 1, showAs: 'busy', sensitivity: 'private', categories: ['Personal'] },
  { subject: 'Intro call: Acme CTO', day: 4, startHour: 17, hours: 0.5, showAs: 'tentative', attendees: [{ person: p.sam, response: 'accepted' }], online: true },
];

/** Free/busy of colleagues, for getSchedule. */
export const SCHEDULES: Record<string, Array<{ day: number; startHour: number; hours: number; status: string; subject: string }>> = {
  'priya@contoso.example': [
    { day: 1, startHour: 10, hours: 0.5, status: 'busy', subject: 'Weekly sync' },
    { day: 1, startHour: 13, hours: 2, status: 'busy', subject: 'Design review' },
    { day: 2, startHour: 0, hours: 24, status: 'oof', subject: 'Lisbon offsite' },
  ],
  'morgan.chen@contoso.example': [
    { day: 1, startHour: 9, hours: 1, status: 'tentative', subject: 'Standup' },
    { day: 1, startHour: 15, hours: 1, status: 'workingElsewhere', subject: 'Remote' },
  ],
};

export const CONTACTS = [
  { givenName: 'Jordan', surname: 'Lee', email: p.jordan.address, companyName: 'Fabrikam', jobTitle: 'Procurement Lead', department: 'Procurement', mobilePhone: '+1 415 555 0142', city: 'San Francisco', state: 'CA', country: 'United States' },
  { givenName: 'Priya', surname: 'Patel', email: p.priya.address, companyName: 'Contoso', jobTitle: 'Design Manager', department: 'Design', mobilePhone: '+1 206 555 0119', city: 'Seattle', state: 'WA', country: 'United States' },
  { givenName: 'Sam', surname: 'Rivera', email: p.sam.address, companyName: 'Acme', jobTitle: 'VP Operations', department: 'Operations', mobilePhone: '+1 512 555 0177', city: 'Austin', state: 'TX', country: 'United States' },
  { givenName: 'Morgan', surname: 'Chen', email: p.morgan.address, companyName: 'Contoso', jobTitle: 'Software Engineer', department: 'Engineering', mobilePhone: null, city: 'Seattle', state: 'WA', country: 'United States' },
  { givenName: 'Alex', surname: 'Kim', email: p.alex.address, companyName: 'Contoso', jobTitle: 'Finance Analyst', department: 'Finance', mobilePhone: '+1 206 555 0133', city: 'Seattle', state: 'WA', country: 'United States' },
];
