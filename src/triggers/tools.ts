import * as z from 'zod/v4';
import { InputError } from '../errors.js';
import type { Account, Store, Trigger } from '../store/types.js';
import type { TriggerMode } from '../contracts/triggers.js';
import { defineTool } from '../tool.js';
import { eventJson } from './forward.js';
import { TRIGGER_KINDS } from './kinds.js';
import { createTrigger, deleteTrigger, runtimeOf } from './lifecycle.js';

const KIND_NAMES = [...TRIGGER_KINDS.keys()] as [string, ...string[]];

const triggerShape = z.object({
  id: z.string(),
  kind: z.string(),
  account: z.string().describe('label'),
  status: z.enum(['active', 'failing']),
  config: z.record(z.string(), z.unknown()),
  forward_url: z.string().nullable(),
  fired: z.number().int(),
  skipped: z.number().int(),
  errors: z.number().int(),
  last_event_at: z.string().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  mode: z.enum(['push', 'poll', 'paused']).describe('push: the provider notifies; poll: checked on a timer'),
  mode_reason: z.string().nullable(),
  refused_notifications: z.number().int().optional().describe('wrong clientState'),
});

/** How a trigger's events arrive: the kind says, else a webhook kind is pushed and any other polled. */
function modeOf(t: Trigger, account: Account | undefined): TriggerMode {
  const kind = TRIGGER_KINDS.get(t.kind);
  return kind?.modeOf?.(t, account) ?? { mode: kind?.webhook ? 'push' : 'poll', reason: null };
}

async function describeTrigger(store: Store, t: Trigger): Promise<z.input<typeof triggerShape>> {
  const account = await store.accounts.find(t.accountId);
  const mode = modeOf(t, account);
  return {
    id: t.id,
    kind: t.kind,
    account: account?.label ?? t.accountId,
    status: t.status,
    config: t.config,
    forward_url: t.forwardUrl,
    fired: t.fired,
    skipped: t.skipped,
    errors: t.errors,
    last_event_at: t.lastEventAt,
    last_error: t.lastError,
    created_at: t.createdAt,
    mode: mode.mode,
    mode_reason: mode.reason,
    ...(mode.refused !== undefined ? { refused_notifications: mode.refused } : {}),
  };
}

export const triggersCreate = defineTool({
  name: 'triggers_create',
  title: 'Create a trigger',
  description:
    'Start watching an account for events of a kind; returns the trigger and what happens next. ' +
    'Read events with events_next or switchboard://triggers/{id}/events.',
  input: z
    .object({
      kind: z.enum(KIND_NAMES).describe('Kind'),
      account: z.string().optional().describe('accounts_list id or label'),
      config: z
        .record(z.string(), z.unknown())
        .optional()
        .describe(
          'outlook.new_email: {folder?, mailbox?, filter? e.g. "from:*@acme.com AND subject:invoice", poll_interval_seconds?}; github.*: {repo: "owner/name" or org}; vercel.*: {project, environment?}',
        ),
      forward_url: z.string().optional().describe('POST each event here, signed (X-Switchboard-Signature-256)'),
    })
    .strict(),
  output: z.object({
    trigger: triggerShape,
    next: z.string(),
    forward_secret: z.string().optional().describe('for forward_url; shown only now'),
  }),
  effect: 'write',
  async run(input, ctx) {
    const { trigger, next, forwardSecret } = await createTrigger(input, ctx);
    return { trigger: await describeTrigger(ctx.deps.store, trigger), next, ...(forwardSecret ? { forward_secret: forwardSecret } : {}) };
  },
});

export const triggersList = defineTool({
  name: 'triggers_list',
  title: 'List triggers',
  description: 'List triggers with kind, account, config, status, counters and last event time. Ids feed events_next and triggers_delete.',
  input: z
    .object({
      kind: z.string().optional().describe('Only this kind'),
      account: z.string().optional().describe('Only this account id or label'),
    })
    .strict(),
  output: z.object({ triggers: z.array(triggerShape) }),
  effect: 'read',
  records: 'triggers',
  async run(input, ctx) {
    const account = input.account ? await ctx.deps.store.accounts.find(input.account) : undefined;
    if (input.account && !account) throw new InputError(`No account "${input.account}"; accounts_list shows the connected accounts.`, 'account');
    const triggers = await ctx.deps.store.triggers.list({ kind: input.kind, accountId: account?.id });
    return { triggers: await Promise.all(triggers.map((t) => describeTrigger(ctx.deps.store, t))) };
  },
});

