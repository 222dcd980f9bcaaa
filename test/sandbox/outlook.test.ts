import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_TOKENS, deliverEmail, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { client, http } from './http.js';

let sandbox: Sandbox;
let api: ReturnType<typeof client>;
let base: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  base = sandbox.baseUrls.outlook;
  api = client(base, { authorization: `Bearer ${SANDBOX_TOKENS.outlook}` });
});
afterAll(() => sandbox.close());

const state = () => sandbox.states.outlook;
const inboxId = () => state().wellKnownFolders.inbox!;
const bySubject = (subject: string) => state().messages.find((m) => m.subject === subject)!;

describe('auth and identity', () => {
  it('refuses a request without a token, and with an unknown one, in Graph error shape', async () => {
    const none = await http('GET', `${base}/me`);
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({ code: 'InvalidAuthenticationToken', message: expect.any(String) });
    expect(none.body.error.innerError['request-id']).toBeTruthy();
    const wrong = await http('GET', `${base}/me/messages`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('InvalidAuthenticationToken');
  });

  it('accepts tokens added to the state', async () => {
    state().tokens.add('extra-token');
    expect((await http('GET', `${base}/me`, { headers: { authorization: 'Bearer extra-token' } })).status).toBe(200);
  });

  it('GET /me names the user', async () => {
    const res = await api('GET', '/me');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: expect.any(String), displayName: 'Avery Quinn', mail: 'avery@contoso.example', userPrincipalName: 'avery@contoso.example' });
  });

  it('has no route outside /v1.0', async () => {
    const res = await http('GET', `${sandbox.servers.outlook.url}/me`, { headers: { authorization: `Bearer ${SANDBOX_TOKENS.outlook}` } });
    expect(res.status).toBe(501);
    sandbox.servers.outlook.misses.length = 0;
  });
});

