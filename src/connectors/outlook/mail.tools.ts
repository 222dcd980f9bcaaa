import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import type { Tool } from '../../tool.js';
import { cursorField, graphPage, graphQuery, limitField, mailboxField, mailboxPath, withGraphHints } from './common.js';
import { outlook } from './connector.js';
import { mailSendTools } from './mail-send.tools.js';
import { resolveFolderRef } from './mail-folders.js';
import { planMessageQuery } from './mail-query.js';

interface GraphMessageRow {
  id: string;
  subject?: string | null;
  from?: { emailAddress?: { name?: string | null; address?: string | null } } | null;
  receivedDateTime?: string | null;
  isRead?: boolean;
  hasAttachments?: boolean;
  categories?: string[];
  bodyPreview?: string | null;
  webLink?: string | null;
  body?: { content?: string | null } | null;
  attachments?: Array<{ id: string; name?: string | null; contentType?: string | null; size?: number | null }>;
}

const MESSAGE_FIELDS = 'id,subject,from,receivedDateTime,isRead,hasAttachments,categories,bodyPreview,webLink';
const ATTACHMENTS_EXPAND = 'attachments($select=id,name,contentType,size)';
const TEXT_BODY = { prefer: 'outlook.body-content-type="text"' };
/** Graph does not carry the Prefer header into nextLink, so a text-body cursor says so itself. */
const TEXT_CURSOR = 'txt.';

const compactPerson = z.object({ name: z.string().optional(), address: z.string().optional() });

const messageRow = z.object({
  id: z.string(),
  subject: z.string(),
  from: compactPerson.optional(),
  receivedDateTime: z.string(),
  isRead: z.boolean(),
  hasAttachments: z.boolean(),
  categories: z.array(z.string()),
  bodyPreview: z.string(),
  webLink: z.string(),
  body: z.string().optional(),
  attachments: z.array(z.object({ id: z.string(), name: z.string(), contentType: z.string().optional(), size: z.number() })).optional(),
});

function toMessageRow(m: GraphMessageRow): z.input<typeof messageRow> {
  const from = m.from?.emailAddress;
  return {
    id: m.id,
    subject: m.subject ?? '',
    ...(from ? { from: { ...(from.name ? { name: from.name } : {}), ...(from.address ? { address: from.address } : {}) } } : {}),
    receivedDateTime: m.receivedDateTime ?? '',
    isRead: m.isRead ?? false,
    hasAttachments: m.hasAttachments ?? false,
    categories: m.categories ?? [],
    bodyPreview: m.bodyPreview ?? '',
    webLink: m.webLink ?? '',
    ...(m.body ? { body: m.body.content ?? '' } : {}),
    ...(m.attachments
      ? { attachments: m.attachments.map((a) => ({ id: a.id, name: a.name ?? '', ...(a.contentType ? { contentType: a.contentType } : {}), size: a.size ?? 0 })) }
      : {}),
  };
}

const findEmail = outlook.tool({
  name: 'find_email',
  title: 'Find email',
  description:
    'Search mail by KQL (search) or OData filter/orderby, not both, in a folder or all. ' +
    'Ids feed outlook_add_label and outlook_move_email.',
  input: z
    .object({
      search: z.string().optional().describe('KQL, e.g. from:bob subject:invoice'),
      filter: z.string().optional().describe("e.g. from/emailAddress/address eq 'a@b.c'"),
      orderby: z.string().optional().describe('Default receivedDateTime desc'),
      folder: z.string().optional().describe('Folder id or name (outlook_list_folders); default all'),
      include_body: z.enum(['text', 'html']).optional().describe('Add bodies in this format'),
      include_attachments: z.boolean().optional().describe('Add attachment id, name, size'),
      limit: limitField(50, 10),
      cursor: cursorField,
      mailbox: mailboxField,
    })
    .strict(),
  output: z.object({
    messages: z.array(messageRow),
    next_cursor: z.string().nullable(),
    note: z.string().optional(),
  }),
  effect: 'read',
  records: 'messages',
  async run(input, { account, api }) {
    const base = mailboxPath(input.mailbox);
    return withGraphHints(account, 'mail', input.mailbox, async () => {
      let cursor = input.cursor;
      let text = input.include_body === 'text';
      if (cursor?.startsWith(TEXT_CURSOR)) {
        text = true;
        cursor = cursor.slice(TEXT_CURSOR.length);
      }
      let endpoint = '';
      let notes: string[] = [];
      if (!cursor) {
        const plan = planMessageQuery({ search: input.search || undefined, filter: input.filter || undefined, orderby: input.orderby || undefined });
        notes = plan.notes;
        const folder = input.folder?.trim() ? await resolveFolderRef(api, base, input.folder, 'folder') : undefined;
        const path = folder ? `${base}/mailFolders/${encodeURIComponent(folder)}/messages` : `${base}/messages`;
        endpoint =
          path +
          graphQuery({
            ...plan.params,
            $select: input.include_body ? `${MESSAGE_FIELDS},body` : MESSAGE_FIELDS,
            $expand: input.include_attachments ? ATTACHMENTS_EXPAND : undefined,
            $top: input.limit ?? 10,
          });
      }
      const page = await graphPage<GraphMessageRow>(api, endpoint, cursor, text ? TEXT_BODY : undefined);
      const next = page.next_cursor && text ? TEXT_CURSOR + page.next_cursor : page.next_cursor;
      return { messages: page.items.map(toMessageRow), next_cursor: next, ...(notes.length ? { note: notes.join(' ') } : {}) };
    });
  },
});

