import * as z from 'zod/v4';
import { InputError, ProviderError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import type { NewEvent } from '../../store/types.js';
import { DEFAULT_POLL_INTERVAL_S, MIN_POLL_INTERVAL_S, type PollContext, type PollResult, type TriggerKind } from '../../contracts/triggers.js';
import { matchesFilter, parseFilter, type ParsedFilter } from './filter.js';
import { maintainSubscription, pushMode, removeSubscription, type PushState, type WatchedFolder } from './subscription.js';

/** The specification: emails with any attachment over 25 MB are not processed. */
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;

/** With change notifications on, the delta poll is only a backstop: a notification missed is delivered this much later at most. */
export const DEFAULT_BACKSTOP_S = 900;

const config = z
  .object({
    folder: z.string().min(1).optional().describe('Folder id or well-known name to watch; default inbox'),
    mailbox: z.string().min(1).optional().describe('Shared mailbox address or user id (needs delegated access); default your own'),
    filter: z
      .string()
      .max(1000)
      .optional()
      .describe('e.g. from:*@acme.com AND subject:"invoice"; forms: subject:, body:, from: (* wildcard), hasAttachments:true|false, received:MM/DD/YYYY'),
    poll_interval_seconds: z.number().int().min(MIN_POLL_INTERVAL_S).max(3600).optional().describe(`Seconds between polls, at least ${MIN_POLL_INTERVAL_S}; default ${DEFAULT_POLL_INTERVAL_S}`),
    backstop_interval_seconds: z
      .number()
      .int()
      .min(MIN_POLL_INTERVAL_S)
      .max(86_400)
      .optional()
      .describe(`With Graph change notifications on: seconds between the delta polls that catch what a notification missed; default ${DEFAULT_BACKSTOP_S}`),
    time_zone: z.string().optional().describe('IANA time zone for received: dates; default UTC'),
  })
  .strict()
  .superRefine((value, ctx) => {
    try {
      if (value.filter) parseFilter(value.filter);
    } catch (error) {
      ctx.addIssue({ code: 'custom', path: ['filter'], message: (error as Error).message });
    }
    if (value.time_zone) {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: value.time_zone });
      } catch {
        ctx.addIssue({ code: 'custom', path: ['time_zone'], message: `unknown time zone "${value.time_zone}"; use an IANA name such as Europe/Paris` });
      }
    }
  });

type Config = z.output<typeof config>;

function watched(c: Config): WatchedFolder {
  return {
    folder: c.folder ?? 'inbox',
    mailbox: c.mailbox,
    pollMs: (c.poll_interval_seconds ?? DEFAULT_POLL_INTERVAL_S) * 1000,
    backstopMs: (c.backstop_interval_seconds ?? DEFAULT_BACKSTOP_S) * 1000,
  };
}

const address = z.strictObject({ name: z.string().nullable().describe('Display name'), address: z.string().nullable().describe('Email address') });

const payload = z.strictObject({
  message_id: z.string().describe('Graph message id; outlook_api_call GET /me/messages/{id} reads the whole message'),
  subject: z.string().nullable(),
  from: address.nullable().describe('Sender; null when Graph gives none'),
  to: z.array(address).describe('To recipients'),
  receivedDateTime: z.iso.datetime({ offset: true }).nullable().describe('When it arrived'),
  bodyPreview: z.string().nullable().describe('The first 255 characters of the body, as text'),
  hasAttachments: z.boolean(),
  attachments: z.array(z.strictObject({ name: z.string(), size: z.number().int().describe('Bytes') })).describe('Attachments, each at most 25 MB'),
  webLink: z.string().nullable().describe('Opens the message in Outlook on the web'),
  folder: z.string().describe('Folder watched: an id or well-known name such as inbox'),
  mailbox: z.string().optional().describe('Shared mailbox watched, when not your own'),
});

interface GraphMessage {
  id: string;
  '@removed'?: unknown;
  subject?: string | null;
  from?: { emailAddress?: { name?: string | null; address?: string | null } } | null;
  toRecipients?: Array<{ emailAddress?: { name?: string | null; address?: string | null } }>;
  receivedDateTime?: string;
  bodyPreview?: string | null;
  body?: { content?: string | null } | null;
  hasAttachments?: boolean;
  webLink?: string | null;
  isDraft?: boolean;
}