describe('every path of the spec answers with the right shape', () => {
  const ids: Record<string, string> = {};
  beforeAll(() => {
    const s = state();
    ids.message = bySubject('Pricing questions').id;
    ids.withAttachment = bySubject('Q4 contract renewal').id;
    ids.attachment = s.attachments[ids.withAttachment]![0]!.id;
    ids.junk = bySubject('You have WON a prize!!!').id;
    ids.toMove = bySubject('Contoso weekly digest').id;
    ids.event = s.events[1]!.id;
    ids.eventToDelete = s.events[0]!.id;
    ids.contact = s.contacts[0]!.id;
    ids.contactToDelete = s.contacts[4]!.id;
    ids.folder = s.wellKnownFolders.archive!;
  });
  const value = (b: any) => expect(Array.isArray(b.value)).toBe(true);
  const later = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 19);
  const rows: Array<{ method: string; path: string; body?: unknown; status: number; check?: (b: any) => void }> = [
    { method: 'GET', path: '/me/messages', status: 200, check: (b) => (value(b), expect(b['@odata.nextLink']).toContain('$skip=10')) },
    { method: 'GET', path: '/me/messages/{message}', status: 200, check: (b) => expect(b).toMatchObject({ id: ids.message, subject: 'Pricing questions', from: { emailAddress: { address: 'jordan.lee@fabrikam.example' } } }) },
    { method: 'POST', path: '/me/sendMail', body: { message: { subject: 'Hello', body: { contentType: 'Text', content: 'Hi' }, toRecipients: [{ emailAddress: { address: 'jordan.lee@fabrikam.example' } }] } }, status: 202 },
    { method: 'POST', path: '/me/messages/{message}/reply', body: { comment: 'Thanks!' }, status: 202 },
    { method: 'POST', path: '/me/messages/{message}/forward', body: { comment: 'FYI', toRecipients: [{ emailAddress: { address: 'priya@contoso.example' } }] }, status: 202 },
    { method: 'DELETE', path: '/me/messages/{junk}', status: 204 },
    { method: 'PATCH', path: '/me/messages/{message}', body: { isRead: false }, status: 200, check: (b) => expect(b.isRead).toBe(false) },
    { method: 'GET', path: '/me/messages/{withAttachment}/attachments', status: 200, check: (b) => expect(b.value[0]).toMatchObject({ '@odata.type': '#microsoft.graph.fileAttachment', name: 'Contract-Q4.pdf', contentBytes: expect.any(String) }) },
    { method: 'GET', path: '/me/messages/{withAttachment}/attachments/{attachment}', status: 200, check: (b) => expect(b).toMatchObject({ id: ids.attachment, contentType: 'application/pdf', size: expect.any(Number) }) },
    { method: 'POST', path: '/me/messages/{toMove}/move', body: { destinationId: 'archive' }, status: 201, check: (b) => expect(b.parentFolderId).toBe(ids.folder) },
    { method: 'POST', path: '/me/messages/{message}/copy', body: { destinationId: 'archive' }, status: 201, check: (b) => expect(b.id).not.toBe(ids.message) },
    { method: 'GET', path: '/me/calendar/events', status: 200, check: (b) => (value(b), expect(b.value[0]).toHaveProperty('start.dateTime')) },
    { method: 'POST', path: '/me/calendar/events', body: { subject: 'Planning', start: { dateTime: `${later(5)}`, timeZone: 'UTC' }, end: { dateTime: `${later(5.05)}`, timeZone: 'UTC' } }, status: 201, check: (b) => expect(b).toMatchObject({ subject: 'Planning', id: expect.any(String) }) },
    { method: 'GET', path: '/me/events/{event}', status: 200, check: (b) => expect(b.subject).toBe('Weekly sync') },
    { method: 'PATCH', path: '/me/events/{event}', body: { location: { displayName: 'Room 12' } }, status: 200, check: (b) => expect(b.location.displayName).toBe('Room 12') },
    { method: 'DELETE', path: '/me/events/{eventToDelete}', status: 204 },
    { method: 'POST', path: '/me/calendar/getSchedule', body: { schedules: ['priya@contoso.example'], startTime: { dateTime: later(0), timeZone: 'UTC' }, endTime: { dateTime: later(1), timeZone: 'UTC' }, availabilityViewInterval: 60 }, status: 200, check: (b) => expect(b.value[0]).toMatchObject({ scheduleId: 'priya@contoso.example', availabilityView: expect.stringMatching(/^[0-4]{24}$/) }) },
    { method: 'GET', path: '/me/contacts', status: 200, check: (b) => expect(b.value[0]).toHaveProperty('emailAddresses') },
    { method: 'GET', path: '/me/contacts/{contact}', status: 200, check: (b) => expect(b.displayName).toBe('Jordan Lee') },
    { method: 'POST', path: '/me/contacts', body: { givenName: 'Kim', surname: 'Ng', emailAddresses: [{ address: 'kim@ng.example' }] }, status: 201, check: (b) => expect(b.displayName).toBe('Kim Ng') },
    { method: 'PATCH', path: '/me/contacts/{contact}', body: { jobTitle: 'Head of Procurement' }, status: 200, check: (b) => expect(b.jobTitle).toBe('Head of Procurement') },
    { method: 'DELETE', path: '/me/contacts/{contactToDelete}', status: 204 },
    { method: 'GET', path: '/me/mailFolders', status: 200, check: (b) => expect(b.value.map((f: any) => f.displayName)).toContain('Inbox') },
    { method: 'GET', path: '/me/mailFolders/{folder}', status: 200, check: (b) => expect(b).toMatchObject({ displayName: 'Archive', totalItemCount: expect.any(Number) }) },
    { method: 'POST', path: '/me/mailFolders', body: { displayName: 'Projects' }, status: 201, check: (b) => expect(b).toMatchObject({ displayName: 'Projects', totalItemCount: 0 }) },
    { method: 'GET', path: '/users/support@contoso.example/messages', status: 200, check: (b) => expect(b.value).toHaveLength(3) },
  ];
  it.each(rows)('$method $path', async ({ method, path, body, status, check }) => {
    const res = await api(method, path.replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent(ids[k]!)), { body });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    if (status === 202 || status === 204) expect(res.raw.length).toBe(0);
    check?.(res.body);
  });
});

