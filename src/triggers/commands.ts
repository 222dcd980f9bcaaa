import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { Agent } from 'undici';
import type { Config } from '../config.js';
import { InputError } from '../errors.js';
import { Redactor } from '../redact.js';
import { openStore } from '../store/index.js';
import type { TriggerEvent } from '../store/types.js';
import type { CallContext, ToolDeps } from '../tool.js';
import { EventLog } from './event-log.js';
import { eventJson } from './forward.js';
import { TRIGGER_KINDS } from './kinds.js';
import { triggersCreate, triggersDelete, triggersList } from './tools.js';

/** Runs a trigger tool from the CLI, so the CLI and MCP share one implementation. */
export async function runTriggerTool(config: Config, tool: 'create' | 'list' | 'delete', args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const redactor = new Redactor();
  const store = await openStore({ dataDir: config.dataDir, secretKey: config.secretKey, redactor });
  const dispatcher = new Agent({ connect: { timeout: 10_000 } });
  const log = new EventLog(store.events);
  try {
    const deps: ToolDeps = { store, baseUrls: config.baseUrls, redactor, readOnly: false, dispatcher, triggers: { kinds: TRIGGER_KINDS, log }, surface: 'cli' };
    const ctx: CallContext = { deps, signal: new AbortController().signal, progress: async () => undefined };
    const chosen = { create: triggersCreate, list: triggersList, delete: triggersDelete }[tool];
    return await chosen.call(args, ctx);
  } finally {
    await dispatcher.close();
    await store.close();
  }
}

/** Stores a provider's webhook signing secret for a trigger created before the secret existed. */
export async function setWebhookSecret(config: Config, triggerId: string, secret: string): Promise<void> {
  const store = await openStore({ dataDir: config.dataDir, secretKey: config.secretKey });
  try {
    const trigger = await store.triggers.get(triggerId);
    if (!trigger) throw new InputError(`No trigger "${triggerId}"; switchboard triggers list shows them.`, 'trigger');
    if (!TRIGGER_KINDS.get(trigger.kind)?.webhook) throw new InputError(`Trigger ${triggerId} (${trigger.kind}) receives no webhooks, so it takes no secret.`, 'trigger');
    await store.triggers.setSecrets(triggerId, { ...(await store.triggers.secrets(triggerId)), webhook: secret });
  } finally {
    await store.close();
  }
}

export function formatTriggers(triggers: Array<Record<string, any>>): string {
  if (triggers.length === 0) return 'No triggers. Add one with: switchboard triggers add outlook.new_email [--filter "from:*@acme.com"]';
  const rows = triggers.map((t) => [t.id, t.kind, t.account, t.status, String(t.fired), String(t.skipped), String(t.errors), t.last_event_at ?? '-']);
  const header = ['ID', 'KIND', 'ACCOUNT', 'STATUS', 'FIRED', 'SKIPPED', 'ERRORS', 'LAST EVENT'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

export interface TailOptions {
  triggerId?: string;
  json: boolean;
  exec?: string;
  consumer?: string;
  write: (line: string) => void;
  warn: (line: string) => void;
  signal: AbortSignal;
}

/**
 * `switchboard events tail`: prints events as they are committed. With --exec, runs the command once
 * per event (event JSON on stdin) under a kept consumer cursor that advances only after the command
 * succeeds, so a crash or a failing command repeats the event and never skips it.
 */
export async function tailEvents(config: Config, options: TailOptions): Promise<void> {
  const store = await openStore({ dataDir: config.dataDir, secretKey: config.secretKey });
  const log = new EventLog(store.events);
  try {
    if (options.triggerId && !(await store.triggers.get(options.triggerId))) {
      throw new InputError(`No trigger "${options.triggerId}"; switchboard triggers list shows them.`, 'trigger');
    }
    const consumer = options.exec
      ? `cli:${options.consumer ?? createHash('sha256').update(`${options.exec}\0${options.triggerId ?? ''}`).digest('hex').slice(0, 16)}`
      : undefined;
    let cursor = consumer ? await store.events.cursor(consumer) : await store.events.lastId();
    if (consumer && cursor === 0) {
      cursor = await store.events.lastId();
      await store.events.setCursor(consumer, cursor);
    }
    await log.start();
    while (!options.signal.aborted) {
      const batch = await store.events.after(cursor, { triggerIds: options.triggerId ? [options.triggerId] : undefined, limit: 100 });
      for (const event of batch) {
        if (options.signal.aborted) return;
        if (options.exec) {
          const ok = await runForEvent(options.exec, event, options);
          if (!ok) {
            await sleep(2_000, options.signal);
            break;
          }
          await store.events.setCursor(consumer!, event.id);
        } else {
          options.write(options.json ? JSON.stringify(eventJson(event)) : `#${event.id} ${event.receivedAt} ${event.kind} ${event.triggerId} ${event.summary}`);
        }
        cursor = event.id;
      }
      if (batch.length === 0) await log.waitFor(cursor, options.triggerId ? [options.triggerId] : undefined, 5_000, options.signal);
    }
  } finally {
    log.stop();
    await store.close();
  }
}

function runForEvent(command: string, event: TriggerEvent, options: TailOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'] });
    child.on('error', (error) => {
      options.warn(`--exec could not start: ${error.message}`);
      resolve(false);
    });
    child.on('close', (code) => {
      if (code !== 0) options.warn(`--exec exited ${code} for event ${event.id}; it will be retried.`);
      resolve(code === 0);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(eventJson(event)) + '\n');
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });
}