export const triggersDelete = defineTool({
  name: 'triggers_delete',
  title: 'Delete a trigger',
  description: 'Stop and delete a trigger; pending forwards are cancelled. Ids come from triggers_list.',
  input: z.object({ id: z.string().describe('trg_... id') }).strict(),
  output: z.object({ deleted: z.boolean(), id: z.string(), kind: z.string(), note: z.string().optional() }),
  effect: 'delete',
  idempotent: true,
  async run({ id }, ctx) {
    const trigger = await ctx.deps.store.triggers.get(id);
    if (!trigger) throw new InputError(`No trigger "${id}"; triggers_list shows the triggers.`, 'id');
    const note = await deleteTrigger(trigger, ctx);
    return { deleted: true, id, kind: trigger.kind, ...(note ? { note } : {}) };
  },
});

const eventShape = z.object({
  id: z.string(),
  trigger_id: z.string(),
  kind: z.string(),
  occurred_at: z.string(),
  received_at: z.string(),
  summary: z.string(),
  payload: z.record(z.string(), z.unknown()),
});

export const eventsNext = defineTool({
  name: 'events_next',
  title: 'Next trigger events',
  description:
    'Trigger events after a cursor, waiting up to wait_seconds. ' +
    'With consumer the server keeps the cursor (a new one starts now): pass next_cursor back to acknowledge.',
  input: z
    .object({
      triggers: z.array(z.string()).optional().describe('Only these trigger ids'),
      cursor: z.string().regex(/^\d+$/, 'must be a next_cursor value').optional().describe('next_cursor of the last call; omit to start now, "0" for the whole log'),
      consumer: z.string().regex(/^[\w.:-]{1,64}$/, 'letters, digits, _ . : - only, at most 64').optional().describe('Name to keep your cursor under'),
      wait_seconds: z.number().int().min(0).max(60).optional().describe('Wait this long for a new event'),
      limit: z.number().int().min(1).max(100).optional().describe('Default 20'),
    })
    .strict(),
  output: z.object({ events: z.array(eventShape), next_cursor: z.string(), more: z.boolean() }),
  effect: 'read',
  records: 'events',
  async run(input, ctx) {
    const { log } = runtimeOf(ctx);
    const events = ctx.deps.store.events;
    const limit = input.limit ?? 20;
    const head = await events.lastId();
    const given = input.cursor === undefined ? undefined : Number(input.cursor);
    if (given !== undefined && given > head) {
      throw new InputError(
        `"cursor" ${input.cursor} is beyond the newest event (${head}): pass a next_cursor this server returned, "0" for the whole log, or omit it to start now.`,
        'cursor',
      );
    }
    let cursor = given ?? head;
    if (input.consumer) {
      // A consumer seen for the first time starts now, like a call without one; a given cursor acknowledges up to it.
      const key = `mcp:${input.consumer}`;
      const kept = await events.cursor(key);
      if (given === undefined && kept !== undefined) cursor = kept;
      else await events.setCursor(key, cursor);
    }
    let batch = await events.after(cursor, { triggerIds: input.triggers, limit: limit + 1 });
    if (batch.length === 0 && input.wait_seconds) {
      // A server shutting down answers a long poll with what it has.
      const stopping = ctx.deps.drain?.stopping;
      const signal = stopping ? AbortSignal.any([ctx.signal, stopping]) : ctx.signal;
      const deadline = Date.now() + input.wait_seconds * 1000;
      // The log wakes every waiter for every commit; another owner's events are not in this store's view, so wait on.
      while (batch.length === 0 && Date.now() < deadline && !signal.aborted) {
        await log.waitFor(cursor, input.triggers, deadline - Date.now(), signal);
        batch = await events.after(cursor, { triggerIds: input.triggers, limit: limit + 1 });
      }
    }
    const more = batch.length > limit;
    const page = batch.slice(0, limit);
    const next = page.length ? page[page.length - 1]!.id : cursor;
    return { events: page.map((e) => eventJson(e) as z.input<typeof eventShape>), next_cursor: String(next), more };
  },
});

export const triggerTools = [triggersCreate, triggersList, triggersDelete, eventsNext];
