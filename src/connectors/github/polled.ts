import * as z from 'zod/v4';
import { InputError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import type { NewEvent } from '../../store/types.js';
import { DEFAULT_POLL_INTERVAL_S, type PollContext, type PollResult, type SetupContext, type SetupResult, type TriggerKind } from '../../contracts/triggers.js';
import { text, time, url } from './payloads.js';
import { clip, isoTime, line, login } from './webhooks.js';

/**
 * GitHub kinds without a webhook, polled with conditional requests: each trigger keeps the ETag
 * of its last answer in its own state (it survives restarts, unlike an in-memory cache) and sends
 * it as If-None-Match; GitHub answers 304, which does not count against the rate limit, until
 * something changed. The first poll is a baseline that fires nothing.
 */

export const MIN_GITHUB_POLL_S = 30;
const MAX_SEEN = 1000;
/** Tolerated clock difference between GitHub's timestamps and ours. */
const SKEW_MS = 10 * 60_000;
const MAX_PAGES = 10;

export const pollIntervalShape = {
  poll_interval_seconds: z
    .number()
    .int()
    .min(MIN_GITHUB_POLL_S)
    .max(3600)
    .optional()
    .describe(`Seconds between polls, ${MIN_GITHUB_POLL_S}-3600; default ${DEFAULT_POLL_INTERVAL_S}`),
};

export const intervalMs = (config: Record<string, unknown>) => (Number(config.poll_interval_seconds) || DEFAULT_POLL_INTERVAL_S) * 1000;

export interface Conditional {
  notModified: boolean;
  body: unknown;
  etag?: string;
  headers: Record<string, string>;
}

/** GET with If-None-Match when an ETag is known; a 304 is "nothing changed". */
export async function conditionalGet(api: Api, endpoint: string, etag?: string): Promise<Conditional> {
  const res = await api.request({ method: 'GET', endpoint, headers: etag ? { 'if-none-match': etag } : undefined, acceptStatus: [304] });
  if (res.status === 304) return { notModified: true, body: undefined, etag, headers: res.headers };
  return { notModified: false, body: res.body, etag: res.headers.etag, headers: res.headers };
}

export function nextLink(headers: Record<string, string>): string | undefined {
  return /<([^>]+)>;\s*rel="next"/.exec(headers.link ?? '')?.[1];
}

export interface ListState extends Record<string, unknown> {
  baselineAt?: string;
  lastPollAt?: string;
  url?: string;
  etag?: string;
  seen?: string[];
  since?: string;
  /** GitHub's X-Poll-Interval asks for no request before this. */
  notBefore?: string;
}

export interface ListSource {
  endpoint: string;
  items(body: unknown): any[];
  key(item: any): string;
  /** When the item appeared (created_at; updated_at for notification threads). */
  time(item: any): unknown;
  keep?(item: any): boolean;
  event(item: any): NewEvent;
}

/**
 * One page of newest items: a baseline first; afterwards every item not seen before, kept by the
 * source's filter and no older than the baseline (an old item sliding into view is not new).
 */
export async function pollList(ctx: PollContext, source: ListSource): Promise<PollResult> {
  const state = ctx.trigger.state as ListState;
  const now = new Date(ctx.now).toISOString();
  if (state.notBefore && Date.parse(state.notBefore) > ctx.now) return { events: [], state };
  const res = await conditionalGet(ctx.api, source.endpoint, state.url === source.endpoint ? state.etag : undefined);
  const waitS = Number(res.headers['x-poll-interval']);
  const notBefore = Number.isFinite(waitS) && waitS > 0 ? new Date(ctx.now + waitS * 1000).toISOString() : undefined;
  const base = { ...state, lastPollAt: now, notBefore };
  if (res.notModified) return { events: [], state: base };
  const items = source.items(res.body);
  const next = { ...base, url: source.endpoint, etag: res.etag };
  if (!state.baselineAt) return { events: [], state: { ...next, baselineAt: now, seen: items.map(source.key).slice(0, MAX_SEEN) } };
  const seen = new Set(state.seen ?? []);
  const cutoff = Date.parse(state.baselineAt) - SKEW_MS;
  const fresh = items
    .filter((i) => !seen.has(source.key(i)) && (source.keep?.(i) ?? true) && Date.parse(isoTime(source.time(i), 0)) >= cutoff)
    .sort((a, b) => Date.parse(isoTime(source.time(a), 0)) - Date.parse(isoTime(source.time(b), 0)));
  return {
    events: fresh.map((i) => source.event(i)),
    state: { ...next, seen: [...fresh.map(source.key), ...(state.seen ?? [])].slice(0, MAX_SEEN) },
  };
}

/** A `since` that stays put (so the URL and its ETag stay valid) and moves on once a day. */
function sinceOf(ctx: PollContext): string {
  const state = ctx.trigger.state as ListState;
  if (state.since && Date.parse(state.since) > ctx.now - 24 * 3600_000) return state.since;
  const from = Math.min(state.lastPollAt ? Date.parse(state.lastPollAt) : ctx.now, ctx.now) - 3600_000;
  return new Date(state.since ? from : ctx.now - SKEW_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Keeps `since` in the state next to the ETag of the URL it is part of. */
async function withSince(ctx: PollContext, run: (since: string) => Promise<PollResult>): Promise<PollResult> {
  const since = sinceOf(ctx);
  const result = await run(since);
  return { ...result, state: { ...result.state, since } };
}

const setupText = (what: string, config: Record<string, unknown>, latency: string) =>
  `Polling ${what} every ${intervalMs(config) / 1000} s (GitHub sends no webhook for this): a new one is an event ${latency}. The first poll was a baseline and fired nothing.`;

/* ---------- github.new_gist ---------- */

const gistConfig = z
  .object({
    username: z.string().regex(/^[A-Za-z0-9-]{1,39}$/, 'a GitHub login').optional().describe("Whose public gists; omit for the account's own gists, secret ones included"),
    ...pollIntervalShape,
  })
  .strict();

export const newGist: TriggerKind = {
  kind: 'github.new_gist',
  connector: 'github',
  description:
    "Each new gist of a user (default: the account's own, secret ones included). GitHub has no gist webhook, so this is polled " +
    '(GET /gists or /users/{username}/gists?since=, conditional requests): an event arrives within one poll interval (default 60 s, at least 30 s).',
  config: gistConfig,
  payload: z.strictObject({
    id: z.string().describe('Gist id'),
    html_url: url('Gist page'),
    description: text('Gist description, cut at 300 characters'),
    public: z.boolean().nullable().describe('false for a secret gist'),
    owner: z.string().describe('Owner (GitHub login)'),
    files: z.array(z.string()).describe('File names, at most 20'),
    created_at: time('When it was created'),
    updated_at: time('When it last changed'),
  }),
  provider: { setup: async (ctx) => ({ next: setupText(ctx.config.username ? `public gists of ${ctx.config.username}` : 'your gists', ctx.config, 'within one poll interval') }) },
  poll: {
    intervalMs,
    run: (ctx) =>
      withSince(ctx, (since) => {
        const user = ctx.trigger.config.username as string | undefined;
        const path = user ? `/users/${encodeURIComponent(user)}/gists` : '/gists';
        return pollList(ctx, {
          endpoint: `${path}?since=${encodeURIComponent(since)}&per_page=100`,
          items: (b) => (Array.isArray(b) ? b : []),
          key: (g) => `gist:${g.id}`,
          time: (g) => g.created_at,
          event: (g) => {
            const files = Object.keys(g.files ?? {});
            const owner = login(g.owner) ?? user ?? ctx.account.identity ?? 'unknown';
            return {
              dedupeKey: `gist:${g.id}`,
              occurredAt: isoTime(g.created_at),
              summary: `New ${g.public ? 'public' : 'secret'} gist by ${owner}: ${line(g.description) || files.slice(0, 3).join(', ') || g.id}`,
              payload: {
                id: g.id,
                html_url: g.html_url ?? null,
                description: clip(g.description, 300),
                public: g.public ?? null,
                owner,
                files: files.slice(0, 20),
                created_at: g.created_at ?? null,
                updated_at: g.updated_at ?? null,
              },
            };
          },
        });
      }),
  },
};

/* ---------- github.new_mention ---------- */

const mentionConfig = z
  .object({
    username: z.string().regex(/^[A-Za-z0-9-]{1,39}$/, 'a GitHub login').optional().describe("Who is mentioned; must be the account's own login (the default)"),
    include_team_mentions: z.boolean().optional().describe('Also fire when a team you belong to is mentioned; default true'),
    ...pollIntervalShape,
  })
  .strict();

/** https://api.github.com/repos/o/r/issues/12 → https://github.com/o/r/issues/12 */
function htmlUrlOf(apiUrl: unknown): string | null {
  const m = typeof apiUrl === 'string' ? /\/repos\/([^/]+\/[^/]+)\/(issues|pulls|commits|releases|discussions)\/([^/?#]+)$/.exec(apiUrl) : null;
  if (!m) return null;
  return `https://github.com/${m[1]}/${m[2] === 'pulls' ? 'pull' : m[2] === 'commits' ? 'commit' : m[2]}/${m[3]}`;
}

async function mentionSetup(ctx: SetupContext): Promise<SetupResult> {
  const wanted = ctx.config.username as string | undefined;
  const own = ctx.account.identity;
  if (wanted && own && wanted.toLowerCase() !== own.toLowerCase()) {
    throw new InputError(
      `github.new_mention watches the notifications of the account's own user (${own}); GitHub shows no one else's. ` +
        `Omit "username", or connect ${wanted}'s account and create the trigger with it.`,
      'config.username',
    );
  }
  return { next: setupText(`mentions of ${own ?? 'you'} in your GitHub notifications`, ctx.config, 'within one poll interval, or GitHub\'s X-Poll-Interval (usually 60 s) when longer') };
}

export const newMention: TriggerKind = {
  kind: 'github.new_mention',
  connector: 'github',
  description:
    "Each new @mention of the account's user (or a team of theirs) in an issue, pull request, commit or discussion. No webhook exists; " +
    'polled from GET /notifications?participating=true&all=true (reasons mention, team_mention) with conditional requests and GitHub\'s X-Poll-Interval: ' +
    'an event arrives within one poll interval (default 60 s). Needs a token with the notifications or repo scope (classic or OAuth; fine-grained tokens cannot read notifications).',
  config: mentionConfig,
  payload: z.strictObject({
    thread_id: text('Notification thread id'),
    reason: z.enum(['mention', 'team_mention']).describe('mention: you; team_mention: a team of yours'),
    unread: z.boolean().nullable(),
    repository: text('Repository as "owner/name"'),
    subject: z.strictObject({
      type: text('Issue, PullRequest, Commit, Release or Discussion'),
      title: text('Its title'),
      url: url('Its API URL'),
      html_url: url('Its page; null when it cannot be derived from the API URL'),
      latest_comment_url: url('API URL of the latest comment'),
    }),
    updated_at: time('When the thread last changed'),
  }),
  provider: { setup: mentionSetup },
  poll: {
    intervalMs,
    run: (ctx) =>
      withSince(ctx, (since) => {
        const reasons = ctx.trigger.config.include_team_mentions === false ? ['mention'] : ['mention', 'team_mention'];
        return pollList(ctx, {
          endpoint: `/notifications?all=true&participating=true&since=${encodeURIComponent(since)}&per_page=50`,
          items: (b) => (Array.isArray(b) ? b : []),
          // A thread is one entry; each later mention in it moves its updated_at.
          key: (n) => `${n.id}@${n.updated_at}`,
          time: (n) => n.updated_at,
          keep: (n) => reasons.includes(n.reason),
          event: (n) => {
            const repo = n.repository?.full_name ?? null;
            return {
              dedupeKey: `${n.id}@${n.updated_at}`,
              occurredAt: isoTime(n.updated_at),
              summary: `${n.reason === 'team_mention' ? 'Your team was' : 'You were'} mentioned in ${repo ?? 'a repository'} ${n.subject?.type ?? ''}: ${line(n.subject?.title)}`.replace(/\s+:/, ':'),
              payload: {
                thread_id: n.id ?? null,
                reason: n.reason ?? null,
                unread: n.unread ?? null,
                repository: repo,
                subject: {
                  type: n.subject?.type ?? null,
                  title: n.subject?.title ?? null,
                  url: n.subject?.url ?? null,
                  html_url: htmlUrlOf(n.subject?.url),
                  latest_comment_url: n.subject?.latest_comment_url ?? null,
                },
                updated_at: n.updated_at ?? null,
              },
            };
          },
        });
      }),
  },
};

/* ---------- github.new_watcher ---------- */

const watcherConfig = z
  .object({
    repo: z.string().regex(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/, 'use "owner/name", e.g. "octo/hello"').describe('Repository as "owner/name"'),
    ...pollIntervalShape,
  })
  .strict();

interface WatcherPage {
  etag?: string;
  next: string | null;
  logins: string[];
}

interface WatcherState {
  baselineAt?: string;
  lastPollAt?: string;
  /** Per page URL: its ETag, the next page and the logins it held. */
  pages?: Record<string, WatcherPage>;
}

async function pollWatchers(ctx: PollContext): Promise<PollResult> {
  const state = ctx.trigger.state as WatcherState;
  const repo = ctx.trigger.config.repo as string;
  const [owner, name] = repo.split('/') as [string, string];
  const now = new Date(ctx.now).toISOString();
  const before = new Set(Object.values(state.pages ?? {}).flatMap((p) => p.logins));
  const pages: Record<string, WatcherPage> = {};
  let url: string | undefined = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/subscribers?per_page=100`;
  for (let n = 0; url && n < MAX_PAGES; n++) {
    const known: WatcherPage | undefined = state.pages?.[url];
    const res = await conditionalGet(ctx.api, url, known?.etag);
    const page: WatcherPage =
      res.notModified && known
        ? known
        : { etag: res.etag, next: nextLink(res.headers) ?? null, logins: (Array.isArray(res.body) ? res.body : []).map(login).filter((l): l is string => !!l) };
    pages[url] = page;
    url = page.next ?? undefined;
  }
  const current = Object.values(pages).flatMap((p) => p.logins);
  const fresh = state.baselineAt ? current.filter((l) => !before.has(l)) : [];
  return {
    events: fresh.map((who) => ({
      dedupeKey: `${who}@${now}`,
      occurredAt: now,
      summary: `${repo} is now watched by ${who}`,
      payload: { repository: repo, watcher: who, html_url: `https://github.com/${who}` },
    })),
    state: { baselineAt: state.baselineAt ?? now, lastPollAt: now, pages },
  };
}

export const newWatcher: TriggerKind = {
  kind: 'github.new_watcher',
  connector: 'github',
  description:
    'Each new watcher (subscriber to notifications) of a repository. GitHub sends no webhook for watching (its `watch` event is a star), so this is polled: ' +
    'GET /repos/{owner}/{repo}/subscribers, compared with the last list, with conditional requests; an event arrives within one poll interval (default 60 s). Up to 1,000 watchers are compared.',
  config: watcherConfig,
  payload: z.strictObject({
    repository: z.string().describe('Repository as "owner/name"'),
    watcher: z.string().describe('The new watcher (GitHub login)'),
    html_url: z.string().describe("The watcher's profile page"),
  }),
  provider: { setup: async (ctx) => ({ next: setupText(`the watchers of ${ctx.config.repo}`, ctx.config, 'within one poll interval') }) },
  poll: { intervalMs, run: pollWatchers },
};
