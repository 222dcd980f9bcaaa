import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { Tool } from '../../tool.js';
import { checkEmail } from './calendar.shared.js';
import { cursorField, graphPage, graphQuery, limitField, mailboxField, mailboxPath, odataString, withGraphHints } from './common.js';
import { outlook } from './connector.js';

const SELECT = 'displayName,givenName,surname,emailAddresses,companyName,jobTitle,mobilePhone,businessPhones';

/** The contact fields create_contact and update_contact share; on update, collections and the address are replaced whole. */
function contactShape() {
  return {
    givenName: z.string().optional().describe('First name'),
    surname: z.string().optional().describe('Last name'),
    displayName: z.string().optional().describe('Default: first and last name'),
    emailAddresses: z
      .array(z.object({ address: z.string().describe('Email address'), name: z.string().optional().describe('Display name') }).strict())
      .max(3)
      .optional()
      .describe('At most 3'),
    businessPhones: z.array(z.string()).optional().describe('Work phones'),
    homePhones: z.array(z.string()).optional().describe('Home phones'),
    mobilePhone: z.string().optional().describe('Mobile phone'),
    companyName: z.string().optional().describe('Company'),
    jobTitle: z.string().optional().describe('Job title'),
    department: z.string().optional().describe('Department'),
    businessAddress: z
      .object({
        street: z.string().optional().describe('Street'),
        city: z.string().optional().describe('City'),
        state: z.string().optional().describe('State'),
        postalCode: z.string().optional().describe('Postal code'),
        countryOrRegion: z.string().optional().describe('Country'),
      })
      .strict()
      .optional()
      .describe('Work address'),
    personalNotes: z.string().optional().describe('Notes'),
    birthday: z.string().optional().describe('YYYY-MM-DD'),
    mailbox: mailboxField,
  };
}

type ContactInput = { [K in keyof ReturnType<typeof contactShape>]?: z.output<ReturnType<typeof contactShape>[K]> };

/** Checks the caller's fields and turns them into Graph's contact body (mailbox excluded). */
function graphContact({ mailbox: _mailbox, ...input }: ContactInput): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input };
  if (input.emailAddresses) {
    out.emailAddresses = input.emailAddresses.map((e, i) => {
      const address = checkEmail(e.address, `emailAddresses[${i}].address`);
      return { address, name: e.name ?? address };
    });
  }
  if (input.birthday !== undefined) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(input.birthday) || Number.isNaN(Date.parse(input.birthday))) {
      throw new InputError(`"birthday" must be a date such as 1990-05-17, not "${input.birthday.slice(0, 40)}".`, 'birthday');
    }
    out.birthday = `${input.birthday}T00:00:00Z`;
  }
  return out;
}

const contactOutput = z.object({
  id: z.string(),
  displayName: z.string(),
  emailAddresses: z.array(z.string()),
  companyName: z.string().optional(),
  jobTitle: z.string().optional(),
  mobilePhone: z.string().optional(),
  businessPhones: z.array(z.string()),
});

function contactResult(c: any): z.input<typeof contactOutput> {
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  return {
    id: c.id,
    displayName: c.displayName ?? '',
    emailAddresses: (c.emailAddresses ?? []).map((e: any) => e?.address).filter(Boolean),
    companyName: text(c.companyName),
    jobTitle: text(c.jobTitle),
    mobilePhone: text(c.mobilePhone),
    businessPhones: c.businessPhones ?? [],
  };
}

const createContact = outlook.tool({
  name: 'create_contact',
  title: 'Create contact',
  description:
    'Create a contact; returns it with its id. ' +
    'Check outlook_find_contact first to avoid a duplicate.',
  input: z.object(contactShape()).strict(),
  output: contactOutput,
  effect: 'write',
  async run(input, { api, account }) {
    const body = graphContact(input);
    if (!input.givenName?.trim() && !input.surname?.trim() && !input.displayName?.trim() && !input.emailAddresses?.length) {
      throw new InputError('A contact needs a name or an email address: give "givenName", "surname", "displayName" or "emailAddresses".', 'givenName');
    }
    const res = await withGraphHints(account, 'contacts', input.mailbox, () => api.request({ method: 'POST', endpoint: `${mailboxPath(input.mailbox)}/contacts`, body, endpointField: 'mailbox' }));
    return contactResult(res.body);
  },
});

