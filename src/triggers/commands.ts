import { Agent } from 'undici';
import { openCliStore } from '../cli-store.js';
import type { Config } from '../config.js';
import { InputError } from '../errors.js';
import { Redactor } from '../redact.js';
import type { Store } from '../store/types.js';
import type { CallContext, ToolDeps } from '../tool.js';
import { EventLog } from './event-log.js';
import { TRIGGER_KINDS } from './kinds.js';
import { triggersCreate, triggersDelete, triggersList } from './tools.js';

/** The tools' dependencies for a command run on the server's machine, over a store it opened; `close` ends what they opened. */
export function cliToolDeps(config: Config, store: Store, redactor = new Redactor()): { deps: ToolDeps; close(): Promise<void> } {
  const dispatcher = new Agent({ connect: { timeout: 10_000 } });
  const deps: ToolDeps = {
    store,
    baseUrls: config.baseUrls,
    redactor,
    readOnly: false,
    dispatcher,
    triggers: { kinds: TRIGGER_KINDS, log: new EventLog(store.events), publicUrl: config.http.publicUrl },
    forwardPolicy: { allowPrivate: config.forwardAllowPrivate },
    surface: 'cli',
  };
  return { deps, close: () => dispatcher.close() };
}

/** Runs a trigger tool from the CLI, so the CLI and MCP share one implementation. */
export async function runTriggerTool(config: Config, tool: 'create' | 'list' | 'delete', args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const redactor = new Redactor();
  const store = await openCliStore(config, redactor);
  const { deps, close } = cliToolDeps(config, store, redactor);
  try {
    const ctx: CallContext = { deps, signal: new AbortController().signal, progress: async () => undefined };
    const chosen = { create: triggersCreate, list: triggersList, delete: triggersDelete }[tool];
    return await chosen.call(args, ctx);
  } finally {
    await close();
    await store.close();
  }
}

/** How long a replaced webhook secret is still accepted: deliveries signed before the provider switched are not lost. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * Stores a provider's webhook signing secret for a trigger; a secret it replaces stays valid for the overlap.
 * Returns until when the replaced one is accepted, if one was replaced.
 */
export async function setWebhookSecret(config: Config, triggerId: string, secret: string): Promise<string | undefined> {
  const store = await openCliStore(config);
  try {
    return await replaceWebhookSecret(store, triggerId, secret);
  } finally {
    await store.close();
  }
}

export async function replaceWebhookSecret(store: Store, triggerId: string, secret: string, now = Date.now()): Promise<string | undefined> {
  const trigger = await store.triggers.get(triggerId);
  if (!trigger) throw new InputError(`No trigger "${triggerId}"; switchboard triggers list shows them.`, 'trigger');
  if (!TRIGGER_KINDS.get(trigger.kind)?.webhook) throw new InputError(`Trigger ${triggerId} (${trigger.kind}) receives no webhooks, so it takes no secret.`, 'trigger');
  const current = await store.triggers.secrets(triggerId);
  const replaced = current.webhook && current.webhook !== secret ? current.webhook : undefined;
  const until = replaced ? new Date(now + WEBHOOK_SECRET_OVERLAP_MS).toISOString() : undefined;
  const { previousWebhook: _, previousWebhookUntil: __, ...rest } = current;
  await store.triggers.setSecrets(triggerId, { ...rest, webhook: secret, ...(replaced ? { previousWebhook: replaced, previousWebhookUntil: until } : {}) });
  return until;
}

export function formatTriggers(triggers: Array<Record<string, any>>): string {
  if (triggers.length === 0) return 'No triggers. Add one with: switchboard triggers add outlook.new_email [--filter "from:*@acme.com"]';
  const rows = triggers.map((t) => [t.id, t.kind, t.account, t.status, t.mode, String(t.fired), String(t.skipped), String(t.errors), t.last_event_at ?? '-']);
  const header = ['ID', 'KIND', 'ACCOUNT', 'STATUS', 'MODE', 'FIRED', 'SKIPPED', 'ERRORS', 'LAST EVENT'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const table = [header, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
  // Why a trigger polls when it could be pushed (or is paused), under the table: too long for a column.
  const reasons = triggers.filter((t) => t.mode_reason && t.mode !== 'push').map((t) => `${t.id}: ${t.mode_reason}`);
  // Notifications that did not prove they came from the provider: someone else knows the URL.
  const refused = triggers
    .filter((t) => t.refused_notifications > 0)
    .map((t) => `${t.id}: ${t.refused_notifications} notification${t.refused_notifications === 1 ? '' : 's'} refused (wrong clientState).`);
  const notes = [...reasons, ...refused];
  return [...table, ...(notes.length ? ['', ...notes] : [])].join('\n');
}
