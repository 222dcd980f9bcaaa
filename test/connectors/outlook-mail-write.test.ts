import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';

// Outlook mail tools that write: add_label, remove_label, move_email, send_email (own and shared mailboxes).

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.sandbox.servers.outlook.reset());

const graph = () => h.sandbox.servers.outlook;
const requests = () => graph().requests;
const sent = (method: string) => requests().filter((r) => r.method === method);
const state = () => h.sandbox.states.outlook;
const support = () => state().mailboxes.find((b) => b.mail === 'support@contoso.example')!;
const message = (subject: string, box = state().messages) => box.find((m) => m.subject === subject)!;
const SUPPORT = '/v1.0/users/support%40contoso.example';

describe('outlook_add_label', () => {
  it("adds a category with the master list's spelling, keeping the others", async () => {
    const m = message('Design review notes');
    expect(m.categories).toEqual([]);
    const r = await h.ok('outlook_add_label', { id: m.id, label: 'follow UP' });
    expect(requests().map((x) => `${x.method} ${x.path}`)).toEqual([
      `GET /v1.0/me/messages/${m.id}`,
      'GET /v1.0/me/outlook/masterCategories',
      `PATCH /v1.0/me/messages/${m.id}`,
    ]);
    expect(requests()[0]!.query.get('$select')).toBe('categories');
    expect(requests()[2]!.body).toEqual({ categories: ['Follow up'] });
    expect(r).toEqual({ id: m.id, categories: ['Follow up'], changed: true });
    expect(m.categories).toEqual(['Follow up']);

    const second = await h.ok('outlook_add_label', { id: m.id, label: 'Finance' });
    expect(sent('PATCH').at(-1)!.body).toEqual({ categories: ['Follow up', 'Finance'] });
    expect(second.categories).toEqual(['Follow up', 'Finance']);
  });

  it('is a no-op when the message already has the label (any case): changed false, no PATCH', async () => {
    const m = message('Pricing questions');
    const before = [...m.categories];
    const r = await h.ok('outlook_add_label', { id: m.id, label: 'customers' });
    expect(r).toEqual({ id: m.id, categories: before, changed: false });
    expect(sent('PATCH')).toHaveLength(0);
    expect(requests()).toHaveLength(1);
  });

  it('refuses a label the mailbox does not have, listing the valid ones, and changes nothing', async () => {
    const m = message('Benefits enrollment closes Friday');
    const text = await h.fails('outlook_add_label', { id: m.id, label: 'Urgent' });
    expect(text).toMatch(/"label": "Urgent" is not one of this mailbox's categories \("Customers", "Follow up", "Finance", "Personal", "Travel"\)/);
    expect(text).toMatch(/create_if_missing: true/);
    expect(sent('PATCH')).toHaveLength(0);
    expect(sent('POST')).toHaveLength(0);
    expect(m.categories).toEqual([]);
  });

  it('creates a missing category first with create_if_missing, in the color asked for', async () => {
    const m = message('Benefits enrollment closes Friday');
    const r = await h.ok('outlook_add_label', { id: m.id, label: 'Urgent', create_if_missing: true, color: 'preset9' });
    const post = sent('POST')[0]!;
    expect(post.path).toBe('/v1.0/me/outlook/masterCategories');
    expect(post.body).toEqual({ displayName: 'Urgent', color: 'preset9' });
    expect(sent('PATCH')[0]!.body).toEqual({ categories: ['Urgent'] });
    expect(r.categories).toEqual(['Urgent']);
    const labels = await h.ok('outlook_list_labels', {});
    expect(labels.labels.find((l: any) => l.displayName === 'Urgent')).toMatchObject({ color: 'preset9' });
  });

  it('creates with preset0 when no color is given', async () => {
    const m = message('Benefits enrollment closes Friday');
    await h.ok('outlook_add_label', { id: m.id, label: 'Board', create_if_missing: true });
    expect(sent('POST')[0]!.body).toEqual({ displayName: 'Board', color: 'preset0' });
  });

  it('refuses a bad color by name before sending anything', async () => {
    const text = await h.fails('outlook_add_label', { id: message('Lunch on Thursday?').id, label: 'Nope', create_if_missing: true, color: 'red' });
    expect(text).toMatch(/"color" must be none or preset0 to preset24/);
    expect(requests()).toHaveLength(0);
  });

  it('returns ErrorItemNotFound for an unknown message, and patches nothing', async () => {
    const text = await h.fails('outlook_add_label', { id: 'AAMkADnosuchmessage', label: 'Finance' });
    expect(text).toMatch(/Microsoft Graph answered 404 to GET \/v1.0\/me\/messages\/AAMkADnosuchmessage \(ErrorItemNotFound/);
    expect(sent('PATCH')).toHaveLength(0);
  });

  it("uses a shared mailbox's own categories", async () => {
    const m = message('Cannot export report', support().messages);
    const r = await h.ok('outlook_add_label', { id: m.id, label: 'escalated', mailbox: 'support@contoso.example' });
    expect(requests().map((x) => x.path)).toEqual([`${SUPPORT}/messages/${m.id}`, `${SUPPORT}/outlook/masterCategories`, `${SUPPORT}/messages/${m.id}`]);
    expect(r.categories).toEqual(['Escalated']);
    expect(m.categories).toEqual(['Escalated']);
  });
});

describe('outlook_remove_label', () => {
  it('removes a category (any case), PATCHing the rest of the list back', async () => {
    const m = message('Pricing questions');
    expect(m.categories).toEqual(['Customers', 'Follow up']);
    const r = await h.ok('outlook_remove_label', { id: m.id, label: 'CUSTOMERS' });
    expect(requests().map((x) => `${x.method} ${x.path}`)).toEqual([`GET /v1.0/me/messages/${m.id}`, `PATCH /v1.0/me/messages/${m.id}`]);
    expect(sent('PATCH')[0]!.body).toEqual({ categories: ['Follow up'] });
    expect(r).toEqual({ id: m.id, categories: ['Follow up'], changed: true });
    expect(m.categories).toEqual(['Follow up']);
  });

  it('is a no-op when the label is not there: changed false, no PATCH', async () => {
    const m = message('Pricing questions');
    const r = await h.ok('outlook_remove_label', { id: m.id, label: 'Travel' });
    expect(r).toEqual({ id: m.id, categories: m.categories, changed: false });
    expect(sent('PATCH')).toHaveLength(0);
  });

  it('returns ErrorItemNotFound for an unknown message', async () => {
    const text = await h.fails('outlook_remove_label', { id: 'AAMkADnosuchmessage', label: 'Finance' });
    expect(text).toMatch(/404 .*ErrorItemNotFound/);
    expect(sent('PATCH')).toHaveLength(0);
  });
});

describe('outlook_move_email', () => {
  it('moves by well-known name and returns the new id; the old id is gone', async () => {
    const m = message('Lunch on Thursday?');
    const oldId = m.id;
    const r = await h.ok('outlook_move_email', { id: oldId, destination: 'Archive' });
    expect(requests()).toHaveLength(1);
    expect(requests()[0]!.method).toBe('POST');
    expect(requests()[0]!.path).toBe(`/v1.0/me/messages/${oldId}/move`);
    expect(requests()[0]!.body).toEqual({ destinationId: 'archive' });
    expect(r.previous_id).toBe(oldId);
    expect(r.id).not.toBe(oldId);
    expect(r.folder_id).toBe(state().wellKnownFolders.archive);
    expect(state().messages.some((x) => x.id === oldId)).toBe(false);
    expect(state().messages.find((x) => x.id === r.id)!.parentFolderId).toBe(state().wellKnownFolders.archive);
    const again = await h.fails('outlook_move_email', { id: oldId, destination: 'inbox' });
    expect(again).toMatch(/404 .*ErrorItemNotFound/);
  });

  it('resolves a display name by walking the folders, then moves', async () => {
    const m = message('Invoice INV-20931 for November');
    const receipts = state().folders.find((f) => f.displayName === 'Receipts')!;
    const r = await h.ok('outlook_move_email', { id: m.id, destination: 'receipts' });
    const post = sent('POST')[0]!;
    expect(post.body).toEqual({ destinationId: receipts.id });
    expect(sent('GET').map((x) => x.path)).toEqual(['/v1.0/me/mailFolders', `/v1.0/me/mailFolders/${state().wellKnownFolders.inbox}/childFolders`]);
    expect(r.folder_id).toBe(receipts.id);
  });

  it('refuses an ambiguous display name, listing the candidates with their ids, and moves nothing', async () => {
    const created = await h.ok('outlook_api_call', { method: 'POST', endpoint: '/me/mailFolders/archive/childFolders', body: { displayName: 'Receipts' } });
    graph().reset();
    const m = message('Team offsite agenda');
    const inboxReceipts = state().folders.find((f) => f.displayName === 'Receipts' && f.parentFolderId === state().wellKnownFolders.inbox)!;
    const text = await h.fails('outlook_move_email', { id: m.id, destination: 'Receipts' });
    expect(text).toContain('"destination": 2 folders are named "Receipts"');
    expect(text).toContain(`"Inbox/Receipts" (id ${inboxReceipts.id})`);
    expect(text).toContain(`"Archive/Receipts" (id ${created.body.id})`);
    expect(sent('POST')).toHaveLength(0);
    expect(message('Team offsite agenda').id).toBe(m.id);
  });

  it('refuses an unknown folder name listing the top-level folders', async () => {
    const text = await h.fails('outlook_move_email', { id: message('Team offsite agenda').id, destination: 'Projects 2024' });
    expect(text).toMatch(/"destination": no folder is named "Projects 2024"\. Top-level folders: "Inbox", "Drafts", "Sent Items", "Deleted Items", "Junk Email", "Archive", "Outbox"/);
    expect(sent('POST')).toHaveLength(0);
  });

  it('moves within a shared mailbox, resolving names among its own folders', async () => {
    const box = support();
    const m = message('Status page link', box.messages);
    const r = await h.ok('outlook_move_email', { id: m.id, destination: 'Receipts', mailbox: 'support@contoso.example' });
    const receipts = box.folders.find((f) => f.displayName === 'Receipts')!;
    expect(sent('POST')[0]!.path).toBe(`${SUPPORT}/messages/${m.id}/move`);
    expect(sent('POST')[0]!.body).toEqual({ destinationId: receipts.id });
    expect(r.folder_id).toBe(receipts.id);
    expect(box.messages.find((x) => x.id === r.id)!.parentFolderId).toBe(receipts.id);
    expect(state().messages.some((x) => x.id === r.id)).toBe(false);
  });
});

describe('outlook_send_email', () => {
  const tiny = Buffer.from('hello, attachment').toString('base64');

  it('sends the message Graph expects, answers accepted (not delivered), and files a copy in Sent Items', async () => {
    const r = await h.ok('outlook_send_email', {
      to: ['jordan.lee@fabrikam.example', 'Priya Patel <priya@contoso.example>'],
      cc: ['Sam Rivera <sam.rivera@acme.example>'],
      bcc: ['morgan.chen@contoso.example'],
      reply_to: ['sales@contoso.example'],
      subject: 'Volume pricing',
      body: '<p>Pricing attached.</p>',
      body_type: 'html',
      attachments: [{ name: 'pricing.txt', content_base64: tiny, content_type: 'text/plain' }],
    });
    expect(r).toEqual({ status: 'accepted', note: 'Graph accepted the message for delivery; it does not confirm delivery.' });
    expect(requests()).toHaveLength(1);
    expect(requests()[0]!.method).toBe('POST');
    expect(requests()[0]!.path).toBe('/v1.0/me/sendMail');
    expect(requests()[0]!.body).toEqual({
      message: {
        subject: 'Volume pricing',
        body: { contentType: 'HTML', content: '<p>Pricing attached.</p>' },
        toRecipients: [{ emailAddress: { address: 'jordan.lee@fabrikam.example' } }, { emailAddress: { name: 'Priya Patel', address: 'priya@contoso.example' } }],
        ccRecipients: [{ emailAddress: { name: 'Sam Rivera', address: 'sam.rivera@acme.example' } }],
        bccRecipients: [{ emailAddress: { address: 'morgan.chen@contoso.example' } }],
        replyTo: [{ emailAddress: { address: 'sales@contoso.example' } }],
        attachments: [{ '@odata.type': '#microsoft.graph.fileAttachment', name: 'pricing.txt', contentType: 'text/plain', contentBytes: tiny }],
      },
      saveToSentItems: true,
    });
    const copy = await h.ok('outlook_find_email', { folder: 'sentitems', search: 'subject:"Volume pricing"', include_attachments: true });
    expect(copy.messages).toHaveLength(1);
    expect(copy.messages[0]).toMatchObject({ from: { address: 'avery@contoso.example' }, hasAttachments: true, attachments: [{ name: 'pricing.txt', size: 17 }] });
  });

  it('sends text by default and keeps no copy when save_to_sent_items is false', async () => {
    const before = state().messages.length;
    await h.ok('outlook_send_email', { to: ['jordan.lee@fabrikam.example'], subject: 'No copy', body: 'plain', save_to_sent_items: false });
    expect(requests()[0]!.body).toEqual({
      message: { subject: 'No copy', body: { contentType: 'Text', content: 'plain' }, toRecipients: [{ emailAddress: { address: 'jordan.lee@fabrikam.example' } }] },
      saveToSentItems: false,
    });
    expect(state().messages.length).toBe(before);
  });

  it('refuses a bad address naming the field and index, and sends nothing', async () => {
    const text = await h.fails('outlook_send_email', { to: ['jordan.lee@fabrikam.example'], cc: ['priya@contoso.example', 'bob'], subject: 's', body: 'b' });
    expect(text).toMatch(/"cc\[1\]": "bob" is not an email address/);
    const obj = await h.fails('outlook_send_email', { to: ['X <x@>'], subject: 's', body: 'b' });
    expect(obj).toMatch(/"to\[0\]": "x@" is not an email address/);
    expect(requests()).toHaveLength(0);
  });

  it('refuses a message with no recipient', async () => {
    expect(await h.fails('outlook_send_email', { subject: 's', body: 'b' })).toMatch(/"to": give at least one recipient in to, cc or bcc/);
    expect(requests()).toHaveLength(0);
  });

  it('refuses content that is not base64, naming the attachment', async () => {
    const text = await h.fails('outlook_send_email', { to: ['jordan.lee@fabrikam.example'], subject: 's', body: 'b', attachments: [{ name: 'a.txt', content_base64: tiny }, { name: 'b.txt', content_base64: 'not base64!' }] });
    expect(text).toMatch(/"attachments\[1\]\.content_base64" is not valid base64/);
    expect(requests()).toHaveLength(0);
  });

  it('refuses attachments over 3 MB in all, pointing at an upload session', async () => {
    const big = Buffer.alloc(1.6 * 1024 * 1024, 7).toString('base64');
    const text = await h.fails('outlook_send_email', { to: ['jordan.lee@fabrikam.example'], subject: 's', body: 'b', attachments: [{ name: 'a.bin', content_base64: big }, { name: 'b.bin', content_base64: big }] });
    expect(text).toMatch(/"attachments": 3\.2 MB in all once decoded, over the 3 MB Graph takes inline in sendMail\. Nothing was sent\./);
    expect(text).toMatch(/upload session: with outlook_api_call, POST \/me\/messages .*createUploadSession/);
    expect(requests()).toHaveLength(0);
    const fits = Buffer.alloc(1.4 * 1024 * 1024, 7).toString('base64');
    await h.ok('outlook_send_email', { to: ['jordan.lee@fabrikam.example'], subject: 'Two files', body: 'b', attachments: [{ name: 'a.bin', content_base64: fits }, { name: 'b.bin', content_base64: fits }] });
    expect(requests()).toHaveLength(1);
  });

  it("passes Graph's ErrorInvalidRecipients through and never sends the POST twice", async () => {
    graph().once('POST /v1.0/me/sendMail', {
      status: 400,
      body: { error: { code: 'ErrorInvalidRecipients', message: "At least one recipient is not valid., Recipient 'nobody@nowhere.example' is not resolved." } },
    });
    const text = await h.fails('outlook_send_email', { to: ['nobody@nowhere.example'], subject: 's', body: 'b' });
    expect(text).toMatch(/Microsoft Graph answered 400 to POST \/v1.0\/me\/sendMail \(ErrorInvalidRecipients: At least one recipient is not valid/);
    expect(requests()).toHaveLength(1);
  });

  it('sends from a delegated shared mailbox into its own Sent Items', async () => {
    const box = support();
    const before = box.messages.length;
    await h.ok('outlook_send_email', { to: ['sam.rivera@acme.example'], subject: 'Re: Cannot export report', body: 'Fixed in 4.2.', mailbox: 'support@contoso.example' });
    expect(requests()[0]!.path).toBe(`${SUPPORT}/sendMail`);
    expect(box.messages.length).toBe(before + 1);
    const copy = box.messages.at(-1)!;
    expect(copy).toMatchObject({ subject: 'Re: Cannot export report', parentFolderId: box.wellKnownFolders.sentitems, from: { emailAddress: { address: 'support@contoso.example' } } });
    expect(state().messages.some((m) => m.subject === 'Re: Cannot export report')).toBe(false);
  });

  it('refuses a shared mailbox without delegated access, with what to do', async () => {
    const text = await h.fails('outlook_send_email', { to: ['sam.rivera@acme.example'], subject: 'x', body: 'y', mailbox: 'ceo@contoso.example' });
    expect(text).toMatch(/Graph refused access to the mailbox "ceo@contoso.example" \(403 ErrorAccessDenied\): the signed-in user needs delegated access/);
    expect(requests().map((r) => r.path)).toEqual(['/v1.0/users/ceo%40contoso.example/sendMail']);
  });
});
