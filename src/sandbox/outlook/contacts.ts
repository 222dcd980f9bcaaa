import type { Routes, SandboxRequest } from '../server.js';
import type { CalendarOwner, CalendarState, GraphContact } from './state.js';
import { forMeAndUsers, notFound } from './events.js';
import { GraphError, applySelect, listResponse, nextGraphId, parseSelect, type Person } from './query.js';
import { hexId, isObject } from '../util.js';

/** Graph contacts of one owner: list (filter by address with any()), get, create, update (collections replaced whole), delete. */

const CONTACT_DEFAULTS = {
  categories: [] as string[],
  birthday: null,
  initials: null,
  middleName: null,
  nickName: null,
  title: null,
  generation: null,
  imAddresses: [] as string[],
  jobTitle: null,
  companyName: null,
  department: null,
  officeLocation: null,
  profession: null,
  businessHomePage: null,
  assistantName: null,
  manager: null,
  homePhones: [] as string[],
  mobilePhone: null,
  businessPhones: [] as string[],
  spouseName: null,
  personalNotes: '',
  children: [] as string[],
  emailAddresses: [] as Person[],
  homeAddress: {},
  businessAddress: {},
  otherAddress: {},
};

const badRequest = (message: string) => new GraphError(400, 'ErrorInvalidRequest', message);
const COLLECTIONS = ['emailAddresses', 'businessPhones', 'homePhones', 'imAddresses', 'categories', 'children'];

export function buildContact(state: Pick<CalendarState, 'seq'>, body: Record<string, any>, existing?: GraphContact): GraphContact {
  const base = existing ?? { ...CONTACT_DEFAULTS, givenName: null, surname: null };
  for (const k of Object.keys(body)) {
    if (!(k in base) && k !== 'displayName') {
      throw new GraphError(400, 'BadRequest', `The property '${k}' does not exist on type 'microsoft.graph.contact'.`);
    }
    if (COLLECTIONS.includes(k) && !Array.isArray(body[k])) throw badRequest(`'${k}' must be an array.`);
  }
  // An Outlook contact holds three email addresses (Email, Email 2, Email 3).
  if ((body.emailAddresses?.length ?? 0) > 3) throw badRequest('A contact can hold at most 3 email addresses.');
  if (body.birthday != null && (typeof body.birthday !== 'string' || Number.isNaN(Date.parse(body.birthday)))) throw badRequest("'birthday' must be a DateTimeOffset such as 1990-05-17T00:00:00Z.");
  const merged = { ...base, ...body };
  const id = existing?.id ?? nextGraphId(state, 'AAMkAGC');
  const modified = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const named = 'givenName' in body || 'surname' in body;
  const displayName = body.displayName ?? (existing && !named ? existing.displayName : [merged.givenName, merged.surname].filter(Boolean).join(' '));
  return {
    ...merged,
    id,
    createdDateTime: existing?.createdDateTime ?? modified,
    lastModifiedDateTime: modified,
    changeKey: hexId(id + modified + JSON.stringify(body), 20),
    parentFolderId: existing?.parentFolderId ?? 'AQMkADcontacts',
    displayName: displayName ?? '',
    fileAs: displayName ?? '',
    emailAddresses: (merged.emailAddresses ?? []).map((e: any) => ({ name: e?.name ?? e?.address, address: e?.address })),
  };
}

const render = (c: GraphContact): Record<string, unknown> => ({ '@odata.etag': `W/"${c.changeKey}"`, ...c });

export function contactRoutes(state: CalendarState, ownerOf: (req: SandboxRequest) => CalendarOwner): Routes {
  const find = (owner: CalendarOwner, id: string) => owner.contacts.find((c) => c.id === id) ?? (() => { throw notFound(); })();
  const one = (req: SandboxRequest, c: GraphContact, status = 200) => {
    const row = render(c);
    return { status, body: applySelect(row, parseSelect(req, [row])) };
  };
  return forMeAndUsers({
    'GET ~/contacts': (req) => {
      const owner = ownerOf(req);
      return listResponse(req, owner.contacts, { context: `users('${encodeURIComponent(owner.id)}')/contacts`, render });
    },
    'POST ~/contacts': (req) => {
      const owner = ownerOf(req);
      if (!isObject(req.body)) throw badRequest('Empty Payload. JSON content expected.');
      const contact = buildContact(state, req.body);
      owner.contacts.push(contact);
      return one(req, contact, 201);
    },
    'GET ~/contacts/:id': (req) => one(req, find(ownerOf(req), req.params.id!)),
    'PATCH ~/contacts/:id': (req) => {
      const owner = ownerOf(req);
      const old = find(owner, req.params.id!);
      if (!isObject(req.body)) throw badRequest('Empty Payload. JSON content expected.');
      const updated = buildContact(state, req.body, old);
      owner.contacts.splice(owner.contacts.indexOf(old), 1, updated);
      return one(req, updated);
    },
    'DELETE ~/contacts/:id': (req) => {
      const owner = ownerOf(req);
      owner.contacts.splice(owner.contacts.indexOf(find(owner, req.params.id!)), 1);
      return { status: 204 };
    },
  });
}
