import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutlookState, outlookRoutes, SANDBOX_TOKENS } from '../../src/sandbox/index.js';
import { startHarness, type Harness } from '../harness.js';
import { checkExchanges, summary, uncovered, type ContractReport, type Definition } from './check.js';
import { graphDefinition } from './graph-sdk.js';

/** Routes of the Graph stand-in that the Graph SDK does not describe, and why. */
const EXEMPT: Record<string, string> = {
  'GET /v1.0/me/messages/:id/attachments/:attachmentId/$value': "an attachment's raw bytes; the SDK has no builder for it",
  'GET /v1.0/users/:userId/messages/:id/attachments/:attachmentId/$value': "an attachment's raw bytes; the SDK has no builder for it",
  'GET /v1.0/_sandbox/echo': "the sandbox's own debugging route",
  'POST /_sandbox/outlook/deliver': "the sandbox's own control: an email arrives",
  'POST /_sandbox/outlook/expire-delta': "the sandbox's own control: delta tokens expire",
  'POST /_sandbox/outlook/subscriptions/:id/lifecycle': "the sandbox's own control: Graph sends a lifecycle notification",
  'POST /_sandbox/outlook/drop-notifications': "the sandbox's own control: change notifications are lost",
  'GET /_sandbox/outlook/subscriptions': "the sandbox's own control: what was posted for each subscription",
};
const SUPPORT = 'support@contoso.example';
const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

let h: Harness;
let report: ContractReport;
let definition: Definition;

