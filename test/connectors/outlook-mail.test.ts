import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_TOKENS } from '../../src/sandbox/index.js';
import { startHarness, type Harness } from '../harness.js';

// Outlook mail tools that read: find_email, list_folders, list_labels; shared mailboxes and permission groups.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.store.accounts.add({ provider: 'outlook', label: 'cal-only', groups: ['calendar'], secret: { kind: 'token', token: SANDBOX_TOKENS.outlook } });
});
afterAll(() => h.close());
beforeEach(() => h.sandbox.servers.outlook.reset());

const graph = () => h.sandbox.servers.outlook;
const requests = () => graph().requests;
const last = () => requests().at(-1)!;
const state = () => h.sandbox.states.outlook;
const q = (name: string, i = -1) => requests().at(i)!.query.get(name);
const SELECT = 'id,subject,from,receivedDateTime,isRead,hasAttachments,categories,bodyPreview,webLink';
const KEYS = ['id', 'subject', 'from', 'receivedDateTime', 'isRead', 'hasAttachments', 'categories', 'bodyPreview', 'webLink'];

describe('outlook_find_email', () => {
  it('lists all mail newest first with compact fields, and pages through every message with the cursor', async () => {
    const first = await h.ok('outlook_find_email', {});
    expect(last().method).toBe('GET');
    expect(last().path).toBe('/v1.0/me/messages');
    expect(q('$select')).toBe(SELECT);
    expect(q('$top')).toBe('10');
    expect(q('$search')).toBeNull();
    expect(first.messages).toHaveLength(10);
    for (const m of first.messages) expect(Object.keys(m).sort()).toEqual([...KEYS].sort());
    expect(first.messages[0]).toMatchObject({ subject: 'Q4 contract renewal', from: { name: 'Jordan Lee', address: 'jordan.lee@fabrikam.example' }, isRead: false, hasAttachments: true, categories: ['Customers'] });
    expect(first.next_cursor).toEqual(expect.any(String));

    const seen = [...first.messages];
    let cursor: string | null = first.next_cursor;
    let pages = 1;
    while (cursor) {
      const page = await h.ok('outlook_find_email', { cursor });
      expect(last().query.get('$skip')).toBe(String(pages * 10));
      expect(last().query.get('$select')).toBe(SELECT);
      seen.push(...page.messages);
      cursor = page.next_cursor;
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
    expect(new Set(seen.map((m) => m.id)).size).toBe(state().messages.length);
    const dates = seen.map((m) => m.receivedDateTime);
    expect(dates).toEqual([...dates].sort().reverse());
  });

  it('refuses a cursor from elsewhere by name, and sends nothing', async () => {
    expect(await h.fails('outlook_find_email', { cursor: 'not-a-cursor' })).toMatch(/"cursor" is not a next_cursor/);
    expect(requests()).toHaveLength(0);
  });

  it('sends search as a quoted KQL $search', async () => {
    const r = await h.ok('outlook_find_email', { search: 'from:billing subject:invoice', limit: 5 });
    expect(q('$search')).toBe('"from:billing subject:invoice"');
    expect(q('$top')).toBe('5');
    expect(r.messages.map((m: any) => m.subject)).toEqual(['Invoice INV-20931 for November']);
    expect(r.note).toBeUndefined();
  });

  it('quotes a phrase inside search with escaped double quotes', async () => {
    const r = await h.ok('outlook_find_email', { search: 'subject:"weekly digest"' });
    expect(q('$search')).toBe('"subject:\\"weekly digest\\""');
    expect(r.messages.map((m: any) => m.subject).sort()).toEqual(['Contoso weekly digest', 'Contoso weekly digest (last week)']);
  });

  it('drops orderby and filter given with search, says so, and Graph accepts the request', async () => {
    const r = await h.ok('outlook_find_email', { search: 'invoice', orderby: 'receivedDateTime asc', filter: 'isRead eq false' });
    expect(requests()).toHaveLength(1);
    expect(q('$search')).toBe('"invoice"');
    expect(q('$orderby')).toBeNull();
    expect(q('$filter')).toBeNull();
    expect(r.note).toMatch(/filter and orderby were not sent: Graph does not allow them with search/);
    expect(r.messages.length).toBeGreaterThan(0);

    const only = await h.ok('outlook_find_email', { search: 'invoice', orderby: 'receivedDateTime asc' });
    expect(only.note).toMatch(/^orderby was not sent: Graph does not allow it with search/);
  });

  it('puts the orderby date property at the head of the filter, as Graph requires', async () => {
    const r = await h.ok('outlook_find_email', { filter: 'isRead eq false', orderby: 'receivedDateTime asc', limit: 50 });
    expect(q('$filter')).toBe('receivedDateTime ge 1900-01-01T00:00:00Z and (isRead eq false)');
    expect(q('$orderby')).toBe('receivedDateTime asc');
    expect(r.note).toMatch(/Graph needs each orderby property to lead the filter/);
    expect(r.messages.length).toBe(state().messages.filter((m) => !m.isRead).length);
    expect(r.messages.every((m: any) => m.isRead === false)).toBe(true);
    const dates = r.messages.map((m: any) => m.receivedDateTime);
    expect(dates).toEqual([...dates].sort());
  });

  it('sends filter and orderby unchanged when the filter already leads with the property', async () => {
    const filter = "receivedDateTime ge 2000-01-01T00:00:00Z and from/emailAddress/address eq 'jordan.lee@fabrikam.example'";
    const r = await h.ok('outlook_find_email', { filter, orderby: 'receivedDateTime desc' });
    expect(q('$filter')).toBe(filter);
    expect(r.note).toBeUndefined();
    expect(r.messages.length).toBeGreaterThanOrEqual(2);
    expect(r.messages.every((m: any) => m.from.address === 'jordan.lee@fabrikam.example')).toBe(true);
  });

  it('drops an orderby on a non-date property that the filter does not lead with, and says how to sort', async () => {
    const r = await h.ok('outlook_find_email', { filter: 'isRead eq false', orderby: 'subject asc' });
    expect(q('$filter')).toBe('isRead eq false');
    expect(q('$orderby')).toBeNull();
    expect(r.note).toMatch(/orderby was not sent: .*InefficientFilter.*start the filter with subject/);
  });

  it('refuses a malformed orderby naming the field, and sends nothing', async () => {
    const text = await h.fails('outlook_find_email', { orderby: 'receivedDateTime sideways' });
    expect(text).toMatch(/"orderby" must be property names/);
    expect(requests()).toHaveLength(0);
  });

  it('passes a Graph error through with its code', async () => {
    const text = await h.fails('outlook_find_email', { filter: 'isRead eq' });
    expect(text).toMatch(/Microsoft Graph answered 400 to GET \/v1.0\/me\/messages \(BadRequest: Invalid filter clause/);
  });

  it('searches one folder by well-known name, and by display name after a bounded folder walk', async () => {
    const inbox = await h.ok('outlook_find_email', { folder: 'Inbox', limit: 50 });
    expect(last().path).toBe('/v1.0/me/mailFolders/inbox/messages');
    expect(inbox.messages).toHaveLength(14);

    graph().reset();
    const receipts = await h.ok('outlook_find_email', { folder: 'receipts' });
    const folderId = state().folders.find((f) => f.displayName === 'Receipts')!.id;
    expect(requests().map((r) => r.path)).toEqual([
      '/v1.0/me/mailFolders',
      `/v1.0/me/mailFolders/${state().wellKnownFolders.inbox}/childFolders`,
      `/v1.0/me/mailFolders/${folderId}/messages`,
    ]);
    expect(requests()[0]!.query.get('$select')).toBe('id,displayName,childFolderCount');
    expect(receipts.messages.map((m: any) => m.subject)).toEqual(['Receipt: Lisbon hotel deposit', 'Receipt: payment for INV-20588']);
  });

  it('resolves a long display name without spaces by name, not as an id', async () => {
    const id = 'AQMkADlongnamefolder0001';
    state().folders.push({ id, displayName: 'CustomerEscalations2024', parentFolderId: state().wellKnownFolders.msgfolderroot!, isHidden: false });
    try {
      await h.ok('outlook_find_email', { folder: 'CustomerEscalations2024' });
      expect(last().path).toBe(`/v1.0/me/mailFolders/${id}/messages`);
    } finally {
      state().folders.pop();
    }
  });

  it('refuses an unknown folder name listing the top-level folders', async () => {
    const text = await h.fails('outlook_find_email', { folder: 'Nowhere' });
    expect(text).toMatch(/"folder": no folder is named "Nowhere"/);
    expect(text).toContain('"Inbox", "Drafts", "Sent Items"');
    expect(requests().every((r) => r.path.endsWith('/mailFolders') || r.path.endsWith('/childFolders'))).toBe(true);
  });

  it('adds text bodies with the Prefer header, and keeps them text on the next page', async () => {
    const r = await h.ok('outlook_find_email', { folder: 'inbox', include_body: 'text', limit: 3 });
    expect(q('$select')).toBe(`${SELECT},body`);
    expect(last().headers.prefer).toBe('outlook.body-content-type="text"');
    expect(r.messages[0].body).toBe('Hi Avery, Attached is the redlined Q4 renewal. Can we close this by Friday? Jordan');
    const next = await h.ok('outlook_find_email', { cursor: r.next_cursor });
    expect(last().headers.prefer).toBe('outlook.body-content-type="text"');
    expect(next.messages[0].body).not.toMatch(/<p>/);
    expect(next.messages[0].body.length).toBeGreaterThan(0);
  });

  it('adds HTML bodies without the Prefer header', async () => {
    const r = await h.ok('outlook_find_email', { folder: 'inbox', include_body: 'html', limit: 1 });
    expect(last().headers.prefer).toBeUndefined();
    expect(r.messages[0].body).toMatch(/^<html><body><p>Hi Avery,<\/p>/);
  });

  it('lists attachments with $expand, without their content', async () => {
    const r = await h.ok('outlook_find_email', { search: 'subject:contract', include_attachments: true });
    expect(q('$expand')).toBe('attachments($select=id,name,contentType,size)');
    const [m] = r.messages;
    expect(m.attachments).toEqual([{ id: expect.any(String), name: 'Contract-Q4.pdf', contentType: 'application/pdf', size: expect.any(Number) }]);
    expect(m.attachments[0].id).toBe(state().attachments[m.id]![0]!.id);
    expect(m.attachments[0].size).toBeGreaterThan(50);
  });

  it('gives the ids the outlook_api_call recipe needs to download an attachment as base64', async () => {
    const r = await h.ok('outlook_find_email', { search: 'subject:contract', include_attachments: true });
    const [m] = r.messages;
    const got = await h.ok('outlook_api_call', { method: 'GET', endpoint: `/me/messages/${m.id}/attachments/${m.attachments[0].id}` });
    expect(got.body).toMatchObject({ name: 'Contract-Q4.pdf', contentType: 'application/pdf', size: m.attachments[0].size });
    expect(Buffer.from(got.body.contentBytes, 'base64').subarray(0, 8).toString('latin1')).toBe('%PDF-1.4');
  });

  it('waits out a 429 with a fractional Retry-After', async () => {
    graph().once('GET /v1.0/me/messages', { status: 429, headers: { 'retry-after': '0.05' }, body: { error: { code: 'TooManyRequests', message: 'Please retry again later.' } } });
    const r = await h.ok('outlook_find_email', { limit: 1 });
    expect(r.messages).toHaveLength(1);
    expect(requests()).toHaveLength(2);
  });
});

describe('outlook_list_folders', () => {
  it('pages through the top-level folders with the cursor', async () => {
    const names: string[] = [];
    let r = await h.ok('outlook_list_folders', { limit: 3 });
    expect(last().path).toBe('/v1.0/me/mailFolders');
    expect(q('$top')).toBe('3');
    expect(q('$select')).toBe('id,displayName,parentFolderId,childFolderCount,unreadItemCount,totalItemCount');
    expect(q('includeHiddenFolders')).toBeNull();
    const inbox = r.folders.find((f: any) => f.displayName === 'Inbox');
    const inboxMessages = state().messages.filter((m) => m.parentFolderId === state().wellKnownFolders.inbox);
    expect(inbox).toEqual({
      id: state().wellKnownFolders.inbox,
      displayName: 'Inbox',
      parentFolderId: state().wellKnownFolders.msgfolderroot,
      childFolderCount: 1,
      unreadItemCount: inboxMessages.filter((m) => !m.isRead).length,
      totalItemCount: inboxMessages.length,
    });
    names.push(...r.folders.map((f: any) => f.displayName));
    while (r.next_cursor) {
      r = await h.ok('outlook_list_folders', { cursor: r.next_cursor });
      names.push(...r.folders.map((f: any) => f.displayName));
    }
    expect(requests()).toHaveLength(3);
    expect(names).toEqual(['Inbox', 'Drafts', 'Sent Items', 'Deleted Items', 'Junk Email', 'Archive', 'Outbox']);
  });

  it('lists the child folders of a parent', async () => {
    const r = await h.ok('outlook_list_folders', { parent: 'inbox' });
    expect(last().path).toBe('/v1.0/me/mailFolders/inbox/childFolders');
    expect(r.folders.map((f: any) => f.displayName)).toEqual(['Receipts']);
    expect(r.folders[0]).toMatchObject({ parentFolderId: state().wellKnownFolders.inbox, totalItemCount: 2 });
    expect(r.next_cursor).toBeNull();
  });

  it('lists hidden folders only when asked', async () => {
    state().folders.push({ id: 'AQMkADhiddenfolder000001', displayName: 'Sync Issues', parentFolderId: state().wellKnownFolders.msgfolderroot!, isHidden: true });
    try {
      const plain = await h.ok('outlook_list_folders', {});
      expect(plain.folders.map((f: any) => f.displayName)).not.toContain('Sync Issues');
      const all = await h.ok('outlook_list_folders', { include_hidden: true });
      expect(q('includeHiddenFolders')).toBe('true');
      expect(q('$select')).toContain(',isHidden');
      expect(all.folders.find((f: any) => f.displayName === 'Sync Issues')).toMatchObject({ isHidden: true });
      expect(all.folders.find((f: any) => f.displayName === 'Inbox')).toMatchObject({ isHidden: false });
    } finally {
      state().folders.pop();
    }
  });

  it('passes an unknown parent id to Graph and returns its ErrorItemNotFound', async () => {
    const text = await h.fails('outlook_list_folders', { parent: 'AQMkADdoesnotexist0000' });
    expect(text).toMatch(/404 to GET \/v1.0\/me\/mailFolders\/AQMkADdoesnotexist0000\/childFolders \(ErrorItemNotFound/);
    expect(requests()).toHaveLength(1);
  });
});

describe('outlook_list_labels', () => {
  it('lists the master categories with their colors', async () => {
    const r = await h.ok('outlook_list_labels', {});
    expect(last().method).toBe('GET');
    expect(last().path).toBe('/v1.0/me/outlook/masterCategories');
    expect(r.labels.map((l: any) => [l.displayName, l.color])).toEqual(state().categories.map((c) => [c.displayName, c.color]));
    expect(Object.keys(r.labels[0]).sort()).toEqual(['color', 'displayName', 'id']);
  });

  it('needs the mailbox-settings group, and says so before sending anything', async () => {
    await h.store.accounts.add({ provider: 'outlook', label: 'mail-only', groups: ['mail'], secret: { kind: 'token', token: SANDBOX_TOKENS.outlook } });
    const text = await h.fails('outlook_list_labels', { account: 'mail-only' });
    expect(text).toMatch(/was not granted the mailbox-settings permission group/);
    expect(text).toContain('switchboard accounts add outlook --label "mail-only" --groups mail,mailbox-settings');
    expect(requests()).toHaveLength(0);
  });

  it('turns a Graph 403 into what to do', async () => {
    graph().once('GET /v1.0/me/outlook/masterCategories', { status: 403, body: { error: { code: 'ErrorAccessDenied', message: 'Access is denied.' } } });
    const text = await h.fails('outlook_list_labels', {});
    expect(text).toMatch(/Graph refused the request \(403 ErrorAccessDenied: Access is denied.\)\. The mailbox-settings permission group may be missing/);
  });
});

describe('shared mailboxes', () => {
  it('finds mail in a mailbox the user was delegated, under /users/{address}', async () => {
    const r = await h.ok('outlook_find_email', { mailbox: 'support@contoso.example' });
    expect(last().path).toBe('/v1.0/users/support%40contoso.example/messages');
    expect(r.messages.map((m: any) => m.subject)).toEqual(['Cannot export report', 'SSO setup help', 'Status page link']);
  });

  it("lists a shared mailbox's own folders and categories", async () => {
    const folders = await h.ok('outlook_list_folders', { mailbox: 'support@contoso.example', parent: 'inbox' });
    expect(last().path).toBe('/v1.0/users/support%40contoso.example/mailFolders/inbox/childFolders');
    const support = state().mailboxes.find((b) => b.mail === 'support@contoso.example')!;
    expect(folders.folders.map((f: any) => f.id)).toEqual([support.folders.find((f) => f.displayName === 'Receipts')!.id]);
    const labels = await h.ok('outlook_list_labels', { mailbox: 'support@contoso.example' });
    expect(last().path).toBe('/v1.0/users/support%40contoso.example/outlook/masterCategories');
    expect(labels.labels.map((l: any) => l.displayName)).toEqual(['Escalated', 'Waiting on customer']);
  });

  it('refuses a mailbox without delegated access with what to do', async () => {
    for (const tool of ['outlook_find_email', 'outlook_list_folders', 'outlook_list_labels']) {
      const text = await h.fails(tool, { mailbox: 'ceo@contoso.example' });
      expect(text, tool).toMatch(/Graph refused access to the mailbox "ceo@contoso.example" \(403 ErrorAccessDenied\): the signed-in user needs delegated access/);
      expect(text, tool).toMatch(/Omit "mailbox" to use your own/);
    }
  });
});

describe('permission groups', () => {
  it('refuses every mail tool for an account without the mail group, naming it and the reconnect command, and sends nothing', async () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['outlook_find_email', {}],
      ['outlook_list_folders', {}],
      ['outlook_add_label', { id: state().messages[0]!.id, label: 'Customers' }],
      ['outlook_remove_label', { id: state().messages[0]!.id, label: 'Customers' }],
      ['outlook_move_email', { id: state().messages[0]!.id, destination: 'archive' }],
      ['outlook_send_email', { to: ['jordan.lee@fabrikam.example'], subject: 'x', body: 'y' }],
    ];
    for (const [tool, args] of calls) {
      const text = await h.fails(tool, { ...args, account: 'cal-only' });
      expect(text, tool).toMatch(/The Outlook account "cal-only" was not granted the mail permission group/);
      expect(text, tool).toContain('switchboard accounts add outlook --label "cal-only" --groups calendar,mail');
    }
    expect(requests()).toHaveLength(0);
  });
});