const FOLDER_FIELDS = 'id,displayName,parentFolderId,childFolderCount,unreadItemCount,totalItemCount';

const listFolders = outlook.tool({
  name: 'list_folders',
  title: 'List mail folders',
  description:
    'List mail folders (top level or children of parent) with ids, names and counts. ' +
    'Ids serve outlook_find_email and outlook_move_email.',
  input: z
    .object({
      parent: z.string().optional().describe('Folder id or name whose children to list'),
      include_hidden: z.boolean().optional().describe('Include hidden folders'),
      limit: limitField(100, 50),
      cursor: cursorField,
      mailbox: mailboxField,
    })
    .strict(),
  output: z.object({
    folders: z.array(
      z.object({
        id: z.string(),
        displayName: z.string().optional(),
        parentFolderId: z.string().optional(),
        childFolderCount: z.number().optional(),
        unreadItemCount: z.number().optional(),
        totalItemCount: z.number().optional(),
        isHidden: z.boolean().optional(),
      }),
    ),
    next_cursor: z.string().nullable(),
  }),
  effect: 'read',
  records: 'folders',
  async run(input, { account, api }) {
    const base = mailboxPath(input.mailbox);
    return withGraphHints(account, 'mail', input.mailbox, async () => {
      let endpoint = '';
      if (!input.cursor) {
        const parent = input.parent?.trim() ? await resolveFolderRef(api, base, input.parent, 'parent') : undefined;
        const path = parent ? `${base}/mailFolders/${encodeURIComponent(parent)}/childFolders` : `${base}/mailFolders`;
        endpoint =
          path +
          graphQuery({
            $select: input.include_hidden ? `${FOLDER_FIELDS},isHidden` : FOLDER_FIELDS,
            includeHiddenFolders: input.include_hidden ? 'true' : undefined,
            $top: input.limit ?? 50,
          });
      }
      type GraphFolder = { id: string; displayName?: string | null; parentFolderId?: string | null; childFolderCount?: number; unreadItemCount?: number; totalItemCount?: number; isHidden?: boolean };
      const page = await graphPage<GraphFolder>(api, endpoint, input.cursor);
      const folders = page.items.map((f) => ({
        id: f.id,
        displayName: f.displayName ?? '',
        parentFolderId: f.parentFolderId ?? '',
        childFolderCount: f.childFolderCount ?? 0,
        unreadItemCount: f.unreadItemCount ?? 0,
        totalItemCount: f.totalItemCount ?? 0,
        ...(f.isHidden !== undefined ? { isHidden: f.isHidden } : {}),
      }));
      return { folders, next_cursor: page.next_cursor };
    });
  },
});

interface MasterCategory {
  id: string;
  displayName?: string;
  color?: string;
}

const listLabels = outlook.tool({
  name: 'list_labels',
  title: 'List labels (categories)',
  description:
    "List the mailbox's categories (labels) with id, displayName and color. " +
    'Names feed outlook_add_label and outlook_remove_label.',
  input: z.object({ mailbox: mailboxField }).strict(),
  output: z.object({ labels: z.array(z.object({ id: z.string(), displayName: z.string().nullable(), color: z.string().nullable() })) }),
  effect: 'read',
  async run(input, { account, api }) {
    const base = mailboxPath(input.mailbox);
    const res = await withGraphHints(account, 'mailbox-settings', input.mailbox, () => api.get<{ value?: MasterCategory[] }>(`${base}/outlook/masterCategories`));
    return { labels: (res.value ?? []).map((c) => ({ id: c.id, displayName: c.displayName, color: c.color })) };
  },
});

