import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_TOKENS, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { client } from './http.js';

// The Graph sandbox's mail extensions: $expand on lists, every mail path under /users/{id}/..., hidden folders.

let sandbox: Sandbox;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  sandbox = await startSandbox();
  api = client(sandbox.baseUrls.outlook, { authorization: `Bearer ${SANDBOX_TOKENS.outlook}` });
});
afterAll(() => sandbox.close());

const state = () => sandbox.states.outlook;
const support = () => state().mailboxes.find((b) => b.mail === 'support@contoso.example')!;
const enc = encodeURIComponent;

describe('$expand=attachments', () => {
  it('adds each message its attachments on a list, with a nested $select, whatever $select says', async () => {
    const res = await api('GET', `/me/mailFolders/inbox/messages?$select=subject&$top=1&$expand=${enc('attachments($select=id,name,size)')}`);
    expect(res.status).toBe(200);
    const [m] = res.body.value;
    expect(Object.keys(m).sort()).toEqual(['@odata.etag', 'attachments', 'id', 'subject']);
    expect(m.attachments).toEqual([{ '@odata.type': '#microsoft.graph.fileAttachment', id: expect.any(String), name: 'Contract-Q4.pdf', size: expect.any(Number) }]);
  });

  it('keeps $expand in the next link, and expands a single message too', async () => {
    const first = await api('GET', `/me/messages?$top=2&$expand=attachments`);
    expect(first.body['@odata.nextLink']).toContain('$expand=attachments');
    const id = first.body.value[0].id;
    const one = await api('GET', `/me/messages/${id}?$expand=attachments`);
    expect(one.body.attachments[0]).toHaveProperty('contentBytes');
  });

  it('refuses an unknown navigation property like Graph', async () => {
    const res = await api('GET', '/me/messages?$expand=nothing');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/Could not find a property named 'nothing'/);
  });
});

describe('shared mailboxes under /users/{id}', () => {
  const base = '/users/support@contoso.example';

  it('has its own folders, distinct from the signed-in user’s', async () => {
    const res = await api('GET', `${base}/mailFolders`);
    expect(res.body.value.map((f: any) => f.displayName)).toContain('Inbox');
    expect(res.body.value.find((f: any) => f.displayName === 'Inbox').id).toBe(support().wellKnownFolders.inbox);
    expect(support().wellKnownFolders.inbox).not.toBe(state().wellKnownFolders.inbox);
    const inbox = await api('GET', `${base}/mailFolders/inbox/messages`);
    expect(inbox.body.value).toHaveLength(3);
  });

  it('moves, patches and sends within the shared mailbox', async () => {
    const m = support().messages[0]!;
    const moved = await api('POST', `${base}/messages/${m.id}/move`, { body: { destinationId: 'archive' } });
    expect(moved.status).toBe(201);
    expect(moved.body.parentFolderId).toBe(support().wellKnownFolders.archive);
    const patched = await api('PATCH', `${base}/messages/${moved.body.id}`, { body: { categories: ['Escalated'] } });
    expect(patched.body.categories).toEqual(['Escalated']);
    const sent = await api('POST', `${base}/sendMail`, { body: { message: { subject: 'From support', body: { contentType: 'Text', content: 'hi' }, toRecipients: [{ emailAddress: { address: 'sam.rivera@acme.example' } }] } } });
    expect(sent.status).toBe(202);
    expect(support().messages.at(-1)).toMatchObject({ subject: 'From support', parentFolderId: support().wellKnownFolders.sentitems });
  });

  it('lists and creates its master categories; a duplicate is a conflict', async () => {
    const list = await api('GET', `${base}/outlook/masterCategories`);
    expect(list.body.value.map((c: any) => c.displayName)).toEqual(['Escalated', 'Waiting on customer']);
    const created = await api('POST', `${base}/outlook/masterCategories`, { body: { displayName: 'VIP', color: 'preset2' } });
    expect(created.status).toBe(201);
    const dup = await api('POST', `${base}/outlook/masterCategories`, { body: { displayName: 'vip' } });
    expect(dup.status).toBe(409);
    expect(state().categories.map((c) => c.displayName)).not.toContain('VIP');
  });

  it('answers ErrorAccessDenied on every path of a mailbox without delegated access', async () => {
    for (const [method, path] of [
      ['GET', '/mailFolders'],
      ['GET', '/outlook/masterCategories'],
      ['POST', '/sendMail'],
      ['POST', '/messages/x/move'],
    ] as const) {
      const res = await api(method, `/users/ceo@contoso.example${path}`, { body: method === 'POST' ? {} : undefined });
      expect(res.status, path).toBe(403);
      expect(res.body.error.code).toBe('ErrorAccessDenied');
    }
  });
});

describe('hidden folders', () => {
  it('leaves hidden child folders out unless includeHiddenFolders=true', async () => {
    state().folders.push({ id: 'AQMkADhiddenchild0000001', displayName: 'Hidden child', parentFolderId: state().wellKnownFolders.inbox!, isHidden: true });
    const plain = await api('GET', '/me/mailFolders/inbox/childFolders');
    expect(plain.body.value.map((f: any) => f.displayName)).toEqual(['Receipts']);
    const all = await api('GET', '/me/mailFolders/inbox/childFolders?includeHiddenFolders=true');
    expect(all.body.value.map((f: any) => f.displayName)).toEqual(['Receipts', 'Hidden child']);
  });
});
