import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { NewEvent, Trigger } from '../../store/types.js';
import type { PollContext, PollResult, SetupContext, SetupResult, TriggerKind, WebhookDelivery } from '../../contracts/triggers.js';
import { deliveryUrl, joinHook, leaveHook, orgTarget, repoTarget } from './hooks.js';
import { envelopeShape } from './payloads.js';
import { intervalMs, pollIntervalShape } from './polled.js';
import { githubWebhookIntake } from './webhook-intake.js';
import { HOOK_EVENTS, isoTime, issueShape, kindsFor, login, type Classified, type GithubPayload } from './webhooks.js';

/** How a GitHub webhook kind is declared (a Spec) and becomes a TriggerKind: config, set-up, teardown, match, optional polling. */

export type Cfg = Record<string, any>;

const REPO = z.string().regex(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/, 'use "owner/name", e.g. "octo/hello"');
const ORG = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, 'an organization login such as "octo"');
export const names = (what: string) => z.array(z.string().min(1)).min(1).optional().describe(what);

export interface Rendered {
  summary: string;
  payload: Record<string, unknown>;
  /** The payload's own timestamp of the occurrence, when it has one. */
  at?: unknown;
}

export interface Spec {
  name: string;
  description: string;
  /** repo_or_org (default): "repo" or "org"; org: organization hooks only; org_or_account: an org (webhook) or your account (polled). */
  target?: 'repo_or_org' | 'org' | 'org_or_account';
  filters?: z.ZodRawShape;
  events?(cfg: Cfg): string[];
  accept?(c: Classified, p: GithubPayload, cfg: Cfg): boolean;
  render(p: GithubPayload, c: Classified): Rendered;
  /** The shape of render's payload; the event adds the fields of envelopeShape before it. */
  payload: z.ZodRawShape;
  /** A polled variant, chosen with config.mode "poll" (repository targets only, unless org_or_account). */
  poll?: { what(cfg: Cfg): string; run(ctx: PollContext, spec: Spec): Promise<PollResult> };
}

export const lower = (s: unknown) => String(s ?? '').toLowerCase();
export const inList = (list: unknown, value: unknown) => !Array.isArray(list) || list.some((x) => lower(x) === lower(value));
export const repoOf = (p: GithubPayload) => p.repository?.full_name ?? p.organization?.login ?? 'GitHub';
export const who = (p: GithubPayload) => login(p.sender) ?? 'someone';
export const branchOf = (ref: unknown) => (typeof ref === 'string' && ref.startsWith('refs/heads/') ? ref.slice(11) : null);
export const hasLabel = (cfg: Cfg, issue: any) => !cfg.labels || issueShape(issue).labels.some((l: string) => inList(cfg.labels, l));
export const ref = (p: GithubPayload, n: unknown) => `${repoOf(p)}#${n}`;

function isPoll(spec: Spec, cfg: Cfg): boolean {
  return !!spec.poll && (cfg.mode === 'poll' || (spec.target === 'org_or_account' && !cfg.org));
}

function eventsFor(spec: Spec, cfg: Cfg): string[] {
  return spec.events?.(cfg) ?? HOOK_EVENTS[spec.name] ?? [];
}

function configOf(spec: Spec) {
  const target = spec.target ?? 'repo_or_org';
  const shape: Record<string, z.ZodType> = {};
  if (target === 'repo_or_org') {
    shape.repo = REPO.optional().describe('Repository as "owner/name"; give this or org');
    shape.org = ORG.optional().describe('Organization login: all its repositories, through an organization webhook (needs an org owner)');
  } else if (target === 'org') {
    shape.org = ORG.describe('Organization login (GitHub sends these events to organization webhooks only; needs an org owner)');
  } else {
    shape.org = ORG.optional().describe("Organization login (organization webhook); omit for your personal account's repositories (polled)");
  }
  Object.assign(shape, spec.filters ?? {});
  if (spec.poll) {
    shape.mode = z.enum(['webhook', 'poll']).optional().describe('webhook (default; needs a public URL) or poll (no public URL needed; up to one poll interval late)');
    Object.assign(shape, pollIntervalShape);
  }
  return z
    .object(shape)
    .strict()
    .superRefine((v: Cfg, ctx) => {
      if (target === 'repo_or_org' && !!v.repo === !!v.org) ctx.addIssue({ code: 'custom', path: ['repo'], message: 'give exactly one of "repo" ("owner/name") or "org"' });
      if (target === 'repo_or_org' && v.mode === 'poll' && v.org) ctx.addIssue({ code: 'custom', path: ['mode'], message: 'polling watches one repository: give "repo" instead of "org", or use the webhook' });
      if (target === 'org_or_account' && !v.org && v.mode === 'webhook') {
        ctx.addIssue({ code: 'custom', path: ['mode'], message: 'personal accounts have no account-wide webhook; omit "mode" to poll, or give "org"' });
      }
    });
}

function noPublicUrl(spec: Spec): InputError {
  return new InputError(
    `github.${spec.name} comes from a GitHub webhook, and GitHub must be able to reach this server, which has no public URL. ` +
      'Start Switchboard with --public-url https://<host> (or set SWITCHBOARD_PUBLIC_URL) pointing at a tunnel (for example "cloudflared tunnel --url http://127.0.0.1:8765" or "ngrok http 8765") ' +
      "or at a reachable host that forwards to this server's HTTP port; Switchboard then creates and removes the webhook itself. " +
      (spec.poll
        ? 'Or poll instead, with no public URL: config {"mode":"poll"} checks GitHub every poll_interval_seconds (default 60) with conditional requests, so events arrive up to one interval later.'
        : 'This kind has no polled variant.'),
    'config',
  );
}