interface State {
  deltaLink?: string;
  baselineAt?: string;
  baselineIds?: string[];
  lastPollAt?: string;
  lastSkipped?: { messageId: string; reason: string; at: string };
}

const SELECT = 'subject,from,toRecipients,receivedDateTime,bodyPreview,hasAttachments,webLink,isDraft';

export const newEmail: TriggerKind = {
  kind: 'outlook.new_email',
  connector: 'outlook',
  description:
    'Each new email in a folder (default inbox), optionally narrowed by a filter; found with Graph delta queries, at once on a Graph change notification when the server has a public URL.',
  config,
  payload,
  poll: {
    intervalMs: (c) => watched(c as Config).pollMs,
    run: pollNewEmail,
  },
  push: {
    maintain: (ctx) => maintainSubscription(ctx, watched(ctx.trigger.config as Config)),
    async teardown({ trigger, api }) {
      const id = (trigger.state.push as PushState | undefined)?.subscriptionId;
      if (id) await removeSubscription(api, id);
    },
    next(c, account, publicUrl) {
      const w = watched(c as Config);
      const where = `${w.folder} of ${account.label}`;
      if (!publicUrl) return `Watching ${where} every ${w.pollMs / 1000} s: each new matching email is an event within one poll interval.`;
      return (
        `Watching ${where}: at its first poll a server with the public URL ${publicUrl} subscribes to Graph change notifications, so each new matching email ` +
        `is an event within seconds, with a delta poll every ${w.backstopMs / 1000} s as a backstop; until then, or if Graph refuses, it polls every ${w.pollMs / 1000} s.`
      );
    },
  },
  modeOf: (trigger, account) => pushMode(trigger, account, watched(trigger.config as Config)),
};

async function pollNewEmail(ctx: PollContext): Promise<PollResult> {
  const cfg = ctx.trigger.config as Config;
  const state = ctx.trigger.state as State;
  const filter = cfg.filter ? parseFilter(cfg.filter) : undefined;
  const wantsBody = filter?.conditions.some((c) => c.field === 'body') ?? false;
  const now = new Date(ctx.now).toISOString();

  if (!state.deltaLink) {
    // Mail of the last minute is read into the baseline (and not fired) so none arriving now is missed.
    const baseline = await readDelta(ctx.api, startUrl(cfg, wantsBody, new Date(ctx.now - 60_000).toISOString()), wantsBody);
    const baselineIds = baseline.messages.map((m) => m.id).slice(-500);
    return { events: [], state: { ...state, deltaLink: baseline.deltaLink, baselineAt: now, baselineIds, lastPollAt: now } };
  }
  let changes: { messages: GraphMessage[]; deltaLink: string };
  try {
    changes = await readDelta(ctx.api, state.deltaLink, wantsBody);
  } catch (error) {
    if (!isExpiredSync(error)) throw error;
    // A new baseline; mail that arrived since the last good poll still fires (dedupe stops repeats).
    // A minute of slack for clock skew; mail the baseline already held is not news.
    const lastGood = (state.lastPollAt ? Date.parse(state.lastPollAt) : ctx.now) - 60_000;
    const since = new Date(Math.max(lastGood, state.baselineAt ? Date.parse(state.baselineAt) - 60_000 : 0)).toISOString();
    const rebased = await readDelta(ctx.api, startUrl(cfg, wantsBody, since), wantsBody);
    const old = new Set(state.baselineIds ?? []);
    changes = { messages: rebased.messages.filter((m) => !old.has(m.id)), deltaLink: rebased.deltaLink };
  }

  const events: NewEvent[] = [];
  const skipped: PollResult['skipped'] = [];
  for (const message of changes.messages) {
    if (message['@removed'] || message.isDraft) continue;
    if (filter && !matches(filter, message, cfg)) continue;
    const attachments = message.hasAttachments ? await listAttachments(ctx.api, cfg, message.id) : [];
    const tooLarge = attachments.find((a) => a.size > MAX_ATTACHMENT_BYTES);
    if (tooLarge) {
      skipped.push({ key: message.id, reason: `attachment "${tooLarge.name}" is ${tooLarge.size} bytes, over the 25 MB limit` });
      continue;
    }
    events.push(toEvent(message, attachments, cfg));
  }
  const lastSkip = skipped.at(-1);
  return {
    events,
    skipped,
    state: {
      ...state,
      deltaLink: changes.deltaLink,
      lastPollAt: now,
      ...(lastSkip ? { lastSkipped: { messageId: lastSkip.key, reason: lastSkip.reason, at: now } } : {}),
    },
  };
}

