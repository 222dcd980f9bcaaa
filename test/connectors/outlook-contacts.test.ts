import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OUTLOOK_PERSONAL_TOKEN, SANDBOX_TOKENS } from '../../src/sandbox/index.js';
import { buildContact } from '../../src/sandbox/outlook/calendar.js';
import { startHarness, type Harness } from '../harness.js';

// Outlook contact tools: create, find (by email, by name, bounded), list (paged), update; shared mailboxes,
// personal accounts and permission groups.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.store.accounts.add({ provider: 'outlook', label: 'no-contacts', groups: ['mail', 'calendar'], secret: { kind: 'token', token: SANDBOX_TOKENS.outlook } });
  await h.store.accounts.add({ provider: 'outlook', label: 'personal', meta: { tenant: 'consumers' }, groups: ['mail', 'calendar', 'contacts'], secret: { kind: 'token', token: OUTLOOK_PERSONAL_TOKEN } });
});
afterAll(() => h.close());
beforeEach(() => h.sandbox.servers.outlook.reset());

const requests = () => h.sandbox.servers.outlook.requests;
const last = () => requests().at(-1)!;
const state = () => h.sandbox.states.outlook;
const SELECT = 'displayName,givenName,surname,emailAddresses,companyName,jobTitle,mobilePhone,businessPhones';
const KEYS = ['id', 'displayName', 'emailAddresses', 'companyName', 'jobTitle', 'mobilePhone', 'businessPhones'].sort();

describe('outlook_create_contact', () => {
  it('posts the Graph contact body and returns the compact contact', async () => {
    const r = await h.ok('outlook_create_contact', {
      givenName: 'Dana',
      surname: 'Ortiz',
      emailAddresses: [{ address: 'dana.ortiz@contoso.example' }, { address: 'dana@home.example', name: 'Dana (home)' }],
      businessPhones: ['+1 206 555 0150'],
      mobilePhone: '+1 206 555 0151',
      companyName: 'Contoso',
      jobTitle: 'CEO',
      department: 'Executive',
      businessAddress: { street: '1 Main St', city: 'Seattle', state: 'WA', postalCode: '98101', countryOrRegion: 'United States' },
      personalNotes: 'Prefers mornings',
      birthday: '1980-04-02',
    });
    expect(last().method).toBe('POST');
    expect(last().path).toBe('/v1.0/me/contacts');
    expect(last().body).toEqual({
      givenName: 'Dana',
      surname: 'Ortiz',
      emailAddresses: [
        { address: 'dana.ortiz@contoso.example', name: 'dana.ortiz@contoso.example' },
        { address: 'dana@home.example', name: 'Dana (home)' },
      ],
      businessPhones: ['+1 206 555 0150'],
      mobilePhone: '+1 206 555 0151',
      companyName: 'Contoso',
      jobTitle: 'CEO',
      department: 'Executive',
      businessAddress: { street: '1 Main St', city: 'Seattle', state: 'WA', postalCode: '98101', countryOrRegion: 'United States' },
      personalNotes: 'Prefers mornings',
      birthday: '1980-04-02T00:00:00Z',
    });
    expect(r).toEqual({
      id: expect.any(String),
      displayName: 'Dana Ortiz',
      emailAddresses: ['dana.ortiz@contoso.example', 'dana@home.example'],
      companyName: 'Contoso',
      jobTitle: 'CEO',
      mobilePhone: '+1 206 555 0151',
      businessPhones: ['+1 206 555 0150'],
    });
    expect(state().contacts.find((c) => c.id === r.id)).toMatchObject({ department: 'Executive', birthday: '1980-04-02T00:00:00Z', businessAddress: { city: 'Seattle' } });
  });

  it('refuses a bad email, a bad birthday, more than 3 emails and a contact with no name or email, by field; sends nothing', async () => {
    expect(await h.fails('outlook_create_contact', { givenName: 'X', emailAddresses: [{ address: 'not-an-email' }] })).toMatch(/"emailAddresses\[0\].address" is not an email address/);
    expect(await h.fails('outlook_create_contact', { givenName: 'X', birthday: '02/04/1980' })).toMatch(/"birthday" must be a date such as 1990-05-17/);
    const four = ['a', 'b', 'c', 'd'].map((x) => ({ address: `${x}@x.example` }));
    expect(await h.fails('outlook_create_contact', { givenName: 'X', emailAddresses: four })).toMatch(/emailAddresses/);
    expect(await h.fails('outlook_create_contact', { jobTitle: 'Ghost' })).toMatch(/needs a name or an email address/);
    expect(requests()).toHaveLength(0);
  });

  it('creates in a shared mailbox; an unknown mailbox surfaces the Graph error', async () => {
    const r = await h.ok('outlook_create_contact', { displayName: 'Status Page Bot', emailAddresses: [{ address: 'status@contoso.example' }], mailbox: 'support@contoso.example' });
    expect(last().path).toBe('/v1.0/users/support%40contoso.example/contacts');
    expect(state().sharedCalendars!.find((b) => b.mail === 'support@contoso.example')!.contacts.map((c) => c.id)).toContain(r.id);
    const text = await h.fails('outlook_create_contact', { displayName: 'x', mailbox: 'ghost@contoso.example' });
    expect(text).toMatch(/404.*ErrorInvalidUser/);
  });

  it('refuses an account without the contacts permission group, naming it, and sends nothing', async () => {
    const text = await h.fails('outlook_create_contact', { givenName: 'X', account: 'no-contacts' });
    expect(text).toMatch(/was not granted the contacts permission group/);
    expect(requests()).toHaveLength(0);
  });
});