/** Deliveries of another repository or organization do not belong to this trigger. */
function targetMatches(cfg: Cfg, p: GithubPayload): boolean {
  if (cfg.repo) return lower(p.repository?.full_name) === lower(cfg.repo);
  if (cfg.org) {
    if (p.organization?.login) return lower(p.organization.login) === lower(cfg.org);
    if (p.repository?.owner?.login) return lower(p.repository.owner.login) === lower(cfg.org);
  }
  return true;
}

function toEvent(p: GithubPayload, c: Classified, spec: Spec, dedupeKey: string, extra: Record<string, unknown> = {}): NewEvent {
  const r = spec.render(p, c);
  return {
    dedupeKey,
    occurredAt: isoTime(r.at),
    summary: r.summary.replace(/\s+/g, ' ').trim().slice(0, 300),
    payload: {
      ...extra,
      action: p.action ?? null,
      repository: p.repository?.full_name ?? null,
      organization: p.organization?.login ?? null,
      sender: login(p.sender),
      ...r.payload,
    },
  };
}

function match(spec: Spec, delivery: WebhookDelivery, cfg: Cfg): NewEvent[] {
  const p = delivery.payload;
  if (isPoll(spec, cfg) || !targetMatches(cfg, p)) return [];
  return kindsFor(delivery.event, p)
    .filter((c) => c.kind === `github.${spec.name}` && (spec.accept?.(c, p, cfg) ?? true))
    .map((c) =>
      toEvent(p, c, spec, spec.name === 'new_commit' ? `${delivery.id}:${c.detail}` : delivery.id, { delivery_id: delivery.id, event: delivery.event }),
    );
}

async function setup(spec: Spec, ctx: SetupContext): Promise<SetupResult> {
  const cfg = ctx.config as Cfg;
  if (isPoll(spec, cfg)) {
    return {
      next: `Polling ${spec.poll!.what(cfg)} every ${intervalMs(cfg) / 1000} s with conditional requests: a new one is an event within one poll interval. The first poll was a baseline and fired nothing.`,
    };
  }
  if (!ctx.publicUrl) throw noPublicUrl(spec);
  const target = cfg.org ? orgTarget(cfg.org) : repoTarget(cfg.repo);
  const joined = await joinHook({ ...ctx, publicUrl: ctx.publicUrl }, target, eventsFor(spec, cfg), eventsOfTrigger);
  const how = { created: 'Created a GitHub webhook', updated: 'Updated the GitHub webhook', shared: 'Joined the GitHub webhook' }[joined.change];
  return {
    providerRefs: { hookId: joined.hookId, target: target.key },
    settle: joined.release,
    next: `${how} on ${target.label} (events: ${joined.events.join(', ')}), delivering to ${deliveryUrl(ctx.publicUrl, joined.hookId)}: each matching delivery is an event within seconds.`,
  };
}

const SPEC_BY_KIND = new Map<string, Spec>();

/** What a stored trigger needs its hook subscribed to (hooks.ts asks, to share one hook). */
function eventsOfTrigger(trigger: Trigger): string[] {
  const spec = SPEC_BY_KIND.get(trigger.kind);
  return spec && !isPoll(spec, trigger.config) ? eventsFor(spec, trigger.config) : [];
}

export function define(spec: Spec): TriggerKind {
  SPEC_BY_KIND.set(`github.${spec.name}`, spec);
  return {
    kind: `github.${spec.name}`,
    connector: 'github',
    description: spec.description,
    config: configOf(spec),
    payload: z.strictObject({ ...envelopeShape, ...spec.payload }),
    ...((spec.target ?? 'repo_or_org') === 'repo_or_org' ? { exactlyOneOf: ['repo', 'org'] } : {}),
    webhook: { ...githubWebhookIntake, match: (d, c) => match(spec, d, c) },
    provider: { setup: (ctx) => setup(spec, ctx), teardown: (ctx) => leaveHook(ctx, eventsOfTrigger) },
    modeOf: (trigger) => ({ mode: isPoll(spec, trigger.config) ? 'poll' : 'push', reason: null }),
    ...(spec.poll
      ? {
          poll: {
            // A webhook-mode trigger of a kind that can also poll costs nothing: its poll returns at once, daily.
            intervalMs: (c: Cfg) => (isPoll(spec, c) ? intervalMs(c) : 24 * 3600_000),
            run: (ctx: PollContext) => (isPoll(spec, ctx.trigger.config) ? spec.poll!.run(ctx, spec) : Promise.resolve({ events: [], state: ctx.trigger.state })),
          },
        }
      : {}),
  };
}

/** A polled list item rendered exactly like the webhook event of the same kind. */
export function polledEvent(spec: Spec, p: GithubPayload, key: string, detail?: string): NewEvent {
  return toEvent(p, { kind: `github.${spec.name}`, ...(detail ? { detail } : {}) }, spec, key, { delivery_id: null, event: null, polled: true });
}

export const repoPath = (cfg: Cfg) => {
  const [o, r] = String(cfg.repo).split('/') as [string, string];
  return `/repos/${encodeURIComponent(o)}/${encodeURIComponent(r)}`;
};
