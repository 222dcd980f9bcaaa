import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { Tool } from '../../tool.js';
import { mailboxField, mailboxPath, withGraphHints } from './common.js';
import { outlook } from './connector.js';
import { resolveFolderRef } from './mail-folders.js';

const moveEmail = outlook.tool({
  name: 'move_email',
  title: 'Move email to folder',
  description:
    "Move a message (outlook_find_email) to a folder by id or name (outlook_list_folders); returns the message's new id.",
  input: z
    .object({
      id: z.string().min(1).describe('Message id (outlook_find_email)'),
      destination: z.string().min(1).describe('Folder id, well-known name (archive) or display name'),
      mailbox: mailboxField,
    })
    .strict(),
  output: z.object({ id: z.string(), previous_id: z.string(), folder_id: z.string() }),
  effect: 'write',
  async run(input, { account, api }) {
    const base = mailboxPath(input.mailbox);
    return withGraphHints(account, 'mail', input.mailbox, async () => {
      const destinationId = await resolveFolderRef(api, base, input.destination, 'destination');
      const moved = await api.post<{ id: string; parentFolderId?: string }>(`${base}/messages/${encodeURIComponent(input.id)}/move`, { destinationId });
      return { id: moved.id, previous_id: input.id, folder_id: moved.parentFolderId ?? destinationId };
    });
  },
});

/** Inline attachments in one sendMail request: Graph takes files under about 3 MB this way (provider facts A5). */
export const MAX_INLINE_ATTACHMENT_BYTES = 3 * 1024 * 1024;

const EMAIL = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/;
const NAMED = /^\s*"?([^"<]*?)"?\s*<([^<>]+)>\s*$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

const recipient = z.string();
const recipientsField = (description: string) => z.array(recipient).optional().describe(description);

type Recipient = { emailAddress: { name?: string; address: string } };

function recipients(list: Array<z.infer<typeof recipient>> | undefined, field: string): Recipient[] {
  return (list ?? []).map((r, i) => {
    let name: string | undefined;
    let address = r.trim();
    const named = NAMED.exec(r);
    if (named) [name, address] = [named[1]!.trim() || undefined, named[2]!.trim()];
    if (!EMAIL.test(address)) {
      throw new InputError(`"${field}[${i}]": ${JSON.stringify(address)} is not an email address; give name@domain.tld or "Name <name@domain.tld>". Nothing was sent.`, `${field}[${i}]`);
    }
    return { emailAddress: name ? { name, address } : { address } };
  });
}

function decodeAttachments(list: Array<{ name: string; content_base64: string; content_type?: string }> | undefined) {
  let total = 0;
  const out = (list ?? []).map((a, i) => {
    if (!a.name.trim()) throw new InputError(`"attachments[${i}].name" is empty; give the file name. Nothing was sent.`, `attachments[${i}].name`);
    const raw = a.content_base64.replace(/\s+/g, '');
    if (!BASE64.test(raw) || raw.length % 4 === 1 || (raw.includes('=') && raw.length % 4 !== 0)) {
      throw new InputError(`"attachments[${i}].content_base64" is not valid base64 (A-Z, a-z, 0-9, + and /, padded with =). Nothing was sent.`, `attachments[${i}].content_base64`);
    }
    const bytes = Buffer.from(raw.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    total += bytes.length;
    return {
      '@odata.type': '#microsoft.graph.fileAttachment',
      name: a.name,
      ...(a.content_type ? { contentType: a.content_type } : {}),
      contentBytes: bytes.toString('base64'),
    };
  });
  if (total > MAX_INLINE_ATTACHMENT_BYTES) {
    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    throw new InputError(
      `"attachments": ${mb(total)} MB in all once decoded, over the 3 MB Graph takes inline in sendMail. Nothing was sent. ` +
        'Larger files need an upload session: with outlook_api_call, POST /me/messages (a draft), then POST /me/messages/{id}/attachments/createUploadSession per file; ' +
        'PUT the bytes to the returned uploadUrl in chunks (another host, no Authorization header, so outside Switchboard), then POST /me/messages/{id}/send.',
      'attachments',
    );
  }
  return out;
}

const sendEmail = outlook.tool({
  name: 'send_email',
  title: 'Send email',
  description:
    'Send an email (text or HTML, attachments up to 3 MB in all); returns accepted, not delivered. ' +
    'Replies: outlook_api_call POST /me/messages/{id}/reply.',
  input: z
    .object({
      to: recipientsField('Each "a@b.c" or "Name <a@b.c>"'),
      cc: recipientsField('As to'),
      bcc: recipientsField('As to'),
      subject: z.string().describe('Subject'),
      body: z.string().describe('Body'),
      body_type: z.enum(['text', 'html']).optional().describe('Default text'),
      attachments: z
        .array(
          z.object({
            name: z.string().describe('File name'),
            content_base64: z.string().describe('Base64'),
            content_type: z.string().optional().describe('MIME type'),
          }),
        )
        .optional()
        .describe('3 MB at most in all'),
      reply_to: recipientsField('As to'),
      save_to_sent_items: z.boolean().optional().describe('Default true'),
      mailbox: mailboxField,
    })
    .strict(),
  output: z.object({ status: z.literal('accepted'), note: z.string() }),
  effect: 'write',
  async run(input, { account, api }) {
    const to = recipients(input.to, 'to');
    const cc = recipients(input.cc, 'cc');
    const bcc = recipients(input.bcc, 'bcc');
    const replyTo = recipients(input.reply_to, 'reply_to');
    if (to.length + cc.length + bcc.length === 0) throw new InputError('"to": give at least one recipient in to, cc or bcc. Nothing was sent.', 'to');
    const attachments = decodeAttachments(input.attachments);
    const message = {
      subject: input.subject,
      body: { contentType: input.body_type === 'html' ? 'HTML' : 'Text', content: input.body },
      toRecipients: to,
      ...(cc.length ? { ccRecipients: cc } : {}),
      ...(bcc.length ? { bccRecipients: bcc } : {}),
      ...(replyTo.length ? { replyTo } : {}),
      ...(attachments.length ? { attachments } : {}),
    };
    await withGraphHints(account, 'mail', input.mailbox, () =>
      api.post(`${mailboxPath(input.mailbox)}/sendMail`, { message, saveToSentItems: input.save_to_sent_items ?? true }),
    );
    return { status: 'accepted' as const, note: 'Graph accepted the message for delivery; it does not confirm delivery.' };
  },
});

export const mailSendTools: Tool[] = [moveEmail, sendEmail];