/** Calls the Graph stand-in as the sample account would, for the routes no tool reaches. */
async function graph(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(h.sandbox.baseUrls.outlook + path, {
    method,
    headers: { authorization: `Bearer ${SANDBOX_TOKENS.outlook}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null;
}

beforeAll(async () => {
  h = await startHarness();
  await driveTools();
  for (const mailbox of ['/me', `/users/${encodeURIComponent(SUPPORT)}`]) await driveRest(mailbox);
  await driveSubscriptions();
  definition = await graphDefinition();
  report = await checkExchanges(definition, h.sandbox.servers.outlook.exchanges, EXEMPT);
  console.log(summary('Outlook (Graph)', report, Object.keys(outlookRoutes(createOutlookState())).length));
}, 120_000);
afterAll(() => h?.close());

async function driveTools() {
  const found = await h.ok('outlook_find_email', {});
  const id = found.messages[0].id;
  await h.ok('outlook_list_folders', { limit: 3 });
  await h.ok('outlook_list_labels', {});
  await h.ok('outlook_add_label', { id, label: 'follow UP' });
  await h.ok('outlook_remove_label', { id, label: 'follow UP' });
  await h.ok('outlook_move_email', { id, destination: 'Archive' });
  await h.ok('outlook_send_email', { to: ['jordan.lee@fabrikam.example'], cc: ['Priya Patel <priya@contoso.example>'], subject: 'Volume pricing', body: '<p>Pricing.</p>', body_type: 'html', attachments: [{ name: 'a.txt', content_base64: 'aGk=', content_type: 'text/plain' }] });
  await h.ok('outlook_send_email', { to: ['sam.rivera@acme.example'], subject: 'Re: export', body: 'Fixed.', mailbox: SUPPORT });
  const window = { start: `${day(-2)}T00:00:00Z`, end: `${day(3)}T00:00:00Z` };
  await h.ok('outlook_list_events', { ...window, limit: 10 });
  const event = await h.ok('outlook_create_event', {
    subject: 'Roadmap review',
    body: { content: 'Agenda', contentType: 'text' },
    start: { dateTime: `${day(9)}T14:00:00`, timeZone: 'Pacific Standard Time' },
    end: { dateTime: `${day(9)}T15:00:00`, timeZone: 'Pacific Standard Time' },
    location: 'Room 4A',
    attendees: [{ address: 'priya@contoso.example', name: 'Priya Patel' }],
    is_online_meeting: true,
    reminder_minutes: 10,
    show_as: 'tentative',
  });
  await h.ok('outlook_update_event', { id: event.id, subject: 'Final plan', attendees: [{ address: 'jordan.lee@fabrikam.example', type: 'optional' }], time_zone: 'Asia/Tokyo' });
  await h.ok('outlook_delete_event', { id: event.id });
  await h.ok('outlook_get_free_busy', { schedules: ['priya@contoso.example', 'morgan.chen@contoso.example'], start: `${day(1)}T08:00:00`, end: `${day(1)}T16:00:00`, interval_minutes: 60 });
  await h.ok('outlook_check_availability', { people: ['priya@contoso.example'], start: `${day(1)}T08:00:00`, end: `${day(1)}T12:00:00` });
  const contact = await h.ok('outlook_create_contact', { givenName: 'Dana', surname: 'Ortiz', emailAddresses: [{ address: 'dana.ortiz@contoso.example' }], businessPhones: ['+1 206 555 0150'], companyName: 'Contoso' });
  await h.ok('outlook_update_contact', { id: contact.id, jobTitle: 'CEO' });
  await h.ok('outlook_find_contact', { email: 'dana.ortiz@contoso.example' });
  await h.ok('outlook_list_contacts', { limit: 2 });
  const trigger = await h.ok('triggers_create', { kind: 'outlook.new_email', config: {} });
  await h.ok('triggers_delete', { id: trigger.trigger.id });
}

/** Subscriptions need an endpoint that passes Graph's validation: one on loopback that echoes the token. */
async function driveSubscriptions() {
  const endpoint = createServer((req, res) => {
    const token = new URL(req.url!, 'http://x').searchParams.get('validationToken');
    req.resume();
    res.writeHead(token === null ? 202 : 200, { 'content-type': 'text/plain' }).end(token ?? '');
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
  try {
    const body = (resource: string) => ({
      changeType: 'created',
      notificationUrl: `${url}/n`,
      lifecycleNotificationUrl: `${url}/l`,
      resource,
      expirationDateTime: new Date(Date.now() + 3_600_000).toISOString(),
      clientState: 'contract',
    });
    const made = await graph('POST', '/subscriptions', body("me/mailFolders('inbox')/messages"));
    await graph('POST', '/subscriptions', body("users/nobody@contoso.example/mailFolders('inbox')/messages"));
    await graph('GET', '/subscriptions');
    await graph('GET', `/subscriptions/${made.id}`);
    await graph('PATCH', `/subscriptions/${made.id}`, { expirationDateTime: new Date(Date.now() + 7_200_000).toISOString() });
    await graph('POST', `/subscriptions/${made.id}/reauthorize`);
    await graph('DELETE', `/subscriptions/${made.id}`);
    await graph('GET', `/subscriptions/${made.id}`);
  } finally {
    await new Promise((resolve) => endpoint.close(resolve));
  }
}

async function driveRest(box: string) {
  if (box === '/me') await graph('GET', '/me');
  const messages = await graph('GET', `${box}/messages?$top=3&$select=id,subject,hasAttachments`);
  const id = messages.value[0].id;
  await graph('GET', `${box}/messages/${id}`);
  await graph('PATCH', `${box}/messages/${id}`, { isRead: true, categories: ['Blue category'] });
  await graph('POST', `${box}/messages/${id}/reply`, { comment: 'Thanks!' });
  await graph('POST', `${box}/messages/${id}/forward`, { comment: 'FYI', toRecipients: [{ emailAddress: { address: 'priya@contoso.example' } }] });
  const copy = await graph('POST', `${box}/messages/${id}/copy`, { destinationId: 'archive' });
  await graph('POST', `${box}/messages/${copy.id}/move`, { destinationId: 'deleteditems' });
  await graph('DELETE', `${box}/messages/${copy.id}`);
  await graph('POST', `${box}/sendMail`, { message: { subject: 'Hi', body: { contentType: 'Text', content: 'Hello' }, toRecipients: [{ emailAddress: { address: 'priya@contoso.example' } }], attachments: [{ '@odata.type': '#microsoft.graph.fileAttachment', name: 'a.txt', contentBytes: 'aGk=' }] }, saveToSentItems: true });
  const withFiles = await graph('GET', `${box}/messages?$filter=hasAttachments eq true&$top=1`);
  if (withFiles.value[0]) {
    const attachments = await graph('GET', `${box}/messages/${withFiles.value[0].id}/attachments`);
    await graph('GET', `${box}/messages/${withFiles.value[0].id}/attachments/${attachments.value[0].id}`);
  }
  await graph('GET', `${box}/mailFolders?$top=5`);
  const folder = await graph('POST', `${box}/mailFolders`, { displayName: 'Contract' });
  await graph('GET', `${box}/mailFolders/${folder.id}`);
  await graph('POST', `${box}/mailFolders/${folder.id}/childFolders`, { displayName: 'Child' });
  await graph('GET', `${box}/mailFolders/${folder.id}/childFolders`);
  await graph('GET', `${box}/mailFolders/inbox/messages?$top=2`);
  await graph('GET', `${box}/mailFolders/inbox/messages/delta?$select=subject`);
  await graph('GET', `${box}/outlook/masterCategories`);
  await graph('POST', `${box}/outlook/masterCategories`, { displayName: `Contract ${box.length}`, color: 'preset3' });
  const window = `startDateTime=${day(-2)}T00:00:00Z&endDateTime=${day(3)}T00:00:00Z`;
  const calendars = await graph('GET', `${box}/calendars`);
  const calendarId = calendars.value[0].id;
  await graph('GET', `${box}/events?$top=2`);
  await graph('GET', `${box}/calendar/events?$top=2`);
  await graph('GET', `${box}/calendars/${calendarId}/events?$top=2`);
  await graph('GET', `${box}/calendarView?${window}`);
  await graph('GET', `${box}/calendar/calendarView?${window}`);
  await graph('GET', `${box}/calendars/${calendarId}/calendarView?${window}`);
  const slot = (d: number) => ({ start: { dateTime: `${day(d)}T09:00:00`, timeZone: 'UTC' }, end: { dateTime: `${day(d)}T09:30:00`, timeZone: 'UTC' } });
  const a = await graph('POST', `${box}/events`, { subject: 'A', ...slot(5) });
  const b = await graph('POST', `${box}/calendar/events`, { subject: 'B', ...slot(6) });
  const c = await graph('POST', `${box}/calendars/${calendarId}/events`, { subject: 'C', ...slot(7), recurrence: { pattern: { type: 'daily', interval: 1 }, range: { type: 'numbered', startDate: day(7), numberOfOccurrences: 2 } } });
  await graph('GET', `${box}/events/${a.id}`);
  await graph('GET', `${box}/calendar/events/${b.id}`);
  await graph('PATCH', `${box}/events/${a.id}`, { subject: 'A2' });
  await graph('PATCH', `${box}/calendar/events/${b.id}`, { subject: 'B2' });
  await graph('GET', `${box}/events/${c.id}/instances?startDateTime=${day(6)}T00:00:00Z&endDateTime=${day(9)}T00:00:00Z`);
  await graph('DELETE', `${box}/events/${a.id}`);
  await graph('DELETE', `${box}/calendar/events/${b.id}`);
  await graph('POST', `${box}/calendar/getSchedule`, { schedules: ['priya@contoso.example'], startTime: { dateTime: `${day(1)}T08:00:00`, timeZone: 'UTC' }, endTime: { dateTime: `${day(1)}T12:00:00`, timeZone: 'UTC' }, availabilityViewInterval: 30 });
  await graph('POST', `${box}/findMeetingTimes`, { attendees: [{ type: 'required', emailAddress: { address: 'priya@contoso.example' } }], meetingDuration: 'PT30M', timeConstraint: { timeSlots: [{ start: { dateTime: `${day(1)}T08:00:00`, timeZone: 'UTC' }, end: { dateTime: `${day(1)}T12:00:00`, timeZone: 'UTC' } }] } });
  const contact = await graph('POST', `${box}/contacts`, { givenName: 'Rest', emailAddresses: [{ address: 'rest@contoso.example' }] });
  await graph('GET', `${box}/contacts?$top=2`);
  await graph('GET', `${box}/contacts/${contact.id}`);
  await graph('PATCH', `${box}/contacts/${contact.id}`, { jobTitle: 'Tester' });
  await graph('DELETE', `${box}/contacts/${contact.id}`);
}

describe("the Outlook stand-in, held to Microsoft Graph's models in @microsoft/msgraph-sdk", () => {
  it('sends and answers only what the models allow', () => {
    expect(report.problems).toEqual([]);
  });

  it('is checked on every route it serves', () => {
    expect(uncovered(Object.keys(outlookRoutes(createOutlookState())), report.routes, EXEMPT)).toEqual([]);
  });

  it('fails an answer or a request that drifts from the models', async () => {
    const exchanges = h.sandbox.servers.outlook.exchanges;
    const message = exchanges.find((e) => e.route === 'GET /v1.0/me/messages/:id' && e.status === 200)!;
    const patched = exchanges.find((e) => e.route === 'PATCH /v1.0/me/messages/:id' && e.status === 200)!;
    const body = { importance: 'urgent' };
    const drifted = [
      { ...message, payload: JSON.stringify({ ...JSON.parse(String(message.payload)), isRead: 'yes', colour: 'red' }) },
      { ...patched, request: { ...patched.request, body, rawBody: Buffer.from(JSON.stringify(body)) } },
    ];
    expect((await checkExchanges(definition, drifted)).problems).toEqual([
      expect.stringMatching(/: answer\/isRead is "yes", not a boolean$/),
      expect.stringMatching(/: answer\/colour is not a property of this model$/),
      expect.stringMatching(/: request body\/importance is 'urgent', not one of low, normal, high$/),
    ]);
  });
});