function mailboxPath(cfg: Config): string {
  return cfg.mailbox ? `/users/${encodeURIComponent(cfg.mailbox)}` : '/me';
}

/** Delta from `sinceIso` on: the only $filter delta allows, and it keeps a baseline from paging through old mail. */
function startUrl(cfg: Config, wantsBody: boolean, sinceIso: string): string {
  const select = wantsBody ? `${SELECT},body` : SELECT;
  const folder = encodeURIComponent(cfg.folder ?? 'inbox');
  return `${mailboxPath(cfg)}/mailFolders/${folder}/messages/delta?changeType=created&$select=${select}&$filter=receivedDateTime ge ${sinceIso}`;
}

async function readDelta(api: Api, first: string, wantsBody: boolean): Promise<{ messages: GraphMessage[]; deltaLink: string }> {
  const messages: GraphMessage[] = [];
  let next: string | undefined = first;
  for (let page = 0; next && page < 200; page++) {
    const res = await api.request({
      method: 'GET',
      endpoint: next,
      headers: wantsBody ? { prefer: 'outlook.body-content-type="text", odata.maxpagesize=100' } : { prefer: 'odata.maxpagesize=100' },
    });
    const body = res.body as { value?: GraphMessage[]; '@odata.nextLink'?: string; '@odata.deltaLink'?: string };
    messages.push(...(body.value ?? []));
    if (body['@odata.deltaLink']) return { messages, deltaLink: body['@odata.deltaLink'] };
    next = body['@odata.nextLink'];
  }
  throw new ProviderError({ connector: 'outlook', status: 502, method: 'GET', path: 'messages/delta', providerMessage: 'delta query ended without a deltaLink' });
}

function isExpiredSync(error: unknown): boolean {
  if (!(error instanceof ProviderError)) return false;
  const code = (error.code ?? '').toLowerCase();
  return code === 'syncstatenotfound' || code === 'resyncrequired' || code === 'syncstateinvalid' || (error.status === 410 && code !== '');
}

function matches(filter: ParsedFilter, m: GraphMessage, cfg: Config): boolean {
  try {
    return matchesFilter(
      filter,
      {
        subject: m.subject ?? null,
        bodyText: m.body?.content ?? null,
        bodyPreview: m.bodyPreview ?? null,
        from: m.from?.emailAddress ? { address: m.from.emailAddress.address ?? null, name: m.from.emailAddress.name ?? null } : null,
        hasAttachments: m.hasAttachments ?? false,
        receivedDateTime: m.receivedDateTime ?? '',
      },
      { timeZone: cfg.time_zone },
    );
  } catch (error) {
    if (error instanceof InputError) return false;
    throw error;
  }
}

async function listAttachments(api: Api, cfg: Config, messageId: string): Promise<Array<{ name: string; size: number }>> {
  const body = await api.get<{ value?: Array<{ name?: string; size?: number }> }>(
    `${mailboxPath(cfg)}/messages/${encodeURIComponent(messageId)}/attachments?$select=name,size,contentType`,
  );
  return (body.value ?? []).map((a) => ({ name: a.name ?? '(unnamed)', size: a.size ?? 0 }));
}

function toEvent(m: GraphMessage, attachments: Array<{ name: string; size: number }>, cfg: Config): NewEvent {
  const from = m.from?.emailAddress;
  const who = from?.name || from?.address || 'unknown sender';
  return {
    dedupeKey: m.id,
    occurredAt: m.receivedDateTime ?? new Date().toISOString(),
    summary: `Email from ${who}: ${(m.subject ?? '(no subject)').slice(0, 120)}`,
    payload: {
      message_id: m.id,
      subject: m.subject ?? null,
      from: from ? { name: from.name ?? null, address: from.address ?? null } : null,
      to: (m.toRecipients ?? []).map((r) => ({ name: r.emailAddress?.name ?? null, address: r.emailAddress?.address ?? null })),
      receivedDateTime: m.receivedDateTime ?? null,
      bodyPreview: m.bodyPreview ?? null,
      hasAttachments: m.hasAttachments ?? false,
      attachments,
      webLink: m.webLink ?? null,
      folder: cfg.folder ?? 'inbox',
      ...(cfg.mailbox ? { mailbox: cfg.mailbox } : {}),
    },
  };
}