describe('query options and paging', () => {
  it('pages the inbox with $top and an absolute @odata.nextLink carrying $skip', async () => {
    const first = await api('GET', '/me/mailFolders/inbox/messages?$top=10');
    expect(first.body.value).toHaveLength(10);
    const next: string = first.body['@odata.nextLink'];
    expect(next.startsWith(`${sandbox.servers.outlook.url}/v1.0/me/mailFolders/inbox/messages?`)).toBe(true);
    expect(next).toContain('$skip=10');
    const second = await api('GET', next);
    const total = state().messages.filter((m) => m.parentFolderId === inboxId()).length;
    expect(total).toBeGreaterThan(10);
    expect(second.body.value).toHaveLength(total - 10);
    expect(second.body['@odata.nextLink']).toBeUndefined();
    const all = [...first.body.value, ...second.body.value];
    expect(new Set(all.map((m: any) => m.id)).size).toBe(total);
    const dates = all.map((m: any) => m.receivedDateTime);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('keeps other query options in the next link', async () => {
    const first = await api('GET', '/me/messages?$top=2&$select=subject&$filter=isRead eq false');
    const second = await api('GET', first.body['@odata.nextLink']);
    expect(Object.keys(second.body.value[0]).sort()).toEqual(['@odata.etag', 'id', 'subject']);
    expect(second.body.value.every((m: any) => state().messages.find((x) => x.id === m.id)!.isRead === false)).toBe(true);
  });

  it('$select returns only the chosen fields plus id and etag, and refuses unknown ones', async () => {
    const res = await api('GET', '/me/messages?$select=subject,from&$top=3');
    for (const m of res.body.value) expect(Object.keys(m).sort()).toEqual(['@odata.etag', 'from', 'id', 'subject']);
    const bad = await api('GET', '/me/messages?$select=nope');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('RequestBroker--ParseUri');
  });

  it('$filter on the sender address and on isRead', async () => {
    const from = await api('GET', `/me/messages?$filter=${encodeURIComponent("from/emailAddress/address eq 'jordan.lee@fabrikam.example'")}`);
    expect(from.body.value.length).toBeGreaterThanOrEqual(2);
    expect(from.body.value.every((m: any) => m.from.emailAddress.address === 'jordan.lee@fabrikam.example')).toBe(true);
    const unread = await api('GET', `/me/mailFolders/inbox/messages?$filter=${encodeURIComponent('isRead eq false')}&$top=50`);
    expect(unread.body.value.length).toBe(state().messages.filter((m) => m.parentFolderId === inboxId() && !m.isRead).length);
    const combined = await api('GET', `/me/messages?$filter=${encodeURIComponent("isRead eq false and categories/any(c:c eq 'Finance')")}`);
    expect(combined.body.value.map((m: any) => m.subject)).toEqual(['Invoice INV-20931 for November']);
    const broken = await api('GET', `/me/messages?$filter=${encodeURIComponent('isRead eq')}`);
    expect(broken.status).toBe(400);
  });

  it('$filter with $orderby must name the ordered property first', async () => {
    const bad = await api('GET', `/me/messages?$filter=${encodeURIComponent('isRead eq false')}&$orderby=receivedDateTime desc`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('InefficientFilter');
    const good = await api('GET', `/me/messages?$filter=${encodeURIComponent('receivedDateTime ge 2000-01-01T00:00:00Z and isRead eq false')}&$orderby=receivedDateTime desc`);
    expect(good.status).toBe(200);
  });

  it('$search takes a quoted "field:text" or plain text', async () => {
    const subject = await api('GET', `/me/messages?$search=${encodeURIComponent('"subject:invoice"')}`);
    expect(subject.body.value.map((m: any) => m.subject)).toEqual(['Invoice INV-20931 for November']);
    const from = await api('GET', `/me/messages?$search=${encodeURIComponent('"from:jordan"')}&$top=50`);
    expect(from.body.value.length).toBeGreaterThanOrEqual(2);
    expect(from.body.value.every((m: any) => /jordan/i.test(JSON.stringify(m.from)))).toBe(true);
    const plain = await api('GET', `/me/messages?$search=${encodeURIComponent('"lisbon"')}`);
    expect(plain.body.value.length).toBeGreaterThanOrEqual(2);
    const unquoted = await api('GET', '/me/messages?$search=lisbon');
    expect(unquoted.status).toBe(400);
  });

  it('refuses $search with $orderby (SearchWithOrderBy)', async () => {
    const res = await api('GET', `/me/messages?$search=${encodeURIComponent('"invoice"')}&$orderby=receivedDateTime desc`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'SearchWithOrderBy', message: "The query parameter '$orderBy' is not supported with '$search'." });
  });

  it('$orderby receivedDateTime asc and desc', async () => {
    const asc = await api('GET', '/me/messages?$orderby=receivedDateTime asc&$top=100');
    const dates = asc.body.value.map((m: any) => m.receivedDateTime);
    expect(dates).toEqual([...dates].sort());
    const desc = await api('GET', '/me/messages?$orderby=receivedDateTime desc&$top=100');
    expect(desc.body.value.map((m: any) => m.receivedDateTime)).toEqual([...dates].reverse());
  });

  it('answers ErrorItemNotFound for unknown ids', async () => {
    for (const path of ['/me/messages/AAMkADnope', '/me/events/AAMkAGEnope', '/me/contacts/nope', '/me/mailFolders/nope', '/me/messages/AAMkADnope/attachments']) {
      const res = await api('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('ErrorItemNotFound');
    }
  });

  it('turns HTML bodies into text when asked with Prefer', async () => {
    const id = bySubject('Lunch on Thursday?').id;
    const res = await api('GET', `/me/messages/${id}`, { headers: { prefer: 'outlook.body-content-type="text"' } });
    expect(res.body.body).toEqual({ contentType: 'text', content: 'Ramen place on 5th? 12:30?' });
    expect(res.headers['preference-applied']).toContain('text');
  });
});

describe('writes change the state', () => {
  it('sendMail stores the message in Sent Items, and in the inbox when sent to oneself', async () => {
    const res = await api('POST', '/me/sendMail', {
      body: {
        message: {
          subject: 'Note to self',
          body: { contentType: 'HTML', content: '<p>Buy milk</p>' },
          toRecipients: [{ emailAddress: { address: 'avery@contoso.example' } }],
          attachments: [{ '@odata.type': '#microsoft.graph.fileAttachment', name: 'list.txt', contentType: 'text/plain', contentBytes: Buffer.from('milk').toString('base64') }],
        },
      },
    });
    expect(res.status).toBe(202);
    const sent = await api('GET', `/me/mailFolders/sentitems/messages?$filter=${encodeURIComponent("subject eq 'Note to self'")}`);
    expect(sent.body.value).toHaveLength(1);
    expect(sent.body.value[0]).toMatchObject({ isRead: true, hasAttachments: true, from: { emailAddress: { address: 'avery@contoso.example' } } });
    const inbox = await api('GET', `/me/mailFolders/inbox/messages?$search=${encodeURIComponent('"subject:Note to self"')}`);
    expect(inbox.body.value).toHaveLength(1);
    expect(inbox.body.value[0].isRead).toBe(false);
    const atts = await api('GET', `/me/messages/${inbox.body.value[0].id}/attachments`);
    expect(Buffer.from(atts.body.value[0].contentBytes, 'base64').toString()).toBe('milk');
  });

  it('sendMail without recipients fails like Graph', async () => {
    const res = await api('POST', '/me/sendMail', { body: { message: { subject: 'x', body: { contentType: 'Text', content: 'y' } } } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('ErrorInvalidRecipients');
  });

  it('PATCH replaces categories and isRead; GET shows them; sent messages refuse subject changes', async () => {
    const id = bySubject('Design review notes').id;
    expect((await api('PATCH', `/me/messages/${id}`, { body: { categories: ['Follow up', 'Customers'], isRead: true } })).status).toBe(200);
    const got = await api('GET', `/me/messages/${id}?$select=categories,isRead`);
    expect(got.body).toMatchObject({ categories: ['Follow up', 'Customers'], isRead: true });
    const refused = await api('PATCH', `/me/messages/${id}`, { body: { subject: 'changed' } });
    expect(refused.status).toBe(400);
  });

  it('move gives the message a new id in the destination; the old id is gone', async () => {
    const id = bySubject('Intro call next week').id;
    const moved = await api('POST', `/me/messages/${id}/move`, { body: { destinationId: 'archive' } });
    expect(moved.status).toBe(201);
    expect(moved.body.id).not.toBe(id);
    expect((await api('GET', `/me/messages/${id}`)).status).toBe(404);
    const archive = await api('GET', '/me/mailFolders/archive/messages?$top=50');
    expect(archive.body.value.map((m: any) => m.id)).toContain(moved.body.id);
  });

  it('serves attachment bytes as base64 contentBytes and raw $value', async () => {
    const id = bySubject('Design review notes').id;
    const list = await api('GET', `/me/messages/${id}/attachments`);
    const png = list.body.value[0];
    expect(Buffer.from(png.contentBytes, 'base64').subarray(1, 4).toString()).toBe('PNG');
    const raw = await api('GET', `/me/messages/${id}/attachments/${png.id}/$value`);
    expect(raw.headers['content-type']).toBe('image/png');
    expect(raw.raw.equals(Buffer.from(png.contentBytes, 'base64'))).toBe(true);
  });

  it('creates a child folder and lists it', async () => {
    const created = await api('POST', '/me/mailFolders/inbox/childFolders', { body: { displayName: 'Vendors' } });
    expect(created.status).toBe(201);
    const children = await api('GET', '/me/mailFolders/inbox/childFolders');
    expect(children.body.value.map((f: any) => f.displayName).sort()).toEqual(['Receipts', 'Vendors']);
    const dup = await api('POST', '/me/mailFolders/inbox/childFolders', { body: { displayName: 'vendors' } });
    expect(dup.status).toBe(409);
  });

  it('events: create, update, list in a calendar view, delete', async () => {
    const start = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const created = await api('POST', '/me/events', {
      body: { subject: 'Board prep', start: { dateTime: `${start}T09:00:00`, timeZone: 'Pacific Standard Time' }, end: { dateTime: `${start}T10:00:00`, timeZone: 'Pacific Standard Time' }, attendees: [{ emailAddress: { address: 'priya@contoso.example' }, type: 'required' }] },
    });
    expect(created.status).toBe(201);
    expect(created.body.start.timeZone).toBe('UTC');
    expect(created.body.start.dateTime.slice(11, 13)).toMatch(/^1[67]$/);
    const view = await api('GET', `/me/calendarView?startDateTime=${start}T00:00:00Z&endDateTime=${start}T23:59:59Z`);
    expect(view.body.value.map((e: any) => e.subject)).toEqual(['Board prep']);
    expect((await api('PATCH', `/me/events/${created.body.id}`, { body: { subject: 'Board prep (moved)' } })).body.subject).toBe('Board prep (moved)');
    expect((await api('DELETE', `/me/events/${created.body.id}`)).status).toBe(204);
    expect((await api('GET', `/me/events/${created.body.id}`)).status).toBe(404);
    const noWindow = await api('GET', '/me/calendarView');
    expect(noWindow.status).toBe(400);
  });

  it('getSchedule reports busy blocks of the user and colleagues', async () => {
    const day = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const res = await api('POST', '/me/calendar/getSchedule', {
      body: { schedules: ['avery@contoso.example', 'priya@contoso.example', 'nobody@contoso.example'], startTime: { dateTime: `${day}T00:00:00`, timeZone: 'UTC' }, endTime: { dateTime: `${day}T23:59:59`, timeZone: 'UTC' }, availabilityViewInterval: 30 },
    });
    const [me, priya, nobody] = res.body.value;
    expect(me.availabilityView[20]).toBe('2'); // Weekly sync 10:00-10:30
    expect(priya.scheduleItems.map((i: any) => i.subject)).toContain('Design review');
    expect(nobody.error.responseCode).toBe('ErrorMailRecipientNotFound');
  });

  it('finds contacts by email address with any()', async () => {
    const res = await api('GET', `/me/contacts?$filter=${encodeURIComponent("emailAddresses/any(a:a/address eq 'sam.rivera@acme.example')")}`);
    expect(res.body.value.map((c: any) => c.displayName)).toEqual(['Sam Rivera']);
  });

  it('lists and creates master categories', async () => {
    const created = await api('POST', '/me/outlook/masterCategories', { body: { displayName: 'Urgent', color: 'preset2' } });
    expect(created.status).toBe(201);
    const list = await api('GET', '/me/outlook/masterCategories');
    expect(list.body.value.map((c: any) => c.displayName)).toContain('Urgent');
  });

  it('shared mailboxes need delegated access; unknown users are invalid', async () => {
    expect((await api('GET', '/users/ceo@contoso.example/messages')).body.error.code).toBe('ErrorAccessDenied');
    expect((await api('GET', '/users/ghost@contoso.example/messages')).status).toBe(404);
    expect((await api('GET', '/users/avery@contoso.example/messages?$top=1')).body.value).toHaveLength(1);
  });

  it('deliverEmail drops a new email into the inbox', async () => {
    const m = deliverEmail(state(), { from: { name: 'New Lead', address: 'lead@prospect.example' }, subject: 'Interested in a demo', text: 'Hi!' });
    const res = await api('GET', '/me/mailFolders/inbox/messages?$top=1');
    expect(res.body.value[0].id).toBe(m.id);
  });
});