describe('outlook_find_contact', () => {
  it('by email: Graph any() filter with the address quoted; an apostrophe is doubled', async () => {
    const r = await h.ok('outlook_find_contact', { email: 'sam.rivera@acme.example' });
    expect(`${last().method} ${last().path}`).toBe('GET /v1.0/me/contacts');
    expect(last().query.get('$filter')).toBe("emailAddresses/any(a:a/address eq 'sam.rivera@acme.example')");
    expect(last().query.get('$select')).toBe(SELECT);
    expect(r.truncated).toBe(false);
    expect(r.contacts).toEqual([
      { id: expect.any(String), displayName: 'Sam Rivera', emailAddresses: ['sam.rivera@acme.example'], companyName: 'Acme', jobTitle: 'VP Operations', mobilePhone: '+1 512 555 0177', businessPhones: ['+1 512 555 0100'] },
    ]);
    state().contacts.push(buildContact(state(), { givenName: 'Pat', surname: "O'Brien", emailAddresses: [{ address: "pat.o'brien@contoso.example" }] }));
    const quoted = await h.ok('outlook_find_contact', { email: "pat.o'brien@contoso.example" });
    expect(last().query.get('$filter')).toBe("emailAddresses/any(a:a/address eq 'pat.o''brien@contoso.example')");
    expect(quoted.contacts.map((c: any) => c.displayName)).toEqual(["Pat O'Brien"]);
    expect((await h.ok('outlook_find_contact', { email: 'nobody@nowhere.example' })).contacts).toEqual([]);
  });

  it('by name: lists contacts and matches first, last or display name in any case', async () => {
    const r = await h.ok('outlook_find_contact', { name: 'PATEL' });
    expect(last().query.get('$filter')).toBeNull();
    expect(last().query.get('$top')).toBe('100');
    expect(r.contacts.map((c: any) => c.displayName)).toEqual(['Priya Patel']);
    expect(Object.keys(r.contacts[0]).sort()).toEqual(KEYS);
    expect((await h.ok('outlook_find_contact', { name: 'lee jordan' })).contacts.map((c: any) => c.displayName)).toEqual(['Jordan Lee']);
    expect((await h.ok('outlook_find_contact', { name: 'nobody-like-this' })).contacts).toEqual([]);
  });

  it('needs exactly one of email or name, naming both; refuses a bad email; sends nothing', async () => {
    expect(await h.fails('outlook_find_contact', {})).toMatch(/exactly one of "email" or "name"/);
    expect(await h.fails('outlook_find_contact', { email: 'a@b.example', name: 'x' })).toMatch(/exactly one of "email" or "name"/);
    expect(await h.fails('outlook_find_contact', { email: 'sam' })).toMatch(/"email" is not an email address/);
    expect(requests()).toHaveLength(0);
  });

  it('stops a name search after 10 pages of 100 and says so', async () => {
    const extra = Array.from({ length: 1_050 }, (_, i) => buildContact(state(), { givenName: 'Filler', surname: `Person ${String(i).padStart(4, '0')}` }));
    state().contacts.push(...extra);
    try {
      const r = await h.ok('outlook_find_contact', { name: 'zzz-nobody' });
      expect(requests()).toHaveLength(10);
      expect(requests()[9]!.query.get('$skip')).toBe('900');
      expect(r).toEqual({ contacts: [], truncated: true });
      const some = await h.ok('outlook_find_contact', { name: 'filler person 00', limit: 5 });
      expect(some.contacts.map((c: any) => c.displayName)).toEqual(['Filler Person 0000', 'Filler Person 0001', 'Filler Person 0002', 'Filler Person 0003', 'Filler Person 0004']);
      expect(some.truncated).toBe(true);
    } finally {
      state().contacts.splice(state().contacts.length - extra.length, extra.length);
    }
  });

  it('surfaces Graph errors: a refused filter, a shared mailbox without delegated access', async () => {
    h.sandbox.servers.outlook.once('GET /v1.0/me/contacts', { status: 400, body: { error: { code: 'ErrorInvalidUrlQueryFilter', message: 'The filter expression is not supported.' } } });
    const text = await h.fails('outlook_find_contact', { email: 'sam.rivera@acme.example' });
    expect(text).toMatch(/Microsoft Graph answered 400 to GET \/v1.0\/me\/contacts \(ErrorInvalidUrlQueryFilter/);
    const denied = await h.fails('outlook_find_contact', { name: 'x', mailbox: 'ceo@contoso.example' });
    expect(denied).toMatch(/refused access to the mailbox "ceo@contoso.example"/);
  });
});

describe('outlook_list_contacts', () => {
  it('pages through more than one page sorted by display name', async () => {
    const first = await h.ok('outlook_list_contacts', { limit: 2 });
    expect(last().method).toBe('GET');
    expect(last().path).toBe('/v1.0/me/contacts');
    expect(Object.fromEntries(last().query)).toEqual({ $select: SELECT, $orderby: 'displayName', $top: '2' });
    expect(first.contacts).toHaveLength(2);
    for (const c of first.contacts) expect(Object.keys(c).sort()).toEqual(KEYS.filter((k) => k !== 'mobilePhone' || c.mobilePhone));
    const names = first.contacts.map((c: any) => c.displayName);
    let cursor = first.next_cursor;
    let pages = 1;
    while (cursor) {
      const page = await h.ok('outlook_list_contacts', { limit: 2, cursor });
      expect(last().query.get('$skip')).toBe(String(pages * 2));
      names.push(...page.contacts.map((c: any) => c.displayName));
      cursor = page.next_cursor;
      pages++;
    }
    expect(pages).toBeGreaterThan(2);
    expect(names).toHaveLength(state().contacts.length);
    expect(names).toEqual([...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
  });

  it("lists a shared mailbox's contacts and a personal account's own", async () => {
    const shared = await h.ok('outlook_list_contacts', { mailbox: 'support@contoso.example' });
    expect(last().path).toBe('/v1.0/users/support%40contoso.example/contacts');
    expect(shared.contacts.map((c: any) => c.displayName)).toContain('Northwind Billing');
    const own = await h.ok('outlook_list_contacts', { account: 'personal' });
    expect(own.contacts.map((c: any) => c.displayName)).toEqual(['Jamie Park', 'Sam Rivera']);
  });

  it('surfaces a 429 beyond the retry budget with when to retry', async () => {
    h.sandbox.servers.outlook.once('GET /v1.0/me/contacts', { status: 429, headers: { 'retry-after': '90' }, body: { error: { code: 'TooManyRequests', message: 'Please retry again later.' } } });
    const text = await h.fails('outlook_list_contacts', {});
    expect(text).toMatch(/429.*TooManyRequests/);
    expect(text).toMatch(/retry after 90 s/);
  });
});

describe('outlook_update_contact', () => {
  it('PATCHes only the given fields; email addresses and phones are replaced whole', async () => {
    const jordan = state().contacts.find((c) => c.displayName === 'Jordan Lee')!;
    const r = await h.ok('outlook_update_contact', { id: jordan.id, jobTitle: 'Head of Procurement', emailAddresses: [{ address: 'jordan@fabrikam.example', name: 'Jordan' }], businessPhones: [] });
    expect(last().method).toBe('PATCH');
    expect(last().path).toBe(`/v1.0/me/contacts/${encodeURIComponent(jordan.id)}`);
    expect(last().body).toEqual({ jobTitle: 'Head of Procurement', emailAddresses: [{ address: 'jordan@fabrikam.example', name: 'Jordan' }], businessPhones: [] });
    expect(r).toMatchObject({ id: jordan.id, displayName: 'Jordan Lee', jobTitle: 'Head of Procurement', emailAddresses: ['jordan@fabrikam.example'], businessPhones: [], companyName: 'Fabrikam' });
    const stored = state().contacts.find((c) => c.id === jordan.id)!;
    expect(stored.emailAddresses.map((e) => e.address)).toEqual(['jordan@fabrikam.example']);
    expect(stored.department).toBe('Procurement');
  });

  it('renaming recomputes the display name unless one is given', async () => {
    const alex = state().contacts.find((c) => c.displayName === 'Alex Kim')!;
    expect((await h.ok('outlook_update_contact', { id: alex.id, surname: 'Kim-Lee' })).displayName).toBe('Alex Kim-Lee');
    expect((await h.ok('outlook_update_contact', { id: alex.id, displayName: 'AK' })).displayName).toBe('AK');
  });

  it('surfaces ErrorItemNotFound for an unknown id; refuses an update with nothing to change', async () => {
    const text = await h.fails('outlook_update_contact', { id: 'AAMkAGCnope', jobTitle: 'x' });
    expect(text).toMatch(/404.*ErrorItemNotFound/);
    expect(await h.fails('outlook_update_contact', { id: 'AAMkAGCnope' })).toMatch(/Nothing to change/);
    expect(requests()).toHaveLength(1);
  });
});