const updateContact = outlook.tool({
  name: 'update_contact',
  title: 'Update contact',
  description:
    'Change the given fields of a contact (lists and the address replaced whole). ' +
    'Ids come from outlook_find_contact.',
  input: z.object({ id: z.string().min(1).describe('Contact id'), ...contactShape() }).strict(),
  output: contactOutput,
  effect: 'write',
  idempotent: true,
  async run({ id, ...input }, { api, account }) {
    const body = graphContact(input);
    if (Object.keys(body).length === 0) throw new InputError('Nothing to change: give at least one field besides "id" (givenName, emailAddresses, jobTitle...).', 'id');
    const endpoint = `${mailboxPath(input.mailbox)}/contacts/${encodeURIComponent(id)}`;
    const res = await withGraphHints(account, 'contacts', input.mailbox, () => api.request({ method: 'PATCH', endpoint, body, endpointField: 'id' }));
    return contactResult(res.body);
  },
});

const listContacts = outlook.tool({
  name: 'list_contacts',
  title: 'List contacts',
  description:
    'List contacts by display name, with emails, company, title and phones. ' +
    'To look someone up use outlook_find_contact.',
  input: z.object({ mailbox: mailboxField, limit: limitField(100, 25), cursor: cursorField }).strict(),
  output: z.object({ contacts: z.array(contactOutput), next_cursor: z.string().nullable() }),
  effect: 'read',
  records: 'contacts',
  async run({ mailbox, limit, cursor }, { api, account }) {
    const endpoint = `${mailboxPath(mailbox)}/contacts${graphQuery({ $select: SELECT, $orderby: 'displayName', $top: limit ?? 25 })}`;
    const page = await withGraphHints(account, 'contacts', mailbox, () => graphPage<any>(api, endpoint, cursor));
    return { contacts: page.items.map(contactResult), next_cursor: page.next_cursor };
  },
});

/** Name search reads at most this many pages of 100 contacts: Graph has no reliable name filter on contacts. */
const NAME_PAGES = 10;

function nameMatches(c: any, needle: string): boolean {
  const given = c.givenName ?? '';
  const sur = c.surname ?? '';
  return [c.displayName ?? '', given, sur, `${given} ${sur}`, `${sur} ${given}`, `${sur}, ${given}`].some((s) => s.toLowerCase().includes(needle));
}

const findContact = outlook.tool({
  name: 'find_contact',
  title: 'Find contact',
  description:
    'Find contacts by exact email address or part of a name (any case). ' +
    'Give exactly one of email or name.',
  input: z
    .object({
      email: z.string().optional().describe('Exact email address'),
      name: z.string().optional().describe('Part of a name'),
      limit: z.number().int().min(1).max(100).optional().describe('Default 25'),
      mailbox: mailboxField,
    })
    .strict(),
  output: z.object({
    contacts: z.array(contactOutput),
    truncated: z.boolean().describe(`More may match (limit reached, or a name search stopped after ${NAME_PAGES * 100})`),
  }),
  effect: 'read',
  records: 'contacts',
  async run({ email, name, limit = 25, mailbox }, { api, account }) {
    if ((email === undefined) === (name === undefined)) throw new InputError('Give exactly one of "email" or "name" (not both, not neither).', 'email');
    const base = `${mailboxPath(mailbox)}/contacts`;
    if (email !== undefined) {
      const address = checkEmail(email, 'email');
      // The only filter Graph documents on contacts: any() with eq on the address.
      const query = graphQuery({ $filter: `emailAddresses/any(a:a/address eq ${odataString(address)})`, $select: SELECT, $top: limit });
      const page = await withGraphHints(account, 'contacts', mailbox, () => graphPage<any>(api, base + query, undefined));
      return { contacts: page.items.map(contactResult), truncated: page.next_cursor !== null };
    }
    const needle = name!.trim().toLowerCase();
    if (!needle) throw new InputError('"name" is empty; give part of a first, last or display name.', 'name');
    const first = base + graphQuery({ $select: SELECT, $orderby: 'displayName', $top: 100 });
    return withGraphHints(account, 'contacts', mailbox, async () => {
      const found: any[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < NAME_PAGES; i++) {
        const page = await graphPage<any>(api, first, cursor);
        for (const c of page.items) {
          if (!nameMatches(c, needle)) continue;
          if (found.length === limit) return { contacts: found.map(contactResult), truncated: true };
          found.push(c);
        }
        if (!page.next_cursor) return { contacts: found.map(contactResult), truncated: false };
        cursor = page.next_cursor;
      }
      return { contacts: found.map(contactResult), truncated: true };
    });
  },
});

/** In the specification's order. */
export const contactsTools: Tool[] = [createContact, findContact, listContacts, updateContact];