const CATEGORY_COLOR = /^(none|preset([0-9]|1[0-9]|2[0-4]))$/;
const labelOutput = z.object({ id: z.string(), categories: z.array(z.string()), changed: z.boolean() });
const idField = z.string().min(1).describe('Message id (outlook_find_email)');
const labelField = z.string().trim().min(1).describe('Category name (outlook_list_labels)');

async function readCategories(api: Api, path: string): Promise<string[]> {
  const msg = await api.get<{ categories?: string[] }>(`${path}${graphQuery({ $select: 'categories' })}`);
  return msg.categories ?? [];
}

const addLabel = outlook.tool({
  name: 'add_label',
  title: 'Add label (category)',
  description:
    'Add a category (label) to a message, keeping the others. ' +
    'An unknown name is refused unless create_if_missing.',
  input: z
    .object({
      id: idField,
      label: labelField,
      create_if_missing: z.boolean().optional().describe('Create the category if missing'),
      color: z.string().optional().describe('preset0 (default) to preset24, or none'),
      mailbox: mailboxField,
    })
    .strict(),
  output: labelOutput,
  effect: 'write',
  idempotent: true,
  async run(input, { account, api }) {
    if (input.color !== undefined && !CATEGORY_COLOR.test(input.color)) {
      throw new InputError(`"color" must be none or preset0 to preset24, not ${JSON.stringify(input.color)}.`, 'color');
    }
    const base = mailboxPath(input.mailbox);
    const path = `${base}/messages/${encodeURIComponent(input.id)}`;
    return withGraphHints(account, 'mail', input.mailbox, async () => {
      const current = await readCategories(api, path);
      const wanted = input.label.toLowerCase();
      if (current.some((c) => c.toLowerCase() === wanted)) return { id: input.id, categories: current, changed: false };
      // Reading and creating master categories needs MailboxSettings, granted by its own group.
      const name = await withGraphHints(account, 'mailbox-settings', input.mailbox, async () => {
        const master = (await api.get<{ value?: MasterCategory[] }>(`${base}/outlook/masterCategories`)).value ?? [];
        const match = master.find((c) => c.displayName?.toLowerCase() === wanted);
        if (match) return match.displayName!;
        if (!input.create_if_missing) {
          const names = master.flatMap((c) => (c.displayName ? [`"${c.displayName}"`] : [])).join(', ') || 'none';
          throw new InputError(
            `"label": "${input.label}" is not one of this mailbox's categories (${names}). Use one of them, or set create_if_missing: true to create it. Nothing was changed.`,
            'label',
          );
        }
        await api.post(`${base}/outlook/masterCategories`, { displayName: input.label, color: input.color ?? 'preset0' });
        return input.label;
      });
      const updated = await api.patch<{ categories?: string[] }>(path, { categories: [...current, name] });
      return { id: input.id, categories: updated.categories ?? [...current, name], changed: true };
    });
  },
});

const removeLabel = outlook.tool({
  name: 'remove_label',
  title: 'Remove label (category)',
  description:
    'Remove a category (label) from a message, keeping the others. ' +
    'Ids come from outlook_find_email.',
  input: z.object({ id: idField, label: labelField, mailbox: mailboxField }).strict(),
  output: labelOutput,
  effect: 'write',
  idempotent: true,
  async run(input, { account, api }) {
    const path = `${mailboxPath(input.mailbox)}/messages/${encodeURIComponent(input.id)}`;
    return withGraphHints(account, 'mail', input.mailbox, async () => {
      const current = await readCategories(api, path);
      const kept = current.filter((c) => c.toLowerCase() !== input.label.toLowerCase());
      if (kept.length === current.length) return { id: input.id, categories: current, changed: false };
      // Graph replaces the whole list.
      const updated = await api.patch<{ categories?: string[] }>(path, { categories: kept });
      return { id: input.id, categories: updated.categories ?? kept, changed: true };
    });
  },
});

export const mailTools: Tool[] = [findEmail, listFolders, listLabels, addLabel, removeLabel, ...mailSendTools];
